"""One cache entry: a successful run's trajectory, and its file format.

The file is JSON with a schema name and a SHA-256 digest of everything else, so a
damaged or hand-edited entry is recognised and ignored whole before its first step
could run. Reading also checks every step with today's action parser: an answer
that no longer parses, or no longer says what the entry claims, spoils the entry.

Per step the entry keeps what the model saw and said (the text of its user message,
its answer exactly as it went into the conversation, the action in grid
coordinates), the screen's fingerprints, the element at the target as the driver
named it (role and name; the visible text where there is no name), the guard's
verdict then and where the screen was. Secrets appear only as the `{{secret:NAME}}`
placeholders the model writes: their values never reach the model or the record.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from venusctl.cache.fingerprint import is_fingerprint
from venusctl.cache.key import TrajectoryKey
from venusctl.core.actions import Answer, Finished, Sequence, Surface, parse, render
from venusctl.core.errors import ParseError

SCHEMA = "venusctl.trajectory/1"
MAX_LABEL = 200
_STEP_TEXTS = ("prompt", "answer", "action", "action_kind", "fingerprint", "pixels", "source")


class EntryError(ValueError):
    """Why an entry cannot be used (one short phrase, for the warning line)."""


@dataclass(frozen=True)
class CachedStep:
    step: int
    prompt: str
    answer: str
    action: str
    action_kind: str
    fingerprint: str
    pixels: str
    element: dict[str, str] | None = None
    verdict: dict[str, str] | None = None
    context: dict[str, str] = field(default_factory=dict)
    source: str = "asked"

    @property
    def reads_the_screen(self) -> bool:
        """An `Answer` reports what the screen says: replayed only from the same pixels."""
        return self.action_kind == Answer.__name__


@dataclass(frozen=True)
class Trajectory:
    key: TrajectoryKey
    task: str
    steps: tuple[CachedStep, ...]
    run_id: str = ""
    model: str = ""
    created_at: float = 0.0

    @property
    def id(self) -> str:
        return self.key.id

    def payload(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "key": self.key.as_dict(), "task": self.task,
                "run_id": self.run_id, "model": self.model, "created_at": self.created_at,
                "steps": [asdict(step) for step in self.steps]}

    def to_json(self) -> str:
        payload = self.payload()
        return json.dumps({**payload, "digest": digest(payload)}, ensure_ascii=False, indent=1)


def element_label(element: dict[str, Any] | None) -> dict[str, str] | None:
    """The part of a described element a replay compares: role and name (or text)."""
    if not element:
        return None
    label: dict[str, str] = {}
    for key in ("role", "name"):
        if isinstance(element.get(key), str) and element[key].strip():
            label[key] = element[key][:MAX_LABEL]
    if "name" not in label and isinstance(element.get("text"), str) and element["text"].strip():
        label["text"] = element["text"][:MAX_LABEL]
    return label or None


def digest(payload: dict[str, Any]) -> str:
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------ reading


def read_entry(text: str) -> Trajectory:
    """A trajectory from a file's text, or `EntryError` saying what is wrong with it."""
    try:
        data = json.loads(text)
    except ValueError:
        raise EntryError("is damaged (not JSON)") from None
    if not isinstance(data, dict):
        raise EntryError("is damaged (not a JSON object)")
    schema = data.get("schema")
    if schema != SCHEMA:
        shown = schema if isinstance(schema, str) else type(schema).__name__
        raise EntryError(f"has schema '{shown[:40]}', this venusctl reads '{SCHEMA}'")
    stored = data.pop("digest", None)
    if stored != digest(data):
        raise EntryError("was edited or damaged (its checksum does not match)")
    try:
        key = TrajectoryKey.from_dict(data.get("key"))
    except ValueError as exc:
        raise EntryError(f"is malformed ({exc})") from None
    steps = tuple(_step(item, number) for number, item in
                  enumerate(_list(data.get("steps")), start=1))
    _check_actions(steps, key.surface)
    return Trajectory(key, _text(data, "task"), steps, _text(data, "run_id"),
                      _text(data, "model"), _number(data.get("created_at")))


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise EntryError("is malformed (no steps)")
    return value


def _step(item: Any, number: int) -> CachedStep:
    if not isinstance(item, dict) or item.get("step") != number:
        raise EntryError(f"is malformed (step {number})")
    texts = {name: item.get(name) for name in _STEP_TEXTS}
    if not all(isinstance(value, str) for value in texts.values()):
        raise EntryError(f"is malformed (step {number} lacks a text field)")
    if not is_fingerprint(texts["fingerprint"]):
        raise EntryError(f"is malformed (step {number}'s fingerprint)")
    element, verdict, context = item.get("element"), item.get("verdict"), item.get("context")
    for name, value in (("element", element), ("verdict", verdict), ("context", context)):
        if value is not None and not _string_map(value):
            raise EntryError(f"is malformed (step {number}'s {name})")
    return CachedStep(step=number, element=element, verdict=verdict, context=context or {},
                      **texts)  # type: ignore[arg-type]


def _string_map(value: Any) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def _check_actions(steps: tuple[CachedStep, ...], surface: str) -> None:
    """Each answer must still parse to the action the entry names; the last ends the run."""
    try:
        kind = Surface(surface)
    except ValueError:
        raise EntryError(f"is malformed (unknown surface '{surface[:20]}')") from None
    action = None
    for step in steps:
        try:
            action = parse(step.answer, kind).action
        except ParseError:
            raise EntryError(f"no longer parses (step {step.step})") from None
        if render(action, kind) != step.action or type(action).__name__ != step.action_kind:
            raise EntryError(f"does not match its own action (step {step.step})")
    if isinstance(action, Sequence) and action.actions:
        action = action.actions[-1]
    if not isinstance(action, (Finished, Answer)):
        raise EntryError("does not end the task (its last step is not Finished or Answer)")


def _text(data: dict[str, Any], name: str) -> str:
    value = data.get(name, "")
    if not isinstance(value, str):
        raise EntryError(f"is malformed ({name})")
    return value


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EntryError("is malformed (created_at)")
    return float(value)
