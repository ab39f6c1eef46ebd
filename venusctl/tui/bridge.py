"""The bridge between the agent's thread and the live view's thread.

The agent loop runs in a worker thread and knows the live view only through its
seams: `RunObserver` (what happened), `Confirmer` (ask a person) and `StepGate`
(may the next step begin). `LiveBridge` implements all three by turning each call
into a plain event handed to `post` (thread-safe on the UI side) and, where a
person must answer, by waiting on a queue. `Control` holds the person's intent
(pause, single-step, take over, abort) behind one lock. Nothing here imports
textual, so the bridge is tested without a terminal.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from venusctl.core import pictures
from venusctl.core.errors import NeedsUser
from venusctl.loop.events import RunObserver, StepGate
from venusctl.records.store import Outcome, RunInfo, StepRecord
from venusctl.safety.confirm import ConfirmRequest, Reply

POLL_S = 0.1
PICTURE_WIDTH = 240  # a terminal shows ~2 pixels per cell: marks drawn at this size stay bold
TAKEOVER_NOTE = "The user took over the screen and has handed it back; look at the new screenshot."


class Control:
    """What the person wants the loop to do; every method is safe from any thread."""

    def __init__(self, start_paused: bool = False) -> None:
        self._cond = threading.Condition()
        self._allowance: int | None = 0 if start_paused else None  # steps left before pausing
        self._taking_over = False
        self._handed_back = False
        self._aborted = False

    @property
    def paused(self) -> bool:
        return self._allowance == 0

    @property
    def taking_over(self) -> bool:
        return self._taking_over

    @property
    def aborted(self) -> bool:
        return self._aborted

    def toggle_pause(self) -> bool:
        """Pause before the next step, or resume free running; returns `paused`."""
        with self._cond:
            self._allowance = None if self._allowance == 0 else 0
            self._cond.notify_all()
            return self._allowance == 0

    def single_step(self) -> None:
        """When paused, let exactly one step run; when running, pause at the next step."""
        with self._cond:
            self._allowance = 1 if self._allowance == 0 else 0
            self._cond.notify_all()

    def take_over(self) -> None:
        """The person uses the surface: no step starts and no action runs until `hand_back`."""
        with self._cond:
            self._taking_over = True
            self._cond.notify_all()

    def hand_back(self) -> bool:
        """End a take-over; returns False when none was in progress."""
        with self._cond:
            if not self._taking_over:
                return False
            self._taking_over = False
            self._handed_back = True
            self._cond.notify_all()
            return True

    def abort(self) -> None:
        with self._cond:
            self._aborted = True
            self._cond.notify_all()

    def check(self) -> None:
        """Raise `KeyboardInterrupt` (exit 130) in the loop's thread once aborted."""
        if self._aborted:
            raise KeyboardInterrupt

    def wait_turn(self) -> str | None:
        """Block until a step may start; return the take-over note once after a hand-back."""
        with self._cond:
            while not self._aborted and (self._taking_over or self._allowance == 0):
                self._cond.wait(POLL_S)
            self.check()
            if self._allowance is not None:
                self._allowance -= 1
            return self._consume_note()

    def wait_handed_back(self) -> None:
        with self._cond:
            while self._taking_over and not self._aborted:
                self._cond.wait(POLL_S)
            self.check()
            self._handed_back = False

    def may_act(self) -> bool:
        """False while (or just after) the person held the surface: the decision is stale."""
        with self._cond:
            self.check()
            if self._taking_over or self._handed_back:
                self._handed_back = False
                return False
            return True

    def _consume_note(self) -> str | None:
        if self._handed_back:
            self._handed_back = False
            return TAKEOVER_NOTE
        return None


# ------------------------------------------------------------------------ events


@dataclass(frozen=True)
class Started:
    info: RunInfo


@dataclass(frozen=True)
class PhaseBegan:
    step: int
    name: str


@dataclass(frozen=True)
class Waiting:
    """The loop is held before `step` (paused or taken over)."""

    step: int


@dataclass(frozen=True)
class ModelText:
    step: int
    text: str


@dataclass(frozen=True)
class StepDone:
    step: dict[str, Any]
    picture: Image.Image | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Ended:
    outcome: Outcome


@dataclass(frozen=True)
class Ask:
    """A person must answer: `kind` is confirm, question or takeover."""

    kind: str
    payload: Any
    answer: queue.Queue[Any] = field(default_factory=queue.Queue, compare=False)


Event = Any
Post = Callable[[Event], object]


class LiveBridge(RunObserver, StepGate):
    """Observer, confirmer and gate for one run shown live; runs in the loop's thread."""

    interactive = True

    def __init__(self, post: Post, control: Control | None = None) -> None:
        self.post = post
        self.control = control or Control()
        self.surface = "browser"

    # -- RunObserver
    def run_started(self, info: RunInfo) -> None:
        self.surface = info.surface
        self.post(Started(info))

    def phase(self, step: int, name: str) -> None:
        self.control.check()
        self.post(PhaseBegan(step, name))

    def model_text(self, step: int, text: str) -> None:
        self.control.check()
        self.post(ModelText(step, text))

    def step_finished(self, record: StepRecord) -> None:
        data = record.as_dict()
        picture = None
        if record.screen is not None:
            small = pictures.fit(record.screen.image, PICTURE_WIDTH,
                                 resample=Image.Resampling.BILINEAR)
            picture = pictures.annotated_step(small, data, self.surface)
        self.post(StepDone(data, picture))

    def run_finished(self, outcome: Outcome) -> None:
        self.post(Ended(outcome))

    # -- StepGate
    def before_step(self, step: int) -> str | None:
        self.control.check()
        if self.control.paused or self.control.taking_over:
            self.post(Waiting(step))
        return self.control.wait_turn()

    def may_act(self, step: int) -> bool:
        return self.control.may_act()

    # -- Confirmer
    def confirm(self, request: ConfirmRequest) -> Reply:
        reply = self._ask("confirm", request)
        return reply if isinstance(reply, Reply) else Reply(reply)

    def ask_user(self, question: str) -> str:
        reply = self._ask("question", question)
        if reply is None or not str(reply).strip():
            raise NeedsUser(f"the agent asks the user: {question}")
        return str(reply).strip()

    def take_over(self) -> None:
        self.control.take_over()
        self.post(Ask("takeover", None))
        self.control.wait_handed_back()

    def _ask(self, kind: str, payload: Any) -> Any:
        """Post the question and wait for the UI's answer, giving up on abort."""
        event = Ask(kind, payload)
        self.post(event)
        while True:
            try:
                return event.answer.get(timeout=POLL_S)
            except queue.Empty:
                self.control.check()
