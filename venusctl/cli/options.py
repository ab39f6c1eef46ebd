"""Declared settings as command-line flags: a group of fields becomes typer parameters.

A command names the groups it takes (`@flags(model_flags=MODEL)`); the decorator
puts one typer option per declared flag where the group's parameter stood, and
calls the command with the values given, by setting name (None left out). Typer
reads `inspect.signature`, so the decorator sets `__signature__`; flag names, help
texts, bounds and panels come from the declarations (`venusctl.core.options`).
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Optional, Union, get_args, get_origin

import typer

from venusctl.core.options import Declared, settings_of

Given = dict[str, Any]
"""The settings of one group given on the command line, by name."""


@dataclass(frozen=True)
class Group:
    """The flags of one settings group, all of them or a part (`only` / `exclude`)."""

    settings: type  # a pydantic model or a dataclass whose fields are declared
    only: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()

    def declared(self) -> Iterator[tuple[str, Declared, type]]:
        """(name, declaration, value type) of every flag this group gives a command."""
        for name, annotation, spec in settings_of(self.settings):
            if spec.flag is None or name in self.exclude:
                continue
            if self.only is not None and name not in self.only:
                continue
            yield name, spec, _value_type(annotation)

    def flag_names(self) -> set[str]:
        return {spec.flag for _, spec, _ in self.declared() if spec.flag}

    def parameters(self) -> list[inspect.Parameter]:
        return [_parameter(name, spec, kind) for name, spec, kind in self.declared()]

    def given(self, values: dict[str, Any]) -> Given:
        """Take this group's flags out of a command's keyword arguments."""
        found: Given = {}
        for name, spec, _ in self.declared():
            value = values.pop(name)
            if spec.switch_off:
                value = False if value else None
            elif spec.repeat:
                value = tuple(value) if value else None
            if value is not None:
                found[name] = value
        return found

    def but(self, *names: str) -> Group:
        """The same group without some flags (a command that has its own)."""
        return Group(self.settings, self.only, (*self.exclude, *names))


def flags(**groups: Group) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the flags of each group in place of the parameter named after it."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(command, eval_str=True)
        parameters: list[inspect.Parameter] = []
        for parameter in signature.parameters.values():
            group = groups.get(parameter.name)
            parameters += group.parameters() if group else [parameter]

        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            for name, group in groups.items():
                kwargs[name] = group.given(kwargs)
            return command(*args, **kwargs)

        run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in parameters}
        del run.__wrapped__  # typer must read the new signature, not the command's
        return run

    return decorate


def _parameter(name: str, spec: Declared, kind: type) -> inspect.Parameter:
    names = [spec.flag or "--" + name.replace("_", "-"), *([spec.short] if spec.short else [])]
    extra: dict[str, Any] = {}
    if spec.least is not None:
        extra["min"] = spec.least
    info = typer.Option(*names, help=spec.help, rich_help_panel=spec.panel,
                        metavar=spec.metavar, **extra)
    if spec.switch_off:
        annotation: Any = Annotated[bool, info]
        default: Any = False
    elif spec.repeat:
        annotation, default = Annotated[Optional[list[kind]], info], None  # type: ignore[valid-type]  # noqa: UP045
    else:
        annotation, default = Annotated[Optional[kind], info], None  # type: ignore[valid-type]  # noqa: UP045
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                             annotation=annotation)


def _value_type(annotation: Any) -> type:
    """The plain type a flag parses (`str`, `int`, `Path`, ...) from a field's annotation."""
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    if get_origin(annotation) in (Union, types.UnionType):
        annotation = next(a for a in get_args(annotation) if a is not type(None))
        return _value_type(annotation)
    if get_origin(annotation) in (tuple, list):
        return _value_type(get_args(annotation)[0])
    return annotation if isinstance(annotation, type) else str

