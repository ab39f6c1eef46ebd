"""Declaring a setting once: its flag, help text, environment variable, config-file key
and task-file key travel with the pydantic field that holds its value.

The groups themselves live with the code that uses them (`venusctl.model.settings`,
`venusctl.safety.setup`, ...); the command line (`venusctl.cli.options`), the config
file (`venusctl.core.config_file`) and task files read these declarations instead of
keeping lists of their own, so a new setting is one field.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from venusctl.core.errors import UsageError


@dataclass(frozen=True)
class Declared:
    """Where one setting can be given; None: not in that place."""

    flag: str | None = None  # "--n-ctx"; the command line shows it under `panel`
    short: str | None = None  # "-m"
    help: str = ""
    env: str | None = None  # "VENUSCTL_N_CTX"
    file: str | None = None  # "model.n_ctx": [model] n_ctx in the config file
    task: str | None = None  # the key in a task file
    panel: str | None = None
    metavar: str | None = None
    least: int | float | None = None  # the command line's lower bound
    switch_off: bool = False  # a flag like --no-grammar: given means False
    repeat: bool = False  # repeatable flag, a tuple of values
    read: Callable[[str], Any] | None = None  # the flag takes text, read into the value by this

    @property
    def section(self) -> str:
        return (self.file or ".").split(".")[0]

    @property
    def key(self) -> str:
        return (self.file or ".").split(".")[1]


def option(default: Any = None, *, help: str = "", **where: Any) -> Any:
    """A pydantic field that says where its value may come from (see `Declared`)."""
    return Field(default=default, description=help,
                 json_schema_extra={"declared": Declared(help=help, **where)})  # type: ignore[dict-item]


def declare(*, help: str = "", **where: Any) -> dict[str, Declared]:
    """The same for a dataclass field: `field(default=..., metadata=declare(...))`."""
    return {"declared": Declared(help=help, **where)}


def declared(info: FieldInfo) -> Declared:
    extra = info.json_schema_extra
    found = extra.get("declared") if isinstance(extra, dict) else None
    return found if isinstance(found, Declared) else Declared()


def settings_of(group: type) -> Iterator[tuple[str, Any, Declared]]:
    """Every field of a group (a pydantic model or a dataclass) with its type and its
    declaration, in declaration order."""
    if dataclasses.is_dataclass(group):
        hints = typing.get_type_hints(group)
        for item in dataclasses.fields(group):
            yield item.name, hints[item.name], item.metadata.get("declared", Declared())
        return
    for name, info in group.model_fields.items():
        yield name, info.annotation, declared(info)


def default_of(group: type, name: str) -> Any:
    """A field's default value (None where a factory makes it: nothing a flag can show)."""
    if dataclasses.is_dataclass(group):
        default = {f.name: f.default for f in dataclasses.fields(group)}[name]
        return None if default is dataclasses.MISSING else default
    default = group.model_fields[name].default
    return None if default is PydanticUndefined else default


def value_type(annotation: Any) -> type:
    """The plain type one value of a field takes (`str`, `int`, `Path`, ...), from its
    annotation: what a flag parses and a task file must hold."""
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
        return value_type(annotation)
    if typing.get_origin(annotation) in (tuple, list):
        return value_type(typing.get_args(annotation)[0])
    return annotation if isinstance(annotation, type) else str


_ADAPTERS: dict[tuple[type[BaseModel], str], TypeAdapter[Any]] = {}


def check_value(group: type[BaseModel], name: str, value: Any, where: str) -> Any:
    """One value converted by its field's type; a bad one is a one-line usage error
    that says where it came from (`where`: a flag, a variable, a file's key)."""
    adapter = _ADAPTERS.get((group, name))
    if adapter is None:
        info = group.model_fields[name]
        adapter = _ADAPTERS[(group, name)] = TypeAdapter(info.rebuild_annotation())
    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        raise UsageError(f"{where}: {first_problem(exc)}") from None


def first_problem(exc: ValidationError) -> str:
    """The message of a validation error as a person reads it: the validator's own
    words for a ValueError, pydantic's short message otherwise."""
    error = exc.errors(include_url=False)[0]
    cause = (error.get("ctx") or {}).get("error")
    return str(cause) if isinstance(cause, Exception) else str(error["msg"])
