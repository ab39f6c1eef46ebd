"""`runs list` and `runs show`: the run records as something to query."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from venusctl.cli.common import RunsDirOpt, runs_dir
from venusctl.cli.panels import Typer
from venusctl.records.store import StepRecord, StoredRun, list_runs, resolve_run
from venusctl.safety.sanitize import json_text, markup, shown_line

runs_app = Typer(help="List and inspect recorded runs.", no_args_is_help=True)


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
            print(json_text({"run_id": run.run_id, "path": str(run.path), **_summary(run)}))
        return 0
    table = Table("run", "started", "driver", "task", "steps", "outcome", box=None)
    for run in stored:
        info = _summary(run)
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
        print(json_text({"run": stored.record.as_json(), "steps": [s.as_dict() for s in steps]},
                        indent=2))
        return 0
    for line in show_lines(stored, steps):
        print(line)
    return 0


def show_lines(stored: StoredRun, steps: list[StepRecord]) -> list[str]:
    """`runs show` as plain lines; everything from the record is sanitized (a record is
    untrusted: it holds a model's and a page's words, and may have been edited)."""
    record, outcome = stored.record, stored.outcome
    code = "-" if outcome.exit_code is None else outcome.exit_code
    lines = [f"run     {shown_line(stored.run_id)}", f"folder  {shown_line(stored.path)}",
             f"task    {shown_line(record.task)}",
             f"driver  {shown_line(record.driver)}   model {shown_line(record.model)}",
             f"outcome {shown_line(outcome.status)} (exit {shown_line(code)}) "
             f"{shown_line(outcome.message)}"]
    for step in steps:
        verdict = (step.verdict or {}).get("decision", "")
        line = (f"  {shown_line(step.step):>3}  "
                f"{shown_line(step.action or '-')}  {shown_line(verdict)}")
        if step.reply:
            line += f" → {shown_line(step.reply)}"
        if step.error:
            line += f"  error: {shown_line(step.error)}"
        lines.append(line)
        if step.thought:
            lines.append(f"       {shown_line(step.thought, 160)}")
    return lines


def _summary(run: StoredRun) -> dict[str, Any]:
    started, outcome = run.record.started_at, run.outcome
    return {
        "task": run.record.task,
        "driver": run.record.driver,
        "started": time.strftime("%Y-%m-%d %H:%M", time.localtime(started)) if started else "",
        "steps": "-" if outcome.steps is None else outcome.steps,
        "status": outcome.status,
    }
