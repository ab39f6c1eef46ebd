"""The loop's seams: typed observer hooks passed on to every observer, and the safety
gate's answer (proceed, or skip with feedback) around acting."""

from __future__ import annotations

import inspect
import time
from pathlib import Path

import pytest
from PIL import Image

from tests.support.fakes import FakeDriver
from venusctl.core.actions import Click, Finished, Parsed
from venusctl.core.errors import Aborted, NeedsUser, PolicyDenied
from venusctl.drivers.base import Element, ScreenContext
from venusctl.loop.events import Observers, PhaseClock, RunObserver
from venusctl.loop.gate import RunApprovals, SafetyGate
from venusctl.records.store import Outcome, RunInfo, StepRecord
from venusctl.run.observers import RedactingObservers
from venusctl.safety.confirm import NonInteractiveConfirmer, Reply
from venusctl.safety.guard import Decision, GuardRequest, Verdict
from venusctl.safety.policy import load_policy
from venusctl.safety.redact import Redactor
from venusctl.safety.setup import make_policy_guard

HOOKS = [name for name, _ in inspect.getmembers(RunObserver, inspect.isfunction)
         if not name.startswith("_")]


class Log(RunObserver):
    """Writes down every hook it gets, with its arguments."""

    def __init__(self, seen: list[tuple[str, object]]) -> None:
        self.seen = seen

    def run_started(self, info: RunInfo) -> None:
        self.seen.append(("run_started", info.run_id))

    def step_started(self, step: int) -> None:
        self.seen.append(("step_started", step))

    def phase(self, step: int, name: str) -> None:
        self.seen.append(("phase", name))

    def model_text(self, step: int, text: str) -> None:
        self.seen.append(("model_text", text))

    def step_finished(self, record: StepRecord) -> None:
        self.seen.append(("step_finished", record.raw))

    def run_finished(self, outcome: Outcome) -> None:
        self.seen.append(("run_finished", outcome.message))


def test_every_hook_is_passed_on_by_the_fan_out_and_by_the_redaction():
    assert set(HOOKS) == {"run_started", "step_started", "phase", "model_text",
                          "step_finished", "run_finished"}
    for name in HOOKS:
        assert getattr(Observers, name) is not getattr(RunObserver, name), name
    for name in ("model_text", "step_finished", "run_finished"):  # the hooks carrying text
        assert getattr(RedactingObservers, name) is not getattr(Observers, name), name


def test_observers_get_each_hook_in_order_and_secret_values_scrubbed(tmp_path):
    seen: list[tuple[str, object]] = []
    redactor = Redactor()
    redactor.add("pin", "s3cret-4711")
    fan = RedactingObservers(redactor, [Log(seen), Log(seen)])
    fan.run_started(RunInfo("r1", "task", "browser", "fake", "m", tmp_path))
    fan.step_started(1)
    fan.phase(1, "model")
    fan.model_text(1, "typing s3cret-4711")
    fan.step_finished(StepRecord(step=1, started_at=0.0, raw="I typed s3cret-4711"))
    fan.run_finished(Outcome("failed", 1, "the page said s3cret-4711"))
    assert [name for name, _ in seen] == [h for h in ("run_started", "step_started", "phase",
                                                      "model_text", "step_finished",
                                                      "run_finished") for _ in range(2)]
    assert "s3cret-4711" not in repr(seen) and ("model_text", "typing [secret:pin]") in seen


def test_a_plain_observer_needs_only_the_hooks_it_wants(tmp_path):
    class Ends(RunObserver):
        def __init__(self) -> None:
            self.outcomes: list[Outcome] = []

        def run_finished(self, outcome: Outcome) -> None:
            self.outcomes.append(outcome)

    ends = Ends()
    fan = Observers([ends])
    fan.step_started(1)
    fan.phase(1, "observe")
    fan.run_finished(Outcome("finished", 0, "ok"))
    assert [o.message for o in ends.outcomes] == ["ok"]


def test_the_clock_adds_up_repeated_phases_and_announces_each():
    timings: dict[str, float] = {}
    announced: list[str] = []
    clock = PhaseClock(timings, announced.append)
    for _ in range(2):
        with clock("model"):
            time.sleep(0.001)
    with clock("parse"):
        pass
    assert announced == ["model", "model", "parse"]
    assert timings["model"] >= 0.002 and set(timings) == {"model", "parse"}


# --------------------------------------------------------------- the safety gate

PAY = Element(text="Pay now", role="button", tag="button", bounds=(400, 200, 200, 60))
CHECKOUT = ScreenContext(url="https://shop.example/checkout", title="Checkout")
PAY_CLICK = Parsed("Pay now.", Click((500, 460)), "Click(point=(500, 460))")


class Answers:
    """A confirmer that gives scripted replies and counts take-overs."""

    interactive = True

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.asked = 0
        self.took_over = 0

    def confirm(self, request):
        self.asked += 1
        return self.replies.pop(0)

    def ask_user(self, question: str) -> str:
        return "blue"

    def take_over(self) -> None:
        self.took_over += 1


def gate_for(tmp_path: Path, confirmer, approvals: RunApprovals | None = None
             ) -> SafetyGate:
    driver = FakeDriver(element=PAY, context_value=CHECKOUT)
    return SafetyGate(make_policy_guard(load_policy("default")), confirmer, driver, tmp_path,
                      approvals=approvals)


def check(gate: SafetyGate, parsed: Parsed = PAY_CLICK, step: int = 1):
    record = StepRecord(step=step, started_at=0.0)
    screen = gate.driver.screenshot()
    placed = Click((500, 230))
    passage = gate.check(step, parsed, placed, screen, record, PhaseClock(record.timings))
    return passage, record


def test_a_no_skips_the_action_and_tells_the_model(tmp_path):
    passage, record = check(gate_for(tmp_path, Answers(Reply.NO)))
    assert not passage.proceed
    assert passage.feedback is not None and "The user declined the action" in passage.feedback
    assert record.reply == "no" and record.verdict["decision"] == "confirm"
    assert set(record.timings) == {"describe", "guard", "confirm"}


def test_always_approves_the_category_for_this_gate_only(tmp_path):
    approvals = RunApprovals()
    person = Answers(Reply.ALWAYS)
    gate = gate_for(tmp_path, person, approvals)
    first, _ = check(gate)
    second, record = check(gate, step=2)
    assert first.proceed and second.proceed and person.asked == 1
    assert approvals.categories == {"payment"}
    assert record.verdict["reason"] == "payment approved for this run"
    with pytest.raises(NeedsUser):
        check(gate_for(tmp_path, NonInteractiveConfirmer()))


def test_take_over_hands_the_surface_over_then_skips(tmp_path):
    person = Answers(Reply.TAKEOVER)
    passage, _ = check(gate_for(tmp_path, person))
    assert person.took_over == 1 and not passage.proceed
    assert "look at the new screenshot" in (passage.feedback or "")


def test_unattended_fails_closed_with_the_reply_recorded(tmp_path):
    record = StepRecord(step=1, started_at=0.0)
    gate = gate_for(tmp_path, NonInteractiveConfirmer())
    with pytest.raises(NeedsUser):
        gate.check(1, PAY_CLICK, Click((500, 230)), gate.driver.screenshot(), record,
                   PhaseClock(record.timings))
    assert record.reply == "unanswered" and record.verdict["category"] == "payment"


def test_abort_and_deny_raise(tmp_path):
    with pytest.raises(Aborted, match="aborted by the user at step 1"):
        check(gate_for(tmp_path, Answers(Reply.ABORT)))

    class Never:
        def check(self, request: GuardRequest) -> Verdict:
            return Verdict(Decision.DENY, "never here")

    denying = SafetyGate(Never(), Answers(), FakeDriver(), tmp_path)
    with pytest.raises(PolicyDenied, match=r"step 1: click .* is denied by the policy: never here"):
        check(denying)


def test_terminal_actions_pass_without_describing_and_questions_reach_the_person(tmp_path):
    gate = gate_for(tmp_path, Answers())
    passage, record = check(gate, Parsed("", Finished("done"), "Finished(content='done')"))
    assert passage.proceed and record.verdict["decision"] == "allow" and not record.timings
    assert gate.ask_user("which colour?", record) == "blue" and record.reply == "blue"
    nobody = gate_for(tmp_path, NonInteractiveConfirmer())
    assert nobody.ask_user("which colour?", record) is None
    assert record.verdict["decision"] == "needs_user"


def test_the_question_shows_a_marked_picture(tmp_path):
    class Seen(Answers):
        def confirm(self, request):
            self.request = request
            return super().confirm(request)

    person = Seen(Reply.YES)
    passage, _ = check(gate_for(tmp_path, person))
    assert passage.proceed and person.request.crop_path
    assert Path(person.request.crop_path).is_file()
    assert person.request.where == CHECKOUT.url and person.request.category == "payment"
    with Image.open(person.request.crop_path) as picture:
        assert picture.width > 0 and picture.height > 0
