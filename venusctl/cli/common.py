"""The option groups several commands share: driver, run budget and output, each field
declared once (its flag, help, task-file key) on the settings it fills."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Optional

import typer

from venusctl.cli import panels
from venusctl.cli.options import Given, Group
from venusctl.core.options import declare
from venusctl.drivers.factory import DriverOptions
from venusctl.loop.agent import AgentSettings
from venusctl.records.store import default_runs_dir


@dataclass(frozen=True)
class OutputOptions:
    """How a command reports (declared once; a command's `--json` says what it prints)."""

    json: bool = field(default=False, metadata=declare(
        flag="--json", help="JSON-lines events on stdout."))
    quiet: bool = field(default=False, metadata=declare(
        flag="--quiet", short="-q", help="Print only the answer."))
    tui: bool = field(default=False, metadata=declare(
        flag="--tui", help="Watch and steer the run in a live terminal view (p/s/t/q keys)."))
    runs_dir: Path | None = field(default=None, metadata=declare(
        flag="--runs-dir",
        help="Folder of run records (default: the user data dir; env VENUSCTL_RUNS_DIR)."))
    verbose: bool = field(default=False, metadata=declare(
        flag="--verbose", short="-v", help="Show debug logs."))

    @property
    def mode(self) -> str:
        """The run's progress output: json, quiet or normal."""
        return "json" if self.json else ("quiet" if self.quiet else "normal")

    @property
    def runs(self) -> Path:
        return runs_dir(self.runs_dir)


DRIVER = Group(DriverOptions, panel=panels.SURFACE)
"""The driver flags (`--driver`, `--url`, `--viewport`, ...); commands take a part with `just`."""
BUDGET = Group(AgentSettings, panel=panels.BUDGET)
"""A run's budgets and sampling (`--max-steps`, `--timeout`, `--settle-cap`, ...)."""
OUTPUT = Group(OutputOptions, panel=panels.OUTPUT)
"""`--json`, `--quiet`, `--tui`, `--runs-dir`, `-v`: each command takes those it has."""
WEB_POOL = DRIVER.just("headless", "viewport", "browser_path", "image_format")
"""The browser settings every web slot of a batch starts from."""

RunsDirOpt = OUTPUT.option("runs_dir")
VerboseOpt = OUTPUT.option("verbose")
DeviceOpt = DRIVER.option("device")
CacheOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--cache", metavar="on|off|read|write",
                 rich_help_panel=panels.MODEL,
                 help="Trajectory cache: replay a task done before while its screens match "
                      "(on: replay and store, read: only replay, write: only store, off). "
                      "Default: on (env VENUSCTL_CACHE, config [cache] mode)."),
]


def driver_options(given: Given) -> DriverOptions:
    """The driver flags as options; unset viewport and format come from the profile."""
    return DriverOptions(**given)


def output_options(given: Given) -> OutputOptions:
    return OutputOptions(**given)


def runs_dir(value: Path | None) -> Path:
    return value if value is not None else default_runs_dir()


def setup_logging(verbose: bool) -> None:
    """Warnings by default; `-v` shows debug output from venusctl and its libraries."""
    from rich.console import Console
    from rich.logging import RichHandler

    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    from venusctl.safety.sanitize import SanitizingFormatter

    handler = RichHandler(
        console=Console(stderr=True), show_path=False, show_time=verbose, markup=False)
    handler.setFormatter(SanitizingFormatter("%(name)s: %(message)s", tracebacks=verbose))
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(name)s: %(message)s", handlers=[handler])
