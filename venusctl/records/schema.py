"""The run record's versioned shape: what `schema` says and how a record reads back typed.

`schema` is an integer in run.json and in every line of steps.jsonl:
  0  records written before the field existed: the same fields, some of them absent
     (`targets`, `requests`, `source` came later); absent fields read as their defaults
  1  `schema` written; nothing else changed

Only a change that an older reader would misread raises `SCHEMA`; a field added with a
default does not. A record from a newer venusctl is therefore refused with one line
rather than half understood. Records are untrusted input (a model's and a page's words,
perhaps edited by hand), so a value of the wrong type reads as the field's default.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from venusctl.core.errors import UsageError

SCHEMA = 1
"""The version this venusctl writes (and the newest it reads)."""

T = TypeVar("T")


def schema_of(data: Mapping[str, Any], where: str) -> int:
    """The record version `data` declares (0 when it predates the field)."""
    value = data.get("schema", 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(f"{where} is damaged: schema {value!r} is not a version number")
    if value > SCHEMA:
        raise UsageError(f"{where} was written by a newer venusctl (record schema {value}; "
                         f"this one reads up to {SCHEMA}): upgrade venusctl to read it")
    return value


@dataclass(frozen=True)
class RecordedOutcome:
    """How a recorded run ended; a run still going (or killed) says only "running", and
    a record that does not say at all reads as "?"."""

    status: str = "?"
    exit_code: int | None = None
    message: str = ""
    steps: int | None = None
    ended_at: float | None = None


@dataclass(frozen=True)
class RecordedRun:
    """run.json read back: what the run was, its settings and how it ended."""

    run_id: str | None = None
    task: str = ""
    surface: str | None = None
    driver: str = ""
    model: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    started_at: float | None = None
    outcome: RecordedOutcome = field(default_factory=RecordedOutcome)
    schema: int = SCHEMA

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> RecordedRun:
        version = schema_of(data, where)
        outcome = data.get("outcome")
        values = typed_fields(cls, {k: v for k, v in data.items() if k != "outcome"})
        values["outcome"] = typed(RecordedOutcome, outcome if isinstance(outcome, dict) else {})
        return cls(**{**values, "schema": version})

    def as_json(self) -> dict[str, Any]:
        """The run as JSON values (`runs show --json`), in run.json's own layout."""
        data = asdict(self)
        data["outcome"] = {k: v for k, v in data["outcome"].items() if v is not None}
        return data


def typed(cls: type[T], data: Mapping[str, Any]) -> T:
    """An instance of the dataclass `cls` from JSON values (see `typed_fields`)."""
    return cls(**typed_fields(cls, data))


def typed_fields(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """The values of `data` that fit the dataclass `cls`'s fields, by their annotations:
    unknown keys are left out; a value of the wrong type takes the field's default, and
    a required field without a usable value the zero of its type."""
    hints = get_type_hints(cls)
    out: dict[str, Any] = {}
    for item in fields(cls):
        if not item.init:
            continue
        value = _fit(hints[item.name], data[item.name]) if item.name in data else _WRONG
        if value is not _WRONG:
            out[item.name] = value
        elif item.default is MISSING and item.default_factory is MISSING:
            out[item.name] = _zero(hints[item.name])
    return out


_WRONG = object()
_SCALARS: dict[type, tuple[type, ...]] = {str: (str,), int: (int,), float: (int, float),
                                          bool: (bool,)}


def _fit(hint: Any, value: Any) -> Any:
    """`value` as the annotation `hint` wants it, or `_WRONG`."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        if value is None and type(None) in get_args(hint):
            return None
        for option in get_args(hint):
            fitted = _fit(option, value) if option is not type(None) else _WRONG
            if fitted is not _WRONG:
                return fitted
        return _WRONG
    if hint in _SCALARS:
        if isinstance(value, bool) and hint is not bool:
            return _WRONG
        return hint(value) if isinstance(value, _SCALARS[hint]) else _WRONG
    if hint is Any:
        return value
    return _fit_container(origin or hint, get_args(hint), value)


def _fit_container(kind: Any, args: tuple[Any, ...], value: Any) -> Any:
    if kind is dict:
        return dict(value) if isinstance(value, dict) else _WRONG
    if kind is list:
        return list(value) if isinstance(value, list) else _WRONG
    if kind is tuple and isinstance(value, list | tuple) and len(value) == len(args):
        parts = [_fit(arg, part) for arg, part in zip(args, value, strict=True)]
        return _WRONG if _WRONG in parts else tuple(parts)
    return _WRONG


def _zero(hint: Any) -> Any:
    return hint() if hint in (str, int, float) else None
