"""The guard seam: allow, confirm or deny one action before it runs.

The guard sees the action (grid and pixel form), what the driver found at every
point the action touches and at the keyboard focus (`Target`s, see
`venusctl.safety.targets`), where the screen is (app, URL, window), and the model's
stated reason. It returns a verdict; it never asks anyone itself, so the same guard serves
the terminal, the TUI and unattended batches alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from venusctl.core.actions import OBSERVING, Action, CallUser, Point, Sequence, is_terminal, walk
from venusctl.drivers.base import Element, ScreenContext

FOCUS = "focus"
POINTER = "pointer"


class Decision(str, Enum):
    ALLOW = "allow"
    CONFIRM = "confirm"
    DENY = "deny"


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    reason: str = ""
    category: str | None = None
    rule: str | None = None
    target: str | None = None
    """The thing the verdict is about, in words (`button 'Delete' (drop target)`)."""

    def as_dict(self) -> dict[str, str]:
        out = {"decision": self.decision.value, "reason": self.reason}
        if self.category:
            out["category"] = self.category
        if self.rule:
            out["rule"] = self.rule
        if self.target:
            out["target"] = self.target
        return out


@dataclass(frozen=True)
class Target:
    """What the driver found where an action lands.

    `where` is a pixel point of the placed action, `FOCUS` (the element keys and
    typed text go to) or `POINTER` (under the pointer, for desktop actions that
    carry no point).
    """

    where: Point | str
    element: Element | None

    def as_dict(self) -> dict[str, Any]:
        where = list(self.where) if isinstance(self.where, tuple) else self.where
        return {"where": where, "element": self.element.as_dict() if self.element else None}


@dataclass(frozen=True)
class GuardRequest:
    """Everything a guard may look at for one action."""

    step: int
    action: Action
    placed: Action
    element: Element | None = None
    context: ScreenContext = field(default_factory=ScreenContext)
    thought: str = ""
    targets: tuple[Target, ...] = ()
    """Every point and the focus, described; empty: `element` stands for all of them."""

    def element_at(self, where: Point | str) -> Element | None:
        """The element described at a point (or the focus, or the pointer)."""
        if not self.targets:
            return self.element
        for target in self.targets:
            if target.where == where:
                return target.element
        return None

    def described(self, where: Point | str) -> bool:
        """Whether the driver was asked about this point (False: nothing is known)."""
        return not self.targets or any(t.where == where for t in self.targets)


class Guard(Protocol):
    def check(self, request: GuardRequest) -> Verdict:
        """Decide what happens to the action."""
        ...


def changes_state(action: Action) -> bool:
    """True when an action (or any child of a Sequence) may change something."""
    return any(
        not isinstance(a, OBSERVING) and not is_terminal(a) and not isinstance(a, Sequence)
        for a in walk(action)
    )


class ConfirmAllGuard:
    """Confirm every state-changing action: the cautious default before policies."""

    def check(self, request: GuardRequest) -> Verdict:
        if isinstance(request.action, CallUser):
            return Verdict(Decision.ALLOW, "a question for the user")
        if changes_state(request.action):
            return Verdict(Decision.CONFIRM, "every state-changing action is confirmed",
                           category="state-change")
        return Verdict(Decision.ALLOW, "changes nothing")


class AllowAllGuard:
    """Allow everything: `--confirm never --yes`, for trusted unattended runs."""

    def check(self, request: GuardRequest) -> Verdict:
        return Verdict(Decision.ALLOW, "confirmation turned off (--confirm never)")
