"""Every command of the real command line, read from the typer app itself (not from the
docs hook that renders it), for tests that compare help, docs and the app."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import typer.main

from venusctl.cli import app


def cli_commands(*, root: bool = False) -> Iterator[tuple[list[str], Any]]:
    """Each visible command and group with the words that reach it (`["eval", "suite"]`);
    `root` also yields `venusctl` itself, as `[]`."""

    def walk(command: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
        if path or root:
            yield path, command
        for name, sub in getattr(command, "commands", {}).items():
            if not sub.hidden:
                yield from walk(sub, [*path, name])

    yield from walk(typer.main.get_command(app), [])
