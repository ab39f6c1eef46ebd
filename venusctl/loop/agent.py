"""The loop: observe, ask, parse, place, gate, act, record, one step at a time.

Each phase is a plain call on plain values. Cross-cutting concerns (the run
record, the JSON event stream, the progress line, the TUI) are `RunObserver`s
(`venusctl.loop.events`) the caller hands in; the guard, its confirmations and
the run's approvals are the `SafetyGate` (`venusctl.loop.gate`) around acting;
dry-run wraps the driver. None of them is a branch in this loop.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from venusctl.core.actions import (
    Action,
    Answer,
    CallUser,
    Finished,
    Parsed,
    Sequence,
    TakeNote,
    describe,
    is_terminal,
    normalize_answer,
    parse,
    points_of,
    render,
)
from venusctl.core.errors import (
    ActionFailed,
    ExitCode,
    ParseError,
    VenusError,
)
from venusctl.core.grid import to_pixels
from venusctl.core.options import declare
from venusctl.drivers.base import Driver, Screen
from venusctl.interface.messages import Turn, build
from venusctl.interface.profile import InterfaceProfile, authors_profile
from venusctl.loop.events import Observers, PhaseClock, RunObserver, StepGate
from venusctl.loop.gate import RunApprovals, SafetyGate
from venusctl.model.base import Completion, ImagePart, Model, SamplingOptions, sampling_for
from venusctl.records.store import Outcome, RunInfo, StepRecord
from venusctl.safety.confirm import Confirmer
from venusctl.safety.guard import Guard
from venusctl.safety.ocr import TextReader

log = logging.getLogger(__name__)

LOOP_GRID = 25  # clicks within the same 25x25 cell of the 0..999 grid count as identical


_EPISODE = authors_profile("mobile")
"""Step limit and loop guard are the same on every surface (see the profile table)."""


@dataclass
class AgentSettings:
    """How one run goes. Unset (None) interface settings come from the surface's
    interface profile (`venusctl.interface.profile`): `interface` is the resolved profile (the
    authors' one for the driver's surface when not given), `history_images`,
    `temperature` and `max_tokens` override single values of it. Settings are often
    reused for the next run, so nothing a run learns (approvals) is kept here.

    The run's budgets are declared once here: `do`'s flags and a task file's keys
    come from these fields (`venusctl.core.options`)."""

    max_steps: int = field(default=_EPISODE.max_steps, metadata=declare(
        flag="--max-steps", least=1, task="max_steps", help="Step budget."))
    timeout_s: float | None = field(default=None, metadata=declare(
        flag="--timeout", least=0, task="timeout", help="Stop after this many seconds."))
    parse_retries: int = field(default=2, metadata=declare(
        flag="--parse-retries", least=0, help="Retries when an answer cannot be parsed."))
    history_images: int | None = field(default=None, metadata=declare(
        flag="--history-images", least=0,
        help="Screenshots of earlier steps to resend (default: the interface's, 2 or 0 with "
             "--interface lean; 0 keeps the prompt growing only at its end)."))
    settle_cap_s: float = field(default=3.0, metadata=declare(
        flag="--settle-cap", least=0, task="settle_cap",
        help="Most seconds to wait for the screen to settle."))
    loop_limit: int = _EPISODE.loop_limit
    temperature: float | None = field(default=None, metadata=declare(
        flag="--temperature", least=0, task="temperature",
        help="Sampling temperature (default: the interface's, 0)."))
    max_tokens: int | None = field(default=None, metadata=declare(
        flag="--max-tokens", least=16, task="max_tokens",
        help="Most tokens per answer (default: the interface's: phone 16384, desktop and "
             "browser 4096)."))
    interface: InterfaceProfile | None = None

    def profile(self, surface: str) -> InterfaceProfile:
        """The interface profile this run speaks on `surface`."""
        return self.interface or authors_profile(surface)

    def sampling(self, surface: str) -> SamplingOptions:
        """The profile's decoding settings with this run's overrides."""
        return sampling_for(self.profile(surface), self.temperature, self.max_tokens)


@dataclass
class _StepEnd:
    """What one step leaves for the next: history, feedback, or a final outcome."""

    turn: Turn | None = None
    feedback: str | None = None
    outcome: Outcome | None = None
    loop_key: Any = None


class Agent:
    """Runs one task on one driver with one model until it ends.

    `guard` and `confirmer` make the run's `SafetyGate`; `approvals` is what this run
    starts out approving (a fresh, empty one when not given): it is the run's own
    and never written back into `settings`.
    """

    def __init__(
        self,
        driver: Driver,
        model: Model,
        guard: Guard,
        confirmer: Confirmer,
        system_prompt: str,
        info: RunInfo,
        settings: AgentSettings | None = None,
        observers: list[RunObserver] | None = None,
        gate: StepGate | None = None,
        reader: TextReader | None = None,
        approvals: RunApprovals | None = None,
    ) -> None:
        self.driver = driver
        self.gate = gate or StepGate()
        self.model = model
        self.safety = SafetyGate(guard, confirmer, driver, info.run_dir, reader, approvals)
        self.system_prompt = system_prompt
        self.info = info
        self.settings = settings or AgentSettings()
        self.observers = Observers(observers or [])
        self.steps_taken = 0
        self.profile = self.settings.profile(driver.surface.value)
        self.sampling = self.settings.sampling(driver.surface.value)

    # ------------------------------------------------------------------ the run
    def run(self) -> Outcome:
        self.observers.run_started(self.info)
        outcome = Outcome("error", ExitCode.FAILED, "the run did not finish")
        try:
            outcome = self._loop()
        except KeyboardInterrupt:
            outcome = self._ended("interrupted", ExitCode.INTERRUPTED, "interrupted by the user")
        except VenusError as exc:
            outcome = self._ended(exc.status, exc.exit_code, str(exc))
        except Exception as exc:  # a bug must still leave a closed record
            log.exception("the agent loop crashed")
            outcome = self._ended("crashed", ExitCode.FAILED, f"{type(exc).__name__}: {exc}")
        finally:
            self.observers.run_finished(outcome)
        return outcome

    def _ended(self, status: str, code: ExitCode, message: str) -> Outcome:
        return Outcome(status, code, message, steps=self.steps_taken)

    def _loop(self) -> Outcome:
        started = time.monotonic()
        history: list[Turn] = []
        feedback: str | None = None
        recent: deque[Any] = deque(maxlen=self.settings.loop_limit)
        for step in range(1, self.settings.max_steps + 1):
            timeout = self.settings.timeout_s
            if timeout is not None and time.monotonic() - started > timeout:
                return self._ended("timeout", ExitCode.FAILED, f"timed out after {timeout:g} s")
            note = self.gate.before_step(step)
            if note:
                feedback = f"{note}\n{feedback}" if feedback else note
            self.steps_taken = step  # counted even when the step ends the run by raising
            end = self._step(step, feedback, history)
            if end.outcome is not None:
                end.outcome.steps = step
                return end.outcome
            if end.turn is not None:
                history.append(end.turn)
            feedback = end.feedback
            if end.loop_key is not None:
                recent.append(end.loop_key)
                if len(recent) == recent.maxlen and len(set(recent)) == 1:
                    return self._ended(
                        "loop", ExitCode.FAILED,
                        f"stopped: the same action {self.settings.loop_limit} times in a row",
                    )
        return self._ended(
            "budget", ExitCode.FAILED, f"no result after {self.settings.max_steps} steps"
        )

    # ----------------------------------------------------------------- one step
    def _step(self, step: int, feedback: str | None, history: list[Turn]) -> _StepEnd:
        """One step, recorded whatever happens (the record phase)."""
        self.observers.step_started(step)
        record = StepRecord(step=step, started_at=time.time())
        try:
            end = self._run_step(step, feedback, history, record)
        except BaseException as exc:
            record.error = str(exc) or type(exc).__name__
            if isinstance(exc, KeyboardInterrupt):
                record.error = "interrupted by the user"
            self._finish_step(record)
            raise
        self._finish_step(record)
        return end

    def _finish_step(self, record: StepRecord) -> None:
        self.observers.step_finished(record)

    def _run_step(
        self, step: int, feedback: str | None, history: list[Turn], record: StepRecord
    ) -> _StepEnd:
        """observe, ask (and parse), place, gate, act."""
        clock = PhaseClock(record.timings, lambda name: self.observers.phase(step, name))
        screen = self._observe(record, clock)
        feedback = "\n".join(t for t in (feedback, screen.notice) if t) or None
        record.feedback = feedback
        image = ImagePart(screen.data, screen.mime)

        parsed, completion = self._ask(step, feedback, history, image, record, clock)
        action = parsed.action
        note = action.content if isinstance(action, TakeNote) else None
        turn = Turn(normalize_answer(completion.text, completion.reasoning), image, feedback, note)
        placed = self._place(action, screen, record, clock)

        passage = self.safety.check(step, parsed, placed, screen, record, clock)
        if not passage.proceed:
            return _StepEnd(turn=turn, feedback=passage.feedback)
        if is_terminal(action):
            return self._terminal_end(action, turn, record)
        return self._act(step, action, placed, turn, record, clock)

    def _observe(self, record: StepRecord, clock: PhaseClock) -> Screen:
        with clock("observe"):
            screen = self.driver.screenshot()
        record.screen = screen
        record.screen_size = (screen.size.width, screen.size.height)
        record.context = screen.context.as_dict()
        return screen

    def _ask(
        self,
        step: int,
        feedback: str | None,
        history: list[Turn],
        image: ImagePart,
        record: StepRecord,
        clock: PhaseClock,
    ) -> tuple[Parsed, Completion]:
        """Ask the model; on a parse error, tell it what was wrong and ask again."""
        retry_note: str | None = None
        for _attempt in range(self.settings.parse_retries + 1):
            lead = "\n".join(t for t in (feedback, retry_note) if t) or None
            messages = build(self.system_prompt, history, image, lead,
                             self.settings.history_images, self.profile)
            with clock("model"):
                completion = self.model.complete(
                    messages, self.sampling,
                    on_text=lambda text: self.observers.model_text(step, text),
                )
            record.raw = completion.text
            record.model = completion.stats()
            record.source = completion.source
            try:
                with clock("parse"):
                    parsed = parse(completion.text, self.driver.surface, completion.reasoning)
            except ParseError as exc:
                record.parse_errors.append(str(exc))
                record.rejected.append(completion.text)
                retry_note = f"Your previous answer could not be used: {exc}"
                continue
            record.thought = parsed.thought
            record.action_text = parsed.action_text
            return parsed, completion
        raise ParseError(
            f"the model gave no usable action in {self.settings.parse_retries + 1} tries: "
            f"{record.parse_errors[-1]}"
        )

    def _place(self, action: Action, screen: Screen, record: StepRecord,
               clock: PhaseClock) -> Action:
        """The action in the driver's pixels; the record keeps both forms."""
        with clock("place"):
            placed = to_pixels(action, screen.size, self.driver.surface)
        record.action = render(action, self.driver.surface)
        record.action_kind = type(action).__name__
        record.placed = render(placed, self.driver.surface)
        record.grid = [list(p) for p in points_of(action)]
        record.pixels = [list(p) for p in points_of(placed)]
        return placed

    def _act(self, step: int, action: Action, placed: Action, turn: Turn, record: StepRecord,
             clock: PhaseClock) -> _StepEnd:
        """Perform the action unless the person took the surface, then let it settle."""
        if not self.gate.may_act(step):
            record.error = "not performed: the user took over the surface"
            return _StepEnd(turn=turn, feedback=(
                f"The user took over before {describe(action)} ran, so it was not "
                "performed. Look at the new screenshot."))
        next_feedback: str | None = None
        ending = _sequence_end(placed)
        try:
            with clock("act"):
                result = self.driver.perform(placed)
            record.result = {"feedback": result.feedback, **result.details} if (
                result.feedback or result.details) else None
            next_feedback = result.feedback
        except ActionFailed as exc:
            record.error = str(exc)
            next_feedback = f"The last action failed: {exc}"
            ending = None
        with clock("settle"):
            self.driver.settle(self.settings.settle_cap_s)
        if ending is not None:  # a Sequence whose last child ends the run or asks
            return self._terminal_end(ending, turn, record)
        return _StepEnd(turn=turn, feedback=next_feedback, loop_key=_loop_key(action))

    def _terminal_end(self, action: Action, turn: Turn, record: StepRecord) -> _StepEnd:
        """`Finished`/`Answer` end the run; `CallUser` asks the person (alone or as the
        last child of a Sequence) and stops for the user when nobody can answer."""
        if isinstance(action, CallUser):
            reply = self.safety.ask_user(action.content, record)
            if reply is None:
                return _StepEnd(outcome=Outcome("needs_user", ExitCode.NEEDS_USER,
                                                action.content))
            return _StepEnd(turn=turn, feedback=f"The user replied: {reply}")
        status = "finished" if isinstance(action, Finished) else "answered"
        content = action.content if isinstance(action, (Finished, Answer)) else ""
        return _StepEnd(outcome=Outcome(status, ExitCode.FINISHED, content))


def _sequence_end(action: Action) -> Action | None:
    """The terminal child (Finished, Answer, CallUser) that closes a Sequence, if any."""
    if isinstance(action, Sequence) and action.actions and is_terminal(action.actions[-1]):
        return action.actions[-1]
    return None


def _loop_key(action: Action) -> Any:
    """Identity of an action for the loop guard; points compared on a coarse grid."""
    values = []
    for value in action.__dict__.values():
        if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
            values.append((value[0] // LOOP_GRID, value[1] // LOOP_GRID))
        else:
            values.append(value)
    return (type(action).__name__, tuple(values))
