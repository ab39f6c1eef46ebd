"""Re-evaluating a recorded run against a policy: what would it have gated?

Each recorded step keeps the action (grid and pixels), the element the driver
described, the screen's context and the model's thought, which is all a guard
reads. Feeding them, in order, to a fresh `PolicyGuard` gives the verdicts that
policy would have reached, so a new or edited policy can be tried on real runs
before it guards one.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from venusctl.core.actions import Surface, parse_action
from venusctl.core.errors import ParseError, UsageError
from venusctl.drivers.base import Element, ScreenContext
from venusctl.records.store import StoredRun
from venusctl.safety.guard import Decision, GuardRequest, Target, Verdict
from venusctl.safety.policy import Policy
from venusctl.safety.policy_guard import PolicyGuard

_CONTEXT_FIELDS = {f.name for f in fields(ScreenContext)}


@dataclass(frozen=True)
class Rechecked:
    """One step's recorded verdict next to the one the policy gives now."""

    step: int
    action: str
    recorded: dict[str, Any] | None
    verdict: Verdict

    @property
    def gated(self) -> bool:
        return self.verdict.decision is not Decision.ALLOW

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "action": self.action, "recorded": self.recorded,
                "verdict": self.verdict.as_dict()}


def targets_from(data: Any) -> tuple[Target, ...]:
    """The recorded targets of a step (every point and the focus), back as `Target`s."""
    if not isinstance(data, list):
        return ()
    found = []
    for item in data:
        if not isinstance(item, dict):
            continue
        where = item.get("where")
        if isinstance(where, list) and len(where) == 2:
            where = (int(where[0]), int(where[1]))
        if isinstance(where, (tuple, str)):
            found.append(Target(where, Element.from_dict(item.get("element"))))
    return tuple(found)


def recheck(run: StoredRun, policy: Policy) -> list[Rechecked]:
    """The policy's verdict for every recorded step that chose an action."""
    try:
        surface = Surface(run.record.surface or "")
    except ValueError:
        raise UsageError(f"run {run.run_id} does not say which surface it ran on") from None
    guard = PolicyGuard(policy)
    results = []
    for step in run.steps():
        text = step.action
        if not text:
            continue
        try:
            action = parse_action(text, surface)
            placed = parse_action(step.placed, surface) if step.placed else action
        except ParseError:
            continue
        context = ScreenContext(**{k: v for k, v in step.context.items()
                                   if k in _CONTEXT_FIELDS})
        request = GuardRequest(step.step, action, placed, Element.from_dict(step.element), context,
                               step.thought, targets_from(step.targets))
        results.append(Rechecked(request.step, text, step.verdict, guard.check(request)))
    return results
