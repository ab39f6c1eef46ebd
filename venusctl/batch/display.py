"""What a person sees while a batch runs, and the table at its end.

On a terminal: a live progress display (an overall bar, and one line per running
task with its slot and step n/max) with a line printed as each task ends. Piped:
only the plain per-task lines, so logs stay readable. Everything goes to stderr;
stdout stays free for `--json`.
"""

from __future__ import annotations

import threading

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from venusctl.batch.results import Summary, TaskResult
from venusctl.batch.taskfile import TaskSpec
from venusctl.loop.events import RunObserver
from venusctl.records.store import StepRecord
from venusctl.safety.sanitize import markup as escape  # batch results quote models and pages


class BatchDisplay:
    """Progress of a whole batch, safe to call from every worker thread."""

    def __init__(self, console: Console | None = None, live: bool | None = None) -> None:
        self.console = console or Console(stderr=True, highlight=False, soft_wrap=True)
        self.live = self.console.is_terminal if live is None else live
        self._lock = threading.Lock()
        self._progress: Progress | None = None
        self._overall: TaskID | None = None
        self._rows: dict[str, TaskID] = {}
        self._done = 0
        self._total = 0

    def begin(self, total: int, resumed: int) -> None:
        self._total = total
        self._done = resumed
        if resumed:
            self.console.print(f"resuming: {resumed} task(s) already passed, "
                               f"{total - resumed} to run")
        if not self.live:
            return
        self._progress = Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
            MofNCompleteColumn(), TimeElapsedColumn(), console=self.console, transient=True)
        self._progress.start()
        self._overall = self._progress.add_task("[bold]batch[/]", total=total,
                                                completed=resumed)

    def task_started(self, spec: TaskSpec, slot: str, attempt: int) -> None:
        if self._progress is None:
            return
        again = f" (try {attempt})" if attempt > 1 else ""
        with self._lock:
            old = self._rows.pop(spec.id, None)
            if old is not None:
                self._progress.remove_task(old)
            self._rows[spec.id] = self._progress.add_task(
                f"{escape(spec.id)} on {escape(slot)}{again}", total=spec.max_steps)

    def task_step(self, task_id: str, step: int, action: str | None) -> None:
        if self._progress is None:
            return
        with self._lock:
            row = self._rows.get(task_id)
        if row is not None:
            self._progress.update(row, completed=step, refresh=True)

    def task_finished(self, result: TaskResult) -> None:
        with self._lock:
            self._done += 1
            row = self._rows.pop(result.id, None)
            done = self._done
        if self._progress is not None:
            if row is not None:
                self._progress.remove_task(row)
            if self._overall is not None:
                self._progress.update(self._overall, completed=done)
        self.console.print(result_line(result, done, self._total))

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def observers(self, spec: TaskSpec) -> list[RunObserver]:
        return [_StepReporter(self, spec.id)]


class _StepReporter(RunObserver):
    def __init__(self, display: BatchDisplay, task_id: str) -> None:
        self.display = display
        self.task_id = task_id

    def step_finished(self, record: StepRecord) -> None:
        self.display.task_step(self.task_id, record.step, record.action)


def result_line(result: TaskResult, done: int, total: int) -> str:
    mark = "[green]PASS[/]" if result.passed else (
        "[yellow]SKIP[/]" if result.status == "skipped" else "[red]FAIL[/]")
    tries = f", {len(result.attempts)} tries" if len(result.attempts) > 1 else ""
    replayed = f" ({result.replayed} replayed)" if result.replayed else ""
    failed = [c for c in result.checks if not c.get("passed")]
    why = ""
    if not result.passed:
        if failed:
            why = f" — check {failed[0]['kind']} failed: {failed[0].get('detail', '')}"
        elif result.error:
            why = f" — {result.error}"
    where = f"  {result.run_dir}" if result.run_dir else ""
    return (f"[{done}/{total}] {mark} {escape(result.id)} ({escape(result.status)}, "
            f"exit {result.exit_code}, {result.steps} steps{replayed}, "
            f"{result.seconds:.1f}s{tries})"
            f"{escape(why[:240])}[dim]{escape(where)}[/]")


def summary_table(results: list[TaskResult], summary: Summary, title: str = "batch") -> Table:
    """One row per task, and the totals in the caption."""
    table = Table(title=title, title_justify="left")
    for name, justify in (("task", "left"), ("result", "left"), ("status", "left"),
                          ("exit", "right"), ("steps", "right"), ("time", "right"),
                          ("tries", "right"), ("checks", "left")):
        table.add_column(name, justify=justify,  # type: ignore[arg-type]
                         no_wrap=name != "checks", overflow="fold")
    for result in results:
        checks = _checks_cell(result)
        verdict = "[green]passed[/]" if result.passed else (
            "[yellow]skipped[/]" if result.status == "skipped" else "[red]failed[/]")
        if result.resumed:
            verdict += "*"
        table.add_row(escape(result.id), verdict, escape(result.status), str(result.exit_code),
                      str(result.steps), f"{result.seconds:.1f}s",
                      str(max(len(result.attempts), 1)), checks)
    table.caption = (f"{summary.passed}/{summary.total} passed ({summary.rate:.0%}), "
                     f"{summary.failed} failed, {summary.skipped} skipped, "
                     f"{summary.steps} steps in {summary.seconds:.1f}s"
                     + (f"; * {summary.resumed} passed before (--resume)"
                        if summary.resumed else ""))
    return table


def _checks_cell(result: TaskResult) -> str:
    """`2/2`, or `1/2 ✗ url_matches` naming the checks that failed."""
    if not result.checks:
        return "-"
    failed = [str(c.get("kind")) for c in result.checks if not c.get("passed")]
    passed = len(result.checks) - len(failed)
    cell = f"{passed}/{len(result.checks)}"
    return escape(cell + (" ✗ " + ", ".join(failed) if failed else ""))
