"""The labelled safety corpus (tests/corpus/safety/*.yaml) as guard requests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from venusctl.actions import Surface, parse_action
from venusctl.drivers.base import ScreenContext
from venusctl.safety.guard import GuardRequest
from venusctl.safety.recheck import element_from

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "safety"


@dataclass(frozen=True)
class Case:
    source: str
    id: str
    consequential: bool
    category: str | None
    request: GuardRequest

    @property
    def name(self) -> str:
        return f"{self.source}:{self.id}"


def _case(source: str, surface: Surface, raw: dict[str, Any], consequential: bool) -> Case:
    action = parse_action(raw["action"], surface)
    context = ScreenContext(**(raw.get("context") or {}))
    element = element_from(raw.get("element"))
    request = GuardRequest(1, action, action, element, context, raw.get("thought") or "")
    return Case(source, raw["id"], consequential, raw.get("category"), request)


def load_cases() -> list[Case]:
    cases = []
    for path in sorted(CORPUS.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        surface = Surface(data["surface"])
        for key, consequential in (("consequential", True), ("benign", False)):
            cases.extend(_case(path.stem, surface, raw, consequential)
                         for raw in data.get(key) or [])
    return cases
