"""The loop: observe, ask, parse, place, guard, act, record, one step at a time.

Each phase is a plain call on plain values. Cross-cutting concerns (the run
record, the JSON event stream, the progress line, the TUI) are `RunObserver`s the
CLI hands in; dry-run wraps the driver. None of them is a branch in this loop.
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
    Aborted,
    ActionFailed,
    ExitCode,
    NeedsUser,
    ParseError,
    PolicyDenied,
    VenusError,
)
from venusctl.core.grid import to_pixels
from venusctl.drivers.base import Driver, Screen
from venusctl.interface.messages import Turn, build
from venusctl.interface.profile import InterfaceProfile, authors_profile
from venusctl.model.base import Completion, ImagePart, Model, SamplingOptions, sampling_for
from venusctl.records.store import Outcome, RunInfo, StepRecord
from venusctl.safety.confirm import Confirmer, ConfirmRequest, Reply
from venusctl.safety.crop import save_crop
from venusctl.safety.guard import Decision, Guard, GuardRequest, Verdict
from venusctl.safety.ocr import TextReader, needs_reading, read_nameless
from venusctl.safety.targets import describe_targets, first_element

log = logging.getLogger(__name__)

LOOP_GRID = 25  # clicks within the same 25x25 cell of the 0..999 grid count as identical


_EPISODE = authors_profile("mobile")
"""Step limit and loop guard are the same on every surface (see the profile table)."""


@dataclass
class AgentSettings:
    """How one run goes. Unset (None) interface settings come from the surface's
    interface profile (`venusctl.interface.profile`): `interface` is the resolved profile (the
    authors' one for the driver's surface when not given), `history_images`,
    `temperature` and `max_tokens` override single values of it."""

    max_steps: int = _EPISODE.max_steps
    timeout_s: float | None = None
    parse_retries: int = 2
    history_images: int | None = None
    settle_cap_s: float = 3.0
    loop_limit: int = _EPISODE.loop_limit
    temperature: float | None = None
    max_tokens: int | None = None
    interface: InterfaceProfile | None = None
    approved_categories: set[str] = field(default_factory=set)

    def profile(self, surface: str) -> InterfaceProfile:
        """The interface profile this run speaks on `surface`."""
        return self.interface or authors_profile(surface)

    def sampling(self, surface: str) -> SamplingOptions:
        """The profile's decoding settings with this run's overrides."""
        return sampling_for(self.profile(surface), self.temperature, self.max_tokens)


class RunObserver:
    """Hooks called by the loop; override the ones you need."""

    def run_started(self, info: RunInfo) -> None: ...

    def step_started(self, step: int) -> None: ...

    def phase(self, step: int, name: str) -> None:
        """A phase of the step begins: observe, model, parse, place, describe, ocr,
        guard, confirm, act or settle."""

    def model_text(self, step: int, text: str) -> None: ...

    def step_finished(self, record: StepRecord) -> None: ...

    def run_finished(self, outcome: Outcome) -> None: ...


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


@dataclass
class _StepEnd:
    """What one step leaves for the next: history, feedback, or a final outcome."""

    turn: Turn | None = None
    feedback: str | None = None
    outcome: Outcome | None = None
    loop_key: Any = None


class Agent:
    """Runs one task on one driver with one model until it ends."""

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
    ) -> None:
        self.driver = driver
        self.reader = reader
        self.gate = gate or StepGate()
        self.model = model
        self.guard = guard
        self.confirmer = confirmer
        self.system_prompt = system_prompt
        self.info = info
        self.settings = settings or AgentSettings()
        self.observers = list(observers or [])
        self.steps_taken = 0
        self.profile = self.settings.profile(driver.surface.value)
        self.sampling = self.settings.sampling(driver.surface.value)

    # ------------------------------------------------------------------ the run
    def run(self) -> Outcome:
        self._emit("run_started", self.info)
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
            self._emit("run_finished", outcome)
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
        self._emit("step_started", step)
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
        self._emit("step_finished", record)

    def _run_step(
        self, step: int, feedback: str | None, history: list[Turn], record: StepRecord
    ) -> _StepEnd:
        clock = _Clock(record.timings, lambda name: self._emit("phase", step, name))
        with clock("observe"):
            screen = self.driver.screenshot()
        record.screen = screen
        record.screen_size = (screen.size.width, screen.size.height)
        record.context = screen.context.as_dict()
        feedback = "\n".join(t for t in (feedback, screen.notice) if t) or None
        record.feedback = feedback
        image = ImagePart(screen.data, screen.mime)

        parsed, completion = self._ask(step, feedback, history, image, record, clock)
        action = parsed.action
        note = action.content if isinstance(action, TakeNote) else None
        turn = Turn(normalize_answer(completion.text, completion.reasoning), image, feedback, note)
        with clock("place"):
            placed = to_pixels(action, screen.size, self.driver.surface)
        record.action = render(action, self.driver.surface)
        record.action_kind = type(action).__name__
        record.placed = render(placed, self.driver.surface)
        record.grid = [list(p) for p in points_of(action)]
        record.pixels = [list(p) for p in points_of(placed)]

        if is_terminal(action):
            record.verdict = {"decision": "allow", "reason": "ends the run or asks the user"}
            return self._terminal_end(action, turn, record)
        return self._guard_and_act(step, parsed, placed, screen, turn, record, clock)

    def _terminal_end(self, action: Action, turn: Turn, record: StepRecord) -> _StepEnd:
        """`Finished`/`Answer` end the run; `CallUser` asks the person (alone or as the
        last child of a Sequence)."""
        if isinstance(action, CallUser):
            return self._call_user(action, turn, record)
        status = "finished" if isinstance(action, Finished) else "answered"
        content = action.content if isinstance(action, (Finished, Answer)) else ""
        return _StepEnd(outcome=Outcome(status, ExitCode.FINISHED, content))

    def _ask(
        self,
        step: int,
        feedback: str | None,
        history: list[Turn],
        image: ImagePart,
        record: StepRecord,
        clock: _Clock,
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
                    on_text=lambda text: self._emit("model_text", step, text),
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

    def _call_user(self, action: CallUser, turn: Turn, record: StepRecord) -> _StepEnd:
        try:
            reply = self.confirmer.ask_user(action.content)
        except NeedsUser:
            record.verdict = {"decision": "needs_user", "reason": "no terminal to ask"}
            return _StepEnd(outcome=Outcome("needs_user", ExitCode.NEEDS_USER, action.content))
        record.reply = reply
        return _StepEnd(turn=turn, feedback=f"The user replied: {reply}")

    def _guard_and_act(
        self,
        step: int,
        parsed: Parsed,
        placed: Action,
        screen: Screen,
        turn: Turn,
        record: StepRecord,
        clock: _Clock,
    ) -> _StepEnd:
        request = self._describe(step, parsed, placed, screen, record, clock)
        with clock("guard"):
            verdict = self._approved(self.guard.check(request))
        record.verdict = verdict.as_dict()

        if verdict.decision is Decision.DENY:
            raise PolicyDenied(
                f"step {step}: {describe(parsed.action)} is denied by the policy: {verdict.reason}"
            )
        if verdict.decision is Decision.CONFIRM:
            with clock("confirm"):
                try:
                    reply = self.confirmer.confirm(self._confirm_request(request, verdict, screen))
                except NeedsUser:
                    record.reply = "unanswered"  # the pending action stays in the record
                    raise
            record.reply = reply.value
            declined = self._handle_reply(reply, step, parsed.action, verdict)
            if declined is not None:
                return _StepEnd(turn=turn, feedback=declined)

        if not self.gate.may_act(step):
            record.error = "not performed: the user took over the surface"
            return _StepEnd(turn=turn, feedback=(
                f"The user took over before {describe(parsed.action)} ran, so it was not "
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
        return _StepEnd(turn=turn, feedback=next_feedback, loop_key=_loop_key(parsed.action))

    def _describe(
        self, step: int, parsed: Parsed, placed: Action, screen: Screen, record: StepRecord,
        clock: _Clock,
    ) -> GuardRequest:
        """Ask the driver about every point the action touches and the focus, and read
        the targets it cannot name (OCR): the guard judges each of them."""
        with clock("describe"):
            targets = describe_targets(self.driver, placed)
        if self.reader is not None and any(needs_reading(t.element) for t in targets
                                           if isinstance(t.where, tuple)):
            with clock("ocr"):
                targets = read_nameless(self.reader, targets, screen)
        element = first_element(targets)
        record.element = element.as_dict() if element else None
        record.targets = [t.as_dict() for t in targets]
        return GuardRequest(step, parsed.action, placed, element, screen.context,
                            parsed.thought, targets)

    def _approved(self, verdict: Verdict) -> Verdict:
        """A category the user approved for this run no longer needs confirming."""
        if (
            verdict.decision is Decision.CONFIRM
            and verdict.category
            and verdict.category in self.settings.approved_categories
        ):
            return Verdict(Decision.ALLOW, f"{verdict.category} approved for this run",
                           verdict.category, verdict.rule)
        return verdict

    def _confirm_request(
        self, request: GuardRequest, verdict: Verdict, screen: Screen
    ) -> ConfirmRequest:
        where = request.context.url or request.context.app or request.context.title
        crop = save_crop(screen, request.placed, request.element, self.info.run_dir, request.step)
        return ConfirmRequest(
            step=request.step,
            action=describe(request.action),
            target=verdict.target or (request.element.summary() if request.element else None),
            where=where,
            reason=verdict.reason,
            thought=request.thought,
            category=verdict.category,
            crop_path=str(crop) if crop else None,
        )

    def _handle_reply(
        self, reply: Reply, step: int, action: Action, verdict: Verdict
    ) -> str | None:
        """Act on the person's answer; return feedback when the action must not run."""
        if reply is Reply.ABORT:
            raise Aborted(f"aborted by the user at step {step}")
        if reply is Reply.NO:
            return (
                f"The user declined the action {describe(action)}. "
                "Do not repeat it; find another way or ask with CallUser."
            )
        if reply is Reply.TAKEOVER:
            self.confirmer.take_over()
            return "The user took over and has handed control back; look at the new screenshot."
        if reply is Reply.ALWAYS and verdict.category:
            self.settings.approved_categories.add(verdict.category)
        return None

    def _emit(self, hook: str, *args: Any) -> None:
        for observer in self.observers:
            getattr(observer, hook)(*args)


class _Clock:
    """Adds the wall time of each phase to a step's timings (phases may repeat)."""

    def __init__(self, timings: dict[str, float], on_phase: Any = None) -> None:
        self.timings = timings
        self._on_phase = on_phase
        self._phase = ""
        self._start = 0.0

    def __call__(self, phase: str) -> _Clock:
        self._phase = phase
        return self

    def __enter__(self) -> None:
        if self._on_phase is not None:
            self._on_phase(self._phase)
        self._start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        spent = time.perf_counter() - self._start
        self.timings[self._phase] = round(self.timings.get(self._phase, 0.0) + spent, 6)


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
