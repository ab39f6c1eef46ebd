"""The guard seam: allow, confirm or deny one action before it runs.

The guard sees the action (grid and pixel form), the element the driver found
under its point, where the screen is (app, URL, window), and the model's stated
reason. It returns a verdict; it never asks anyone itself, so the same guard serves
the terminal, the TUI and unattended batches alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from venusctl.actions import OBSERVING, Action, CallUser, Sequence, is_terminal, walk
from venusctl.drivers.base import Element, ScreenContext


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

    def as_dict(self) -> dict[str, str]:
        out = {"decision": self.decision.value, "reason": self.reason}
        if self.category:
            out["category"] = self.category
        if self.rule:
            out["rule"] = self.rule
        return out


@dataclass(frozen=True)
class GuardRequest:
    """Everything a guard may look at for one action."""

    step: int
    action: Action
    placed: Action
    element: Element | None = None
    context: ScreenContext = field(default_factory=ScreenContext)
    thought: str = ""


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


def target_element(driver: Any, pixels: list[tuple[int, int]]) -> Element | None:
    """What an action is aimed at: the element under its first point, else (for Type,
    PressEnter and keys) the focused one when the driver can tell (`focused_element`)."""
    if pixels:
        return driver.describe(*pixels[0])
    focused = getattr(driver, "focused_element", None)
    return focused() if callable(focused) else None
