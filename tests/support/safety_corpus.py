"""The labelled safety corpus (tests/corpus/safety/*.yaml) as guard requests.

A case gives the action (model syntax, grid coordinates, used unplaced) and what
the driver described:

  element:   the element at the first point, or the focus (older cases: it stands
             for every point when nothing else is given)
  elements:  one element per distinct point of the action, in order
  focus:     the focused element (keys and typed text)
  pointer:   the element under the pointer (desktop actions without a point)
  before:    earlier steps the guard sees first (each with action/element/...),
             whose verdicts are not asserted: a MouseDown before a MouseUp
  policy:    keys laid over the default policy for this case (deny_domains, ...)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from venusctl.core.actions import Surface, parse_action
from venusctl.drivers.base import Element, ScreenContext
from venusctl.safety.guard import FOCUS, POINTER, GuardRequest, Target
from venusctl.safety.policy import Policy, build_policy, load_policy, merge
from venusctl.safety.targets import leaves, points_in_order

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "safety"
_DEFAULT_RAW = yaml.safe_load(
    (Path(__file__).resolve().parents[2] / "policies" / "default.yaml").read_text("utf-8"))


@dataclass(frozen=True)
class Case:
    source: str
    id: str
    consequential: bool
    category: str | None
    request: GuardRequest
    before: tuple[GuardRequest, ...] = ()
    policy: dict[str, Any] = field(default_factory=dict)
    surface: Surface = Surface.BROWSER

    @property
    def name(self) -> str:
        return f"{self.source}:{self.id}"

    def policy_for(self, default: Policy) -> Policy:
        if not self.policy:
            return default
        return build_policy(merge(_DEFAULT_RAW, self.policy), f"corpus case {self.name}")


def request_of(surface: Surface, raw: dict[str, Any]) -> GuardRequest:
    action = parse_action(raw["action"], surface)
    context = ScreenContext(**(raw.get("context") or {}))
    element = Element.from_dict(raw.get("element"))
    return GuardRequest(1, action, action, element, context, raw.get("thought") or "",
                        _targets(action, raw))


def _targets(action: Any, raw: dict[str, Any]) -> tuple[Target, ...]:
    """Per-point elements when the case gives any, else none (`element` stands for all)."""
    if not any(k in raw for k in ("elements", "focus", "pointer")):
        return ()
    points = list(dict.fromkeys(p for leaf in leaves(action) for p in points_in_order(leaf)))
    elements = raw.get("elements") or ([raw["element"]] if raw.get("element") else [])
    found = [Target(p, Element.from_dict(e)) for p, e in zip(points, elements, strict=False)]
    found.append(Target(FOCUS, Element.from_dict(raw.get("focus"))))
    found.append(Target(POINTER, Element.from_dict(raw.get("pointer"))))
    return tuple(found)


def _case(source: str, surface: Surface, raw: dict[str, Any], consequential: bool) -> Case:
    context = raw.get("context") or {}
    before = tuple(request_of(surface, {"context": context, **step})
                   for step in raw.get("before") or [])
    return Case(source, raw["id"], consequential, raw.get("category"),
                request_of(surface, raw), before, raw.get("policy") or {}, surface)


def load_cases() -> list[Case]:
    cases = []
    for path in sorted(CORPUS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        surface = Surface(data["surface"])
        for key, consequential in (("consequential", True), ("benign", False)):
            cases.extend(_case(path.stem, surface, raw, consequential)
                         for raw in data.get(key) or [])
    return cases


def default_policy() -> Policy:
    return load_policy("default")
