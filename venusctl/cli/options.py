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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Annotated, Any, NamedTuple, Optional

import typer

from venusctl.core.options import Declared, default_of, settings_of, value_type

Given = dict[str, Any]
"""The settings of one group given on the command line, by name."""


class Flag(NamedTuple):
    """One flag a group gives a command: the setting, its declaration (with the command's
    own words, if any), the type it parses and its default."""

    name: str
    spec: Declared
    kind: type
    default: Any


@dataclass(frozen=True)
class Group:
    """The flags of one settings group, all of them or a part (`only` / `exclude`).

    A flag's default is its field's when the flag could be given that value (`--max-steps`
    shows 30); otherwise None, "not given", and the field's default (or the environment,
    the config file) applies. A command may say a flag in its own words or start it from
    its own default (`told`, `starting`) without declaring it again.
    """

    settings: type  # a pydantic model or a dataclass whose fields are declared
    only: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    helps: tuple[tuple[str, str], ...] = ()
    defaults: tuple[tuple[str, Any], ...] = ()
    panel: str | None = None  # where help shows the flags that name no panel of their own

    def declared(self) -> Iterator[Flag]:
        """Every flag this group gives a command, in declaration order."""
        helps, defaults = dict(self.helps), dict(self.defaults)
        for name, annotation, spec in settings_of(self.settings):
            if spec.flag is None or name in self.exclude:
                continue
            if self.only is not None and name not in self.only:
                continue
            kind = str if spec.read else value_type(annotation)
            default = defaults.get(name, default_of(self.settings, name))
            if name in helps:
                spec = replace(spec, help=helps[name])
            if spec.panel is None:
                spec = replace(spec, panel=self.panel)
            yield Flag(name, spec, kind, default if _fits(default, kind) else None)

    def flag_names(self) -> set[str]:
        """The flags' names as a person types them (`--headless/--headed`: both)."""
        return {name for flag in self.declared() for name in (flag.spec.flag or "").split("/")}

    def parameters(self) -> list[inspect.Parameter]:
        return [_parameter(flag) for flag in self.declared()]

    def given(self, values: dict[str, Any]) -> Given:
        """Take this group's flags out of a command's keyword arguments (text a
        declaration reads, like `--viewport 1280x800`, as its value)."""
        found: Given = {}
        for name, spec, _, _ in self.declared():
            value = values.pop(name)
            if spec.switch_off:
                value = False if value else None
            elif spec.repeat:
                value = tuple(value) if value else None
            elif spec.read is not None and value is not None:
                value = spec.read(value)
            if value is not None:
                found[name] = value
        return found

    def option(self, name: str) -> Any:
        """One flag as a typer annotation, for a command that takes it alone (`-v`)."""
        return next(_parameter(f) for f in self.just(name).declared()).annotation

    def but(self, *names: str) -> Group:
        """The same group without some flags (a command that has its own)."""
        return replace(self, exclude=(*self.exclude, *names))

    def just(self, *names: str) -> Group:
        """Only some of the group's flags (a command that takes a few)."""
        return replace(self, only=names)

    def told(self, **helps: str) -> Group:
        """The same flags, some with this command's own help (`--json` says what it prints)."""
        return replace(self, helps=(*self.helps, *helps.items()))

    def starting(self, **defaults: Any) -> Group:
        """The same flags, some with this command's own default (shown in its help)."""
        return replace(self, defaults=(*self.defaults, *defaults.items()))


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


def _parameter(flag: Flag) -> inspect.Parameter:
    name, spec, kind, default = flag
    names = [spec.flag or "--" + name.replace("_", "-"), *([spec.short] if spec.short else [])]
    extra: dict[str, Any] = {}
    if spec.least is not None:
        extra["min"] = spec.least
    info = typer.Option(*names, help=spec.help, rich_help_panel=spec.panel,
                        metavar=spec.metavar, **extra)
    if spec.switch_off:
        annotation: Any = Annotated[bool, info]
        default = False
    elif spec.repeat:
        annotation, default = Annotated[Optional[list[kind]], info], None  # type: ignore[valid-type]  # noqa: UP045
    elif default is not None:
        annotation = Annotated[kind, info]
    else:
        annotation = Annotated[Optional[kind], info]  # type: ignore[valid-type]  # noqa: UP045
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                             annotation=annotation)


def _fits(default: Any, kind: type) -> bool:
    """Whether the flag could be given this default (an int fits a float flag)."""
    return isinstance(default, kind) or (kind is float and type(default) is int)
