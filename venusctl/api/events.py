"""What a run tells a program while it happens: one typed event per moment.

`Agent.run` yields these in order: `RunStarted`, then for each step `StepStarted`,
`PhaseStarted` (observe, model, parse, place, describe, guard, confirm, act,
settle), `ModelText` pieces while the model answers, `ConfirmationAsked` and
`ConfirmationAnswered` around a gated action, `QuestionAsked`/`QuestionAnswered`
when the model calls the user, and `StepFinished`; finally `RunEnded`. Secret
values are scrubbed before an event is made, as they are from the run record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from venusctl.drivers.base import Screen
from venusctl.records.store import Outcome, RunInfo, StepRecord
from venusctl.safety.confirm import ConfirmRequest, Reply


@dataclass(frozen=True)
class RunEvent:
    """Base of every event; `kind` names it in one word (as `--json` does)."""

    kind: ClassVar[str] = "event"


@dataclass(frozen=True)
class RunStarted(RunEvent):
    """The run record exists: its id and folder, the task, driver and model."""

    kind: ClassVar[str] = "start"
    info: RunInfo

    @property
    def run_id(self) -> str:
        return self.info.run_id


@dataclass(frozen=True)
class StepStarted(RunEvent):
    kind: ClassVar[str] = "step_started"
    step: int


@dataclass(frozen=True)
class PhaseStarted(RunEvent):
    """A phase of the step begins (for progress displays)."""

    kind: ClassVar[str] = "phase"
    step: int
    phase: str


@dataclass(frozen=True)
class ModelText(RunEvent):
    """A piece of the model's answer as it is decoded (streaming backends)."""

    kind: ClassVar[str] = "model_text"
    step: int
    text: str


@dataclass(frozen=True)
class ConfirmationAsked(RunEvent):
    """A gated action waits for the confirmer: what it is, where, and why."""

    kind: ClassVar[str] = "confirmation_asked"
    request: ConfirmRequest

    @property
    def step(self) -> int:
        return self.request.step


@dataclass(frozen=True)
class ConfirmationAnswered(RunEvent):
    """The confirmer's answer; `reply` is None when nobody could be asked (fail closed)."""

    kind: ClassVar[str] = "confirmation_answered"
    request: ConfirmRequest
    reply: Reply | None


@dataclass(frozen=True)
class QuestionAsked(RunEvent):
    """The model called the user (`CallUser`)."""

    kind: ClassVar[str] = "question_asked"
    question: str


@dataclass(frozen=True)
class QuestionAnswered(RunEvent):
    """The reply the model will read; None when nobody could be asked."""

    kind: ClassVar[str] = "question_answered"
    question: str
    reply: str | None


@dataclass(frozen=True)
class StepFinished(RunEvent):
    """One step as the record keeps it: the action, target, verdict, timings."""

    kind: ClassVar[str] = "step"
    record: StepRecord

    @property
    def step(self) -> int:
        return self.record.step

    @property
    def action(self) -> str | None:
        """The action in the model's grid coordinates, e.g. `Click(point=(234, 150))`."""
        return self.record.action

    @property
    def thought(self) -> str:
        return self.record.thought

    @property
    def decision(self) -> str | None:
        """The guard's verdict: allow, confirm, deny or needs_user."""
        return (self.record.verdict or {}).get("decision")

    @property
    def error(self) -> str | None:
        return self.record.error

    @property
    def screen(self) -> Screen | None:
        """The screenshot the model saw at this step."""
        return self.record.screen

    def as_dict(self) -> dict[str, Any]:
        return self.record.as_dict()


@dataclass(frozen=True)
class RunEnded(RunEvent):
    """How the run ended: status, exit code, the answer or the reason, steps taken."""

    kind: ClassVar[str] = "end"
    outcome: Outcome

    @property
    def answer(self) -> str:
        return self.outcome.message

    @property
    def exit_code(self) -> int:
        return int(self.outcome.exit_code)
