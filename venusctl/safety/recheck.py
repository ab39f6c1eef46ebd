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

_ELEMENT_FIELDS = {f.name for f in fields(Element)}
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


def element_from(data: dict[str, Any] | None) -> Element | None:
    """An `Element` back from its recorded form."""
    if not data or not isinstance(data, dict):
        return None
    values = {k: v for k, v in data.items() if k in _ELEMENT_FIELDS}
    bounds = values.get("bounds")
    values["bounds"] = tuple(bounds) if isinstance(bounds, list) and len(bounds) == 4 else None
    if not isinstance(values.get("extra", {}), dict):
        values["extra"] = {}
    return Element(**values)


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
            found.append(Target(where, element_from(item.get("element"))))
    return tuple(found)


def recheck(run: StoredRun, policy: Policy) -> list[Rechecked]:
    """The policy's verdict for every recorded step that chose an action."""
    try:
        surface = Surface(run.info.get("surface", ""))
    except ValueError:
        raise UsageError(f"run {run.run_id} does not say which surface it ran on") from None
    guard = PolicyGuard(policy)
    results = []
    for step in run.steps():
        text = step.get("action")
        if not text:
            continue
        try:
            action = parse_action(text, surface)
            placed = parse_action(step["placed"], surface) if step.get("placed") else action
        except ParseError:
            continue
        context = ScreenContext(**{k: v for k, v in (step.get("context") or {}).items()
                                   if k in _CONTEXT_FIELDS})
        request = GuardRequest(int(step.get("step", 0)), action, placed,
                               element_from(step.get("element")), context,
                               step.get("thought") or "", targets_from(step.get("targets")))
        results.append(Rechecked(request.step, text, step.get("verdict"), guard.check(request)))
    return results
