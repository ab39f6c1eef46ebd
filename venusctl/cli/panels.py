"""Help that shows options in their panels (Surface, Model, Run budget, ...), as plain text.

Typer draws `rich_help_panel` only in its rich help, which also reads square brackets in
help texts as markup and draws boxes scripts cannot grep; venusctl keeps click's plain
help (`rich_markup_mode=None`) and draws each panel as a section of its own. Every
command and group of the CLI is made through `Typer` below, so none is left flat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

if TYPE_CHECKING:  # typer carries its own copy of click
    from typer._click import Command, Context, HelpFormatter

SURFACE = "Surface"
MODEL = "Model"
BUDGET = "Run budget"
SAFETY = "Safety"
OUTPUT = "Output"
"""The panels of the commands that run a task, in the order `do --help` shows them."""
OPTIONS = "Options"
"""The section of options that name no panel (`--help` among them); drawn last."""


def option_panels(command: Command, ctx: Context) -> dict[str, list[TyperOption]]:
    """The command's options that show in help, by panel, panels in the order their first
    option is declared (the doc generator reads the same grouping)."""
    panels: dict[str, list[TyperOption]] = {}
    for param in command.get_params(ctx):
        if isinstance(param, TyperOption) and not param.hidden:
            panel = param.rich_help_panel or OPTIONS
            panels.setdefault(panel, []).append(param)
    if OPTIONS in panels:
        panels[OPTIONS] = panels.pop(OPTIONS)
    return panels


def _format_params(command: Command, ctx: Context, formatter: HelpFormatter) -> None:
    arguments = [record for param in command.get_params(ctx)
                 if isinstance(param, TyperArgument)
                 and (record := param.get_help_record(ctx)) is not None]
    if arguments:
        with formatter.section("Arguments"):
            formatter.write_dl(arguments)
    for panel, options in option_panels(command, ctx).items():
        records = [r for option in options if (r := option.get_help_record(ctx)) is not None]
        if records:
            with formatter.section(panel):
                formatter.write_dl(records)


class PanelledCommand(TyperCommand):
    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        _format_params(self, ctx, formatter)


class PanelledGroup(TyperGroup):
    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        _format_params(self, ctx, formatter)
        self.format_commands(ctx, formatter)


class Typer(typer.Typer):
    """`typer.Typer` whose groups and commands draw their option panels in plain help."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(cls=PanelledGroup, rich_markup_mode=None, **settings)

    def command(self, name: str | None = None, *, cls: type[TyperCommand] | None = None,
                **settings: Any) -> Any:
        return super().command(name, cls=cls or PanelledCommand, **settings)
