"""`venusctl doctor`: check this machine and say how to fix what is missing."""

from __future__ import annotations

import json
from typing import Annotated, Optional

import typer


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)


def doctor(
    driver: Annotated[
        Optional[str],  # noqa: UP045 - typer reads the annotation at runtime on 3.10
        typer.Option("--driver", "-d", help="Check only this surface's needs (web, desktop "
                                            "or android) besides the model and system."),
    ] = None,
    load: Annotated[
        bool, typer.Option("--load", help="Also load the model into llama.cpp (slow).")
    ] = False,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
) -> int:
    """Check adb, display, browser, model files, llama.cpp, keyring and memory.

    Exit 0 when nothing failed (warnings pass), 1 otherwise.

    Example: venusctl doctor --driver web
    """
    from venusctl.core.errors import UsageError
    from venusctl.doctor.machine import AREAS, all_pass, run_checks

    if driver is not None and driver not in AREAS:
        raise UsageError(f"unknown driver '{driver}'; choose one of: {', '.join(AREAS)}")
    checks = run_checks(driver, load)
    ok = all_pass(checks)
    if json_out:
        print(json.dumps({"ok": ok, "checks": [c.as_dict() for c in checks]},
                         ensure_ascii=False, indent=2))
    else:
        _print(checks, ok)
    return 0 if ok else 1


def _print(checks: list, ok: bool) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False)
    marks = {"ok": "[green]✓[/]", "warn": "[yellow]![/]", "fail": "[red]✗[/]"}
    width = max(len(c.name) for c in checks)
    for check in checks:
        console.print(f"{marks[check.status.value]} {escape(check.name.ljust(width))}  "
                      f"{escape(check.detail)}")
        if check.fix and check.status.value != "ok":
            console.print(f"  {' ' * width}  [dim]fix:[/] {escape(check.fix)}")
    failed = sum(c.status.value == "fail" for c in checks)
    console.print("[green]all checks passed[/]" if ok else f"[red]{failed} check(s) failed[/]")
