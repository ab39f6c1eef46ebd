"""The progress line: one line per step, a spinner only on a terminal."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from venusctl.core.errors import ExitCode
from venusctl.records.store import Outcome, RunInfo, StepRecord
from venusctl.run.observers import ConsoleProgress

INFO = RunInfo("r1", "task", "browser", "web", "scripted", Path("/tmp/r1"),
               settings={"max_steps": 30})
RECORD = StepRecord(step=3, started_at=0.0, action="Click(point=(1, 2))",
                    element={"name": "Pay [now]"}, verdict={"decision": "confirm"},
                    reply="yes", timings={"model": 0.9, "act": 0.02, "parse": 0.001})


def progress(terminal: bool) -> tuple[ConsoleProgress, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, force_terminal=terminal, width=200, highlight=False,
                      color_system=None)
    return ConsoleProgress(console), out


def test_one_line_per_step_with_action_target_verdict_and_timing():
    observer, out = progress(terminal=False)
    observer.run_started(INFO)
    observer.phase(3, "model")
    observer.model_text(3, "<think>abc")
    observer.step_finished(RECORD)
    observer.run_finished(Outcome("finished", ExitCode.FINISHED, "ok", steps=3))
    lines = out.getvalue().splitlines()
    assert lines[1] == ("step 3/30  Click(point=(1, 2))  Pay [now]  confirm  → yes  "
                        "0.92s (model 0.90s act 0.02s)")
    assert lines[2] == "finished after 3 step(s): ok"
    assert "thinking" not in out.getvalue()  # no spinner when stderr is not a terminal


def test_spinner_while_the_model_thinks_on_a_terminal():
    observer, out = progress(terminal=True)
    observer.run_started(INFO)
    observer.phase(3, "model")
    assert observer._status is not None
    observer.model_text(3, "x" * 12)
    observer.phase(3, "parse")
    assert observer._status is None
    observer.step_finished(RECORD)
    assert "step 3/30" in out.getvalue()
