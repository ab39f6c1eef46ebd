"""`runs list` and `runs show`: the run records as something to query."""

from __future__ import annotations

import json
import time
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from venusctl.cli.common import RunsDirOpt, runs_dir
from venusctl.record import list_runs, resolve_run

runs_app = typer.Typer(help="List and inspect recorded runs.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(runs_app, name="runs")


@runs_app.command("list")
def list_command(
    runs: RunsDirOpt = None,
    limit: Annotated[int, typer.Option(min=1, help="Show the newest N runs.")] = 20,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per run.")] = False,
) -> int:
    """List recorded runs, newest last.

    Example: venusctl runs list --limit 5
    """
    stored = list_runs(runs_dir(runs))[-limit:]
    if json_out:
        for run in stored:
            print(json.dumps({"run_id": run.run_id, "path": str(run.path), **_summary(run.info)},
                             ensure_ascii=False))
        return 0
    table = Table("run", "started", "driver", "task", "steps", "outcome", box=None)
    for run in stored:
        info = _summary(run.info)
        table.add_row(run.run_id, info["started"], info["driver"], info["task"][:40],
                      str(info["steps"]), info["status"])
    Console().print(table)
    return 0


@runs_app.command("show")
def show_command(
    run: Annotated[str, typer.Argument(help="Run id, id prefix, folder, or 'last'.")],
    runs: RunsDirOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="run.json and steps as JSON.")] = False,
) -> int:
    """Show one run: task, outcome and every step.

    Example: venusctl runs show last
    """
    stored = resolve_run(run, runs_dir(runs))
    steps = stored.steps()
    if json_out:
        print(json.dumps({"run": stored.info, "steps": steps}, ensure_ascii=False, indent=2))
        return 0
    console = Console(highlight=False)
    info = _summary(stored.info)
    console.print(f"run     {stored.run_id}\nfolder  {stored.path}\ntask    {info['task']}")
    console.print(f"driver  {info['driver']}   model {stored.info.get('model')}")
    outcome = stored.outcome
    console.print(f"outcome {outcome.get('status')} (exit {outcome.get('exit_code', '-')}) "
                  f"{outcome.get('message', '')}")
    for step in steps:
        verdict = (step.get("verdict") or {}).get("decision", "")
        line = f"  {step['step']:>3}  {step.get('action') or '-'}  {verdict}"
        if step.get("reply"):
            line += f" → {step['reply']}"
        if step.get("error"):
            line += f"  error: {step['error']}"
        console.print(line, markup=False)
        if step.get("thought"):
            console.print(f"       {' '.join(step['thought'].split())[:160]}", markup=False)
    return 0


def _summary(info: dict) -> dict:
    outcome = info.get("outcome") or {}
    started = info.get("started_at")
    return {
        "task": str(info.get("task", "")),
        "driver": str(info.get("driver", "")),
        "started": time.strftime("%Y-%m-%d %H:%M", time.localtime(started)) if started else "",
        "steps": outcome.get("steps", "-"),
        "status": str(outcome.get("status", "?")),
    }
