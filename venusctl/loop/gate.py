"""The safety gate: the guard wrapped around acting.

Given the action the model chose and the screen it chose it on, the gate asks
the driver what the action would touch (reading nameless targets with OCR), has
the guard judge it, and, when the guard wants a person, asks the confirmer with a
marked picture of the target. It answers the loop with a `Passage`: proceed, or
skip with feedback the model reads next step. A denial, an abort or a
confirmation nobody can answer raises (exit 4 or 3), so an unattended run fails
closed. The model's own questions (`CallUser`) reach the person through it too.

What the person approved for the rest of the run ("always", `--allow-category`)
is `RunApprovals`: one per run, owned here, never kept in the caller's settings.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from venusctl.core.actions import Action, Parsed, describe, is_terminal
from venusctl.core.errors import Aborted, NeedsUser, PolicyDenied
from venusctl.drivers.base import Driver, Screen
from venusctl.loop.events import PhaseClock
from venusctl.records.store import StepRecord
from venusctl.safety.confirm import Confirmer, ConfirmRequest, Reply
from venusctl.safety.crop import save_crop
from venusctl.safety.guard import Decision, Guard, GuardRequest, Verdict
from venusctl.safety.ocr import TextReader
from venusctl.safety.reading import needs_ocr, read_unnamed
from venusctl.safety.targets import describe_targets, first_element


class RunApprovals:
    """The categories that need no confirmation for the rest of one run.

    It starts with those approved in advance (`--allow-category`, the policy's
    own) and grows with each "always" answer. The run's request gate shares
    `categories`, so an "always" given for an action also covers the requests it
    sends, and the other way round.
    """

    def __init__(self, categories: Iterable[str] = ()) -> None:
        self.categories: set[str] = set(categories)

    def covers(self, category: str | None) -> bool:
        return bool(category) and category in self.categories

    def approve(self, category: str | None) -> None:
        if category:
            self.categories.add(category)


@dataclass(frozen=True)
class Passage:
    """The gate's answer for one action: proceed, or skip it and tell the model why."""

    proceed: bool
    feedback: str | None = None


PROCEED = Passage(True)


def skip(feedback: str) -> Passage:
    return Passage(False, feedback)


class SafetyGate:
    """Judges each action of one run before it is performed (see the module docstring).

    It notes what it found on the step's record as it goes (targets, verdict, the
    person's reply), so a run that stops here still records why.
    """

    def __init__(self, guard: Guard, confirmer: Confirmer, driver: Driver, run_dir: Path,
                 reader: TextReader | None = None, approvals: RunApprovals | None = None,
                 ) -> None:
        self.guard = guard
        self.confirmer = confirmer
        self.driver = driver
        self.run_dir = run_dir
        self.reader = reader
        self.approvals = approvals if approvals is not None else RunApprovals()

    def check(self, step: int, parsed: Parsed, placed: Action, screen: Screen,
              record: StepRecord, clock: PhaseClock) -> Passage:
        """Whether `placed` may run now. Raises `PolicyDenied`, `Aborted` or `NeedsUser`."""
        if is_terminal(parsed.action):
            record.verdict = {"decision": "allow", "reason": "ends the run or asks the user"}
            return PROCEED
        request = self._describe(step, parsed, placed, screen, record, clock)
        with clock("guard"):
            verdict = self._approved(self.guard.check(request))
        record.verdict = verdict.as_dict()
        if verdict.decision is Decision.DENY:
            raise PolicyDenied(
                f"step {step}: {describe(parsed.action)} is denied by the policy: {verdict.reason}"
            )
        if verdict.decision is Decision.CONFIRM:
            return self._confirm(request, verdict, screen, record, clock)
        return PROCEED

    def ask_user(self, question: str, record: StepRecord) -> str | None:
        """The model's question to the person; None when nobody can answer (the run
        then stops for the user, exit 3)."""
        try:
            reply = self.confirmer.ask_user(question)
        except NeedsUser:
            record.verdict = {"decision": "needs_user", "reason": "no terminal to ask"}
            return None
        record.reply = reply
        return reply

    def _describe(self, step: int, parsed: Parsed, placed: Action, screen: Screen,
                  record: StepRecord, clock: PhaseClock) -> GuardRequest:
        """Ask the driver about every point the action touches and the focus, and read
        the screenshot at every point the action presses and every target the driver
        cannot name (OCR, and the focused window when keys go to a focus it cannot
        name): the guard judges each of them by what it is called and what it shows."""
        with clock("describe"):
            targets = describe_targets(self.driver, placed)
        if self.reader is not None and needs_ocr(placed, targets):
            with clock("ocr"):
                targets = read_unnamed(self.reader, placed, targets, screen)
        element = first_element(targets)
        record.element = element.as_dict() if element else None
        record.targets = [t.as_dict() for t in targets]
        return GuardRequest(step, parsed.action, placed, element, screen.context,
                            parsed.thought, targets)

    def _approved(self, verdict: Verdict) -> Verdict:
        """A category the person approved for this run no longer needs confirming."""
        if verdict.decision is Decision.CONFIRM and self.approvals.covers(verdict.category):
            return Verdict(Decision.ALLOW, f"{verdict.category} approved for this run",
                           verdict.category, verdict.rule)
        return verdict

    def _confirm(self, request: GuardRequest, verdict: Verdict, screen: Screen,
                 record: StepRecord, clock: PhaseClock) -> Passage:
        with clock("confirm"):
            try:
                reply = self.confirmer.confirm(self._confirm_request(request, verdict, screen))
            except NeedsUser:
                record.reply = "unanswered"  # the pending action stays in the record
                raise
        record.reply = reply.value
        return self._answer(reply, request, verdict)

    def _confirm_request(self, request: GuardRequest, verdict: Verdict, screen: Screen
                         ) -> ConfirmRequest:
        where = request.context.url or request.context.app or request.context.title
        crop = save_crop(screen, request.placed, request.element, self.run_dir, request.step)
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

    def _answer(self, reply: Reply, request: GuardRequest, verdict: Verdict) -> Passage:
        """Act on the person's answer: proceed, or skip with what the model should know."""
        if reply is Reply.ABORT:
            raise Aborted(f"aborted by the user at step {request.step}")
        if reply is Reply.NO:
            return skip(f"The user declined the action {describe(request.action)}. "
                        "Do not repeat it; find another way or ask with CallUser.")
        if reply is Reply.TAKEOVER:
            self.confirmer.take_over()
            return skip("The user took over and has handed control back; "
                        "look at the new screenshot.")
        if reply is Reply.ALWAYS:
            self.approvals.approve(verdict.category)
        return PROCEED
