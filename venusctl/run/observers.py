"""Run observers: the record on disk, the JSON event stream, the progress line, and
the two that put a run's safety between the loop and the others (secret values
scrubbed, the request gate told the step).

Each one watches the loop through `RunObserver` hooks and does one job, so `do`,
`replay`, `batch` and the TUI combine them instead of branching inside the loop.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from rich.console import Console
from rich.status import Status

from venusctl.loop.events import Observers, RunObserver
from venusctl.records.store import Outcome, Recorder, RunInfo, StepRecord
from venusctl.safety.redact import Redactor, scrub_step
from venusctl.safety.requests import RequestGate
from venusctl.safety.sanitize import json_text, markup, shown_line

STATUS_REFRESH_S = 0.2


class RecordObserver(RunObserver):
    """Keeps the run folder: run.json at the start and end, each step as it ends."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def run_started(self, info: RunInfo) -> None:
        self.recorder.start(info)

    def step_finished(self, record: StepRecord) -> None:
        self.recorder.step(record)

    def run_finished(self, outcome: Outcome) -> None:
        self.recorder.finish(outcome)


class RedactingObservers(Observers):
    """Passes every hook on to `observers` with secret values scrubbed first.

    Only the hooks that carry text are overridden; every other hook (one added to
    `RunObserver` later too) reaches the observers as `Observers` passes it.
    """

    def __init__(self, redactor: Redactor, observers: list[RunObserver]) -> None:
        super().__init__(observers)
        self.redactor = redactor

    def model_text(self, step: int, text: str) -> None:
        super().model_text(step, self.redactor.scrub(text))

    def step_finished(self, record: StepRecord) -> None:
        scrub_step(self.redactor, record)
        super().step_finished(record)

    def run_finished(self, outcome: Outcome) -> None:
        # in place: the same outcome is returned to the CLI, which prints its message
        outcome.message = self.redactor.scrub(outcome.message)
        super().run_finished(outcome)


class RequestSteps(RunObserver):
    """Tells a run's request gate (the browser's held requests) which step it is in,
    and lets it add the requests it judged to that step's record."""

    def __init__(self, gate: RequestGate) -> None:
        self.gate = gate

    def step_started(self, step: int) -> None:
        self.gate.step_started(step)

    def step_finished(self, record: StepRecord) -> None:
        self.gate.step_finished(record)


class JsonEvents(RunObserver):
    """One JSON object per line on stdout, for scripts (`--json`)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def _write(self, event: dict[str, Any]) -> None:
        self.stream.write(json_text(event) + "\n")
        self.stream.flush()

    def run_started(self, info: RunInfo) -> None:
        self._write({
            "event": "start", "run_id": info.run_id, "run_dir": str(info.run_dir),
            "task": info.task, "surface": info.surface, "driver": info.driver,
            "model": info.model,
        })

    def step_finished(self, record: StepRecord) -> None:
        data = record.as_dict()
        self._write({"event": "step", **data})

    def run_finished(self, outcome: Outcome) -> None:
        self._write({"event": "end", **outcome.as_dict()})


class ConsoleProgress(RunObserver):
    """One line per step on stderr, and a spinner while the model thinks.

    The spinner (with a count of the characters decoded so far) appears only on a
    terminal; piped stderr gets the plain step lines, so logs stay clean.
    """

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True, highlight=False, soft_wrap=True)
        self._status: Status | None = None
        self._max_steps: int | None = None
        self._decoded = 0
        self._shown_at = 0.0

    def run_started(self, info: RunInfo) -> None:
        self._max_steps = info.settings.get("max_steps")
        interface = info.settings.get("interface")
        why = info.settings.get("interface_reason")
        said = f"interface {interface} ({why}) · " if interface and why else ""
        self.console.print(
            f"[bold]venusctl[/] {markup(info.driver)} · {markup(info.model)} · "
            f"{markup(said)}record {markup(info.run_dir)}")

    def phase(self, step: int, name: str) -> None:
        if name == "model" and self.console.is_terminal:
            self._stop()
            self._decoded = 0
            self._status = self.console.status(f"step {self._of(step)}: the model is thinking…")
            self._status.start()
        elif name != "model":
            self._stop()

    def model_text(self, step: int, text: str) -> None:
        self._decoded += len(text)
        now = time.monotonic()
        if self._status is not None and now - self._shown_at >= STATUS_REFRESH_S:
            self._shown_at = now
            self._status.update(
                f"step {self._of(step)}: the model is thinking… {self._decoded} characters")

    def _stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def _of(self, step: int) -> str:
        return f"{step}/{self._max_steps}" if self._max_steps else str(step)

    def step_finished(self, record: StepRecord) -> None:
        self._stop()
        self.console.print(step_line(record, self._of(record.step)))

    def run_finished(self, outcome: Outcome) -> None:
        self._stop()
        colour = "green" if outcome.exit_code == 0 else "red"
        self.console.print(
            f"[{colour}]{outcome.status}[/] after {outcome.steps} step(s)"
            + (f": {markup(shown_line(outcome.message))}" if outcome.message else "")
        )


def step_line(record: StepRecord, number: str) -> str:
    """`step 3/30  Click(point=(…))  textbox 'Name'  confirm → yes  1.23s (model 0.90s …)`."""
    parts = [f"[bold]step {number}[/]", _escape(record.action or "(no action)")]
    target = (record.element or {}).get("name") or (record.element or {}).get("text")
    if target:
        parts.append(f"[cyan]{_escape(shown_line(target, 40))}[/]")
    verdict = (record.verdict or {}).get("decision")
    if verdict and verdict != "allow":
        parts.append(f"[yellow]{_escape(verdict)}[/]")
    if record.reply:
        parts.append(f"→ {_escape(record.reply)}")
    if record.error:
        parts.append(f"[red]{_escape(record.error)}[/]")
    if record.source == "replayed":
        parts.append("[green]replayed[/]")
    total = sum(record.timings.values())
    phases = " ".join(f"{k} {v:.2f}s" for k, v in record.timings.items() if v >= 0.01)
    if total:
        parts.append(f"[dim]{total:.2f}s" + (f" ({phases})" if phases else "") + "[/]")
    return "  ".join(parts)


def _escape(text: str) -> str:
    """Model, page or record text as Rich prints it literally, on one line."""
    return markup(shown_line(text))
