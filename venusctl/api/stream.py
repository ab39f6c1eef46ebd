"""A run as an iterator of events, in the caller's own thread.

The loop (`venusctl.loop.agent.Agent`) calls observer hooks; a program wants to pull
events with a `for` loop. The loop therefore runs in a greenlet of the caller's
thread: each hook switches back to the caller with an event, and the next
iteration switches into the loop again. Nothing runs concurrently, so the
program's confirmer, its Playwright objects and Ctrl-C behave as in a plain call.
Leaving the loop early (break, an exception) stops the run: the loop is told it
was interrupted, the record is closed and the surface released.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterator

import greenlet

from venusctl.api.events import (
    ConfirmationAnswered,
    ConfirmationAsked,
    ModelText,
    PhaseStarted,
    QuestionAnswered,
    QuestionAsked,
    RunEnded,
    RunEvent,
    RunStarted,
    StepFinished,
    StepStarted,
)
from venusctl.core.errors import NeedsUser
from venusctl.loop.events import RunObserver
from venusctl.records.store import Outcome, RunInfo, StepRecord
from venusctl.safety.confirm import Confirmer, ConfirmRequest, Reply

log = logging.getLogger(__name__)

Body = Callable[[RunObserver, Confirmer], Outcome]


class Run:
    """A run in progress: iterate it for events; `outcome` once it has ended.

    `start` opens what the run needs in the caller's greenlet (usage errors and an
    unreachable surface are raised from the first `next()`); `body` is the loop.
    """

    def __init__(self, start: Callable[[], Body], confirmer: Confirmer) -> None:
        self._start = start
        self._confirmer = confirmer
        self._worker: greenlet.greenlet | None = None
        self._consumer: greenlet.greenlet | None = None
        self._closing = False
        self._ended = False
        self._pending: deque[RunEvent] = deque()
        self.info: RunInfo | None = None
        self.outcome: Outcome | None = None

    # ------------------------------------------------------------- iterating
    def __iter__(self) -> Iterator[RunEvent]:
        try:
            while True:
                event = self._next()
                if event is None:
                    return
                yield event
        finally:
            self.close()

    def wait(self) -> Outcome:
        """Run to the end, ignoring the events; return how it ended."""
        for _event in self:
            pass
        if self.outcome is None:  # pragma: no cover - the loop always ends with one
            raise RuntimeError("the run ended without an outcome")
        return self.outcome

    @property
    def run_id(self) -> str | None:
        return self.info.run_id if self.info else None

    def _next(self) -> RunEvent | None:
        if self._pending:
            return self._pending.popleft()
        if self._ended:
            return None
        if self._worker is None:
            body = self._start()
            self._worker = greenlet.greenlet(lambda: body(_Pump(self), _Observed(self)))
        self._consumer = greenlet.getcurrent()
        self._worker.parent = self._consumer
        value = self._worker.switch()
        if self._worker.dead:
            self._ended = True
            self.outcome = value
            self._pending.append(RunEnded(value))
            return self._pending.popleft()
        return value

    # --------------------------------------------------------------- stopping
    def close(self) -> None:
        """Stop a run that has not ended: it ends as interrupted, its record closed."""
        worker = self._worker
        if self._ended or worker is None or worker.dead:
            self._ended = True
            return
        self._closing = True
        try:
            worker.parent = greenlet.getcurrent()
            outcome = worker.throw(KeyboardInterrupt)
        except greenlet.error as exc:  # collected in another thread: nothing to switch to
            log.debug("could not stop the run: %s", exc)
            return
        finally:
            self._ended = True
        if isinstance(outcome, Outcome):
            self.outcome = outcome

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------ from the worker
    def _emit(self, event: RunEvent) -> None:
        """Hand `event` to the consumer. Only the loop's own greenlet may switch: an
        event raised in another one (the browser's event handlers ask about held
        requests in Playwright's greenlet) waits and goes out, in order, with the
        loop's next event or the end of the run."""
        if self._closing or self._consumer is None:
            return
        self._pending.append(event)
        if greenlet.getcurrent() is self._worker:
            self._consumer.switch(self._pending.popleft())


class _Pump(RunObserver):
    """Turns the loop's hooks into events handed to the consumer."""

    def __init__(self, run: Run) -> None:
        self._run = run

    def run_started(self, info: RunInfo) -> None:
        self._run.info = info
        self._run._emit(RunStarted(info))

    def step_started(self, step: int) -> None:
        self._run._emit(StepStarted(step))

    def phase(self, step: int, name: str) -> None:
        self._run._emit(PhaseStarted(step, name))

    def model_text(self, step: int, text: str) -> None:
        self._run._emit(ModelText(step, text))

    def step_finished(self, record: StepRecord) -> None:
        self._run._emit(StepFinished(record))

    def run_finished(self, outcome: Outcome) -> None:
        """`RunEnded` comes once the surface is released, not from inside the loop."""


class _Observed:
    """The program's confirmer, with an event before and after each question."""

    def __init__(self, run: Run) -> None:
        self._run = run
        self._inner = run._confirmer

    @property
    def interactive(self) -> bool:
        return bool(getattr(self._inner, "interactive", False))

    def confirm(self, request: ConfirmRequest) -> Reply:
        self._run._emit(ConfirmationAsked(request))
        try:
            reply = self._inner.confirm(request)
        except NeedsUser:
            self._run._emit(ConfirmationAnswered(request, None))
            raise
        self._run._emit(ConfirmationAnswered(request, reply))
        return reply

    def ask_user(self, question: str) -> str:
        self._run._emit(QuestionAsked(question))
        try:
            reply = self._inner.ask_user(question)
        except NeedsUser:
            self._run._emit(QuestionAnswered(question, None))
            raise
        self._run._emit(QuestionAnswered(question, reply))
        return reply

    def take_over(self) -> None:
        self._inner.take_over()
