"""`runs list` and `runs show`: the run records as something to query."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from venusctl.cli.common import RunsDirOpt, runs_dir
from venusctl.records.store import StoredRun, list_runs, resolve_run
from venusctl.safety.sanitize import json_text, markup, shown_line

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
            print(json_text({"run_id": run.run_id, "path": str(run.path), **_summary(run.info)}))
        return 0
    table = Table("run", "started", "driver", "task", "steps", "outcome", box=None)
    for run in stored:
        info = _summary(run.info)
        table.add_row(*(markup(shown_line(v, 40)) for v in (
            run.run_id, info["started"], info["driver"], info["task"], str(info["steps"]),
            info["status"])))
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
        print(json_text({"run": stored.info, "steps": steps}, indent=2))
        return 0
    for line in show_lines(stored, steps):
        print(line)
    return 0


def show_lines(stored: StoredRun, steps: list[dict]) -> list[str]:
    """`runs show` as plain lines; everything from the record is sanitized (a record is
    untrusted: it holds a model's and a page's words, and may have been edited)."""
    info = _summary(stored.info)
    outcome = stored.outcome
    lines = [f"run     {shown_line(stored.run_id)}", f"folder  {shown_line(stored.path)}",
             f"task    {shown_line(info['task'])}",
             f"driver  {shown_line(info['driver'])}   model {shown_line(stored.info.get('model'))}",
             f"outcome {shown_line(outcome.get('status'))} "
             f"(exit {shown_line(outcome.get('exit_code', '-'))}) "
             f"{shown_line(outcome.get('message', ''))}"]
    for step in steps:
        verdict = (step.get("verdict") or {}).get("decision", "")
        line = (f"  {shown_line(step.get('step', '?')):>3}  "
                f"{shown_line(step.get('action') or '-')}  {shown_line(verdict)}")
        if step.get("reply"):
            line += f" → {shown_line(step['reply'])}"
        if step.get("error"):
            line += f"  error: {shown_line(step['error'])}"
        lines.append(line)
        if step.get("thought"):
            lines.append(f"       {shown_line(step['thought'], 160)}")
    return lines


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
