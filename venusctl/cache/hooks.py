"""The three places the cache plugs into a run, none of them a branch in the loop.

- `ScreenWatch` wraps the driver and remembers the screens the agent observes (the
  key comes from the first; each replay decision looks at the latest).
- `CachedModel` wraps the model: it answers from the cache when the replayer says
  the run is still on the recorded path, and otherwise asks the model it wraps.
- `TrajectoryObserver` is a run observer that collects each finished step, so a
  successful run can be stored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from venusctl.drivers.base import Driver, Screen
from venusctl.drivers.wrappers import DriverWrapper
from venusctl.loop.events import RunObserver
from venusctl.model.base import Completion, Message, Model, OnText, SamplingOptions
from venusctl.model.wrappers import ModelWrapper
from venusctl.records.store import Outcome, RunInfo, StepRecord

if TYPE_CHECKING:
    from venusctl.cache.run import CacheRun

REPLAYED = "replayed"


class ScreenWatch(DriverWrapper):
    """Passes everything through (what the driver inside declares); keeps the first
    and the latest screenshot."""

    def __init__(self, inner: Driver) -> None:
        super().__init__(inner)
        self.first: Screen | None = None
        self.last: Screen | None = None

    def screenshot(self) -> Screen:
        screen = self.inner.screenshot()
        if self.first is None:
            self.first = screen
        self.last = screen
        return screen


class CachedModel(ModelWrapper):
    """The run's model as the agent sees it: recorded answers first, then the model."""

    def __init__(self, inner: Model, run: CacheRun) -> None:
        super().__init__(inner)
        self.run = run

    def complete(self, messages: list[Message], options: SamplingOptions,
                 on_text: OnText | None = None) -> Completion:
        answer = self.run.recorded_answer(self.run.step, messages)
        if answer is not None:
            if on_text is not None:
                on_text(answer)
            return Completion(text=answer, source=REPLAYED)
        return self.inner.complete(messages, options, on_text)


class TrajectoryObserver(RunObserver):
    """Hands each finished step (secret values already scrubbed) to the cache run."""

    def __init__(self, run: CacheRun) -> None:
        self.run = run

    def run_started(self, info: RunInfo) -> None:
        self.run.started(info)

    def step_started(self, step: int) -> None:
        """The loop's own step number: the conversation cannot tell it, since an
        interface may keep only the last turns (the browser keeps two)."""
        self.run.step = step

    def step_finished(self, record: StepRecord) -> None:
        self.run.step_finished(record)

    def run_finished(self, outcome: Outcome) -> None:
        return None
