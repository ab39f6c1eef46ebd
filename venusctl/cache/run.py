"""One run's use of the trajectory cache: replay while it can, store when it succeeded.

`CacheRun` is built from the run's cache options, wraps the driver and the model
(`hooks.py`), collects the steps through an observer and, asked to `commit` once the
run is known to have succeeded (finished or answered; in a batch, its checks
passed too), writes the trajectory. Any problem with the cache itself (an entry
damaged, edited, of another schema or not the user's; a folder that cannot be read
or written) is one warning line, and the run goes on without the cache: an entry
is checked whole before its first step is replayed, never executed half-way.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from venusctl.cache.entry import CachedStep, Trajectory, element_label
from venusctl.cache.fingerprint import Prints, prints, warm_up
from venusctl.cache.hooks import REPLAYED, CachedModel, ScreenWatch, TrajectoryObserver
from venusctl.cache.key import TrajectoryKey
from venusctl.cache.options import CacheMode, CacheOptions
from venusctl.cache.replayer import Replayer
from venusctl.cache.store import CacheUnusable, TrajectoryStore
from venusctl.core.actions import Surface, normalize_answer
from venusctl.core.text import one_line
from venusctl.drivers.base import Driver, Screen
from venusctl.loop.events import RunObserver
from venusctl.model.base import Message, Model
from venusctl.records.store import Outcome, RunInfo, StepRecord

Warn = Callable[[str], None]
SUCCESS = ("finished", "answered")
SCRUBBED = "[secret:"  # what the redactor leaves where a secret value was


def warn_line(text: str) -> None:
    """One line on stderr: the cache is a convenience, so its problems only warn."""
    sys.stderr.write(f"venusctl: warning: {one_line(text, 400)}\n")
    sys.stderr.flush()


class CacheRun:
    """The trajectory cache as one run uses it."""

    def __init__(self, options: CacheOptions, task: str, surface: Surface | str,
                 warn: Warn = warn_line) -> None:
        self.options = options
        self.task = task
        self.surface = Surface(surface)
        self.store = TrajectoryStore(options.where())
        self.warn = warn
        self.unusable = False
        self.watch: ScreenWatch | None = None
        self.replayer: Replayer | None = None
        self.info: RunInfo | None = None
        self.prompts: dict[int, str] = {}
        self.step = 1  # the loop's current step, told by the observer
        self.collected: list[CachedStep] = []
        self.incomplete = False
        self._loaded = False
        self._prints: dict[str, Prints] = {}
        warm_up()

    @classmethod
    def start(cls, options: CacheOptions, task: str, surface: Surface | str,
              dry_run: bool = False, warn: Warn = warn_line) -> CacheRun | None:
        """None when the cache is off; a dry run may replay but never stores."""
        if dry_run:
            options = CacheOptions(options.mode.narrowed(CacheMode.READ), options.folder,
                                   options.max_distance)
        return cls(options, task, surface, warn) if options.active else None

    @property
    def reads(self) -> bool:
        return self.options.mode.reads and not self.unusable

    @property
    def writes(self) -> bool:
        return self.options.mode.writes and not self.unusable

    # -------------------------------------------------------------- the hooks
    def watch_driver(self, driver: Driver) -> Driver:
        self.watch = ScreenWatch(driver)
        return self.watch

    def answering(self, model: Model) -> Model:
        return CachedModel(model, self)

    def observer(self) -> RunObserver:
        return TrajectoryObserver(self)

    @property
    def key(self) -> TrajectoryKey | None:
        first = self.watch.first if self.watch is not None else None
        return TrajectoryKey.of(self.task, self.surface.value, first) if first else None

    # ------------------------------------------------------------------ replay
    def recorded_answer(self, step: int, messages: list[Message]) -> str | None:
        """The recorded answer for this step while the run follows the entry, else None."""
        self.prompts.setdefault(step, messages[-1].text if messages else "")
        replayer = self._replayer() if self.reads else None
        if replayer is None or self.watch is None:
            return None
        return replayer.answer(step, messages, self.watch.last, self.watch)

    def _replayer(self) -> Replayer | None:
        if not self._loaded:
            self._loaded = True
            key = self.key
            try:
                entry = self.store.load(key) if key is not None else None
            except CacheUnusable as exc:
                self._give_up(str(exc))
                return None
            if entry is not None:
                self.replayer = Replayer(entry, self.surface, self.options.max_distance,
                                         self.prints_of)
        return self.replayer

    def _give_up(self, message: str) -> None:
        self.unusable = True
        self.warn(f"{message}; running without the trajectory cache")

    def prints_of(self, screen: Screen) -> Prints:
        """Each screen is hashed once, for the replay decision and the entry alike."""
        if screen.digest not in self._prints:
            self._prints = {screen.digest: prints(screen.data)}  # only the latest is asked
        return self._prints[screen.digest]

    # ----------------------------------------------------------------- record
    def started(self, info: RunInfo) -> None:
        self.info = info

    def step_finished(self, record: StepRecord) -> None:
        if not self.writes or self.incomplete:
            return
        step = self._cached_step(record)
        if step is None:
            self.incomplete = True  # a step that cannot be stored spoils the whole entry
        else:
            self.collected.append(step)

    def _cached_step(self, record: StepRecord) -> CachedStep | None:
        prompt = self.prompts.get(record.step)
        if (record.screen is None or record.action is None or record.action_kind is None
                or prompt is None or record.step != len(self.collected) + 1):
            return None
        answer = normalize_answer(record.raw, record.thought or None)
        if SCRUBBED in answer or SCRUBBED in prompt:
            return None  # a secret value was scrubbed: this is not what the model saw
        seen = self.prints_of(record.screen)
        return CachedStep(
            step=record.step, prompt=prompt, answer=answer, action=record.action,
            action_kind=record.action_kind, fingerprint=seen.perceptual,
            pixels=seen.pixels, element=element_label(record.element),
            verdict=_strings(record.verdict), context=_strings(record.context) or {},
            source=record.source)

    def commit(self, outcome: Outcome) -> Path | None:
        """Store the run's trajectory if it succeeded and says something new."""
        key = self.key
        if key is None or not self._worth_storing(outcome):
            return None
        info = self.info
        trajectory = Trajectory(key, self.task, tuple(self.collected),
                                info.run_id if info else "", info.model if info else "",
                                time.time())
        try:
            return self.store.save(trajectory)
        except CacheUnusable as exc:
            self.warn(f"{exc}; the run itself is not affected")
            return None

    def _worth_storing(self, outcome: Outcome) -> bool:
        succeeded = outcome.status in SUCCESS and int(outcome.exit_code) == 0
        complete = (not self.incomplete and bool(self.collected)
                    and len(self.collected) == outcome.steps)
        return self.writes and succeeded and complete and not self._unchanged()

    def _unchanged(self) -> bool:
        """Every step came from the entry, which therefore already says it all."""
        replayer = self.replayer
        return (replayer is not None and len(self.collected) == len(replayer.entry.steps)
                and all(step.source == REPLAYED for step in self.collected))


def _strings(value: dict[str, Any] | None) -> dict[str, str] | None:
    if not value:
        return None
    kept = {str(k): v for k, v in value.items() if isinstance(v, str)}
    return kept or None
