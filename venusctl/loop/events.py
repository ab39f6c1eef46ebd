"""What the loop tells the world, and where a person may hold it.

`RunObserver` is the one way to watch a run (the record, the JSON stream, the
progress line, the TUI, the API's event iterator, the trajectory cache): typed
hooks with no-op defaults, called directly by the loop through `Observers`, never
looked up by name. `StepGate` lets a person pause the loop between steps or take
the surface. `PhaseClock` times the phases of a step and announces each one.

This module imports no part of venusctl above the records, so anything the loop
runs with can implement these without importing the loop itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Literal

from venusctl.records.store import Outcome, RunInfo, StepRecord

Phase = Literal["observe", "model", "parse", "place", "describe", "ocr", "guard", "confirm",
                "act", "settle"]
"""The phases of one step, in the order they may begin (some repeat or are skipped)."""


class RunObserver:
    """Hooks the loop calls as a run goes; override the ones you need.

    Every hook runs in the loop's own thread and may raise `KeyboardInterrupt` to
    stop the run (the TUI's abort does).
    """

    def run_started(self, info: RunInfo) -> None:
        """The run record exists (its id and folder); nothing has been looked at yet."""

    def step_started(self, step: int) -> None:
        """Step `step` (counted from 1) begins."""

    def phase(self, step: int, name: Phase) -> None:
        """A phase of the step begins: observe, model, parse, place, describe, ocr,
        guard, confirm, act or settle."""

    def model_text(self, step: int, text: str) -> None:
        """A piece of the model's answer, as it is decoded."""

    def step_finished(self, record: StepRecord) -> None:
        """The step as the record keeps it, also when it ended the run by raising."""

    def run_finished(self, outcome: Outcome) -> None:
        """How the run ended; called once, whatever happened."""


class Observers(RunObserver):
    """Many observers as one: each hook is passed to every observer, in order.

    A wrapper that changes what observers get (the redaction of secret values)
    subclasses this and overrides only the hooks it changes, so a hook added to
    `RunObserver` later reaches every observer without a change there.
    """

    def __init__(self, observers: Iterable[RunObserver] = ()) -> None:
        self.observers = list(observers)

    def run_started(self, info: RunInfo) -> None:
        for observer in self.observers:
            observer.run_started(info)

    def step_started(self, step: int) -> None:
        for observer in self.observers:
            observer.step_started(step)

    def phase(self, step: int, name: Phase) -> None:
        for observer in self.observers:
            observer.phase(step, name)

    def model_text(self, step: int, text: str) -> None:
        for observer in self.observers:
            observer.model_text(step, text)

    def step_finished(self, record: StepRecord) -> None:
        for observer in self.observers:
            observer.step_finished(record)

    def run_finished(self, outcome: Outcome) -> None:
        for observer in self.observers:
            observer.run_finished(outcome)


class StepGate:
    """Lets a person hold the loop between steps (pause, single-step, take over).

    Called from the loop's thread; a gate may block as long as it likes and raise
    `KeyboardInterrupt` to abort the run. The default lets everything through.
    """

    def before_step(self, step: int) -> str | None:
        """Wait until `step` may begin; return a note for the model (or None)."""
        return None

    def may_act(self, step: int) -> bool:
        """Whether the decided action may still run (False: the person took the surface)."""
        return True


class PhaseClock:
    """Adds the wall time of each phase to a step's timings (phases may repeat), and
    announces each phase as it begins.

        with clock("model"):
            completion = model.complete(...)
    """

    def __init__(self, timings: dict[str, float],
                 on_phase: Callable[[Phase], None] | None = None) -> None:
        self.timings = timings
        self._on_phase = on_phase
        self._phase: Phase = "observe"
        self._start = 0.0

    def __call__(self, phase: Phase) -> PhaseClock:
        self._phase = phase
        return self

    def __enter__(self) -> None:
        if self._on_phase is not None:
            self._on_phase(self._phase)
        self._start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        spent = time.perf_counter() - self._start
        self.timings[self._phase] = round(self.timings.get(self._phase, 0.0) + spent, 6)
