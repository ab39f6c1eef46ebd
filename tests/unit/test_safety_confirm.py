"""Confirmations in the loop: the prompt, the answers, failing closed, the record."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from tests.support.fakes import FakeDriver
from venusctl.core.actions import Click, Type
from venusctl.core.errors import ExitCode
from venusctl.drivers.base import Element, ScreenContext
from venusctl.drivers.capabilities import Capability
from venusctl.loop.agent import Agent, AgentSettings
from venusctl.loop.gate import RunApprovals
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import Recorder, RunInfo, load_run
from venusctl.run.observers import RecordObserver
from venusctl.safety.confirm import (
    ConfirmRequest,
    NonInteractiveConfirmer,
    Reply,
    TerminalConfirmer,
)
from venusctl.safety.policy import load_policy
from venusctl.safety.setup import make_policy_guard

PAY = Element(text="Pay now", role="button", tag="button", bounds=(400, 200, 200, 60))
CHECKOUT = ScreenContext(url="https://shop.example/checkout", title="Checkout")
POLICY = load_policy("default")


def answer(action: str, thought: str = "t") -> str:
    return f"<think>{thought}</think><action>{action}</action>"


class Person:
    """A terminal with scripted answers; keeps what was shown."""

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)
        self.out = io.StringIO()
        self.took_over = 0
        self.confirmer = TerminalConfirmer(read_line=self.read, out=self.out)
        self.confirmer.take_over = self.take_over  # type: ignore[method-assign]

    def read(self) -> str:
        return self.lines.pop(0) + "\n" if self.lines else ""

    def take_over(self) -> None:
        self.took_over += 1


def run(tmp_path: Path, answers: list[str], confirmer, confirm: str = "policy",
        approved: set[str] | None = None, element: Element | None = PAY):
    driver = FakeDriver(element=element, context_value=CHECKOUT)
    model = ScriptedModel([Completion(text=a) for a in answers])
    recorder = Recorder(tmp_path / "runs", "buy it")
    info = RunInfo(recorder.run_id, "buy it", driver.surface.value, driver.name, model.name,
                   recorder.run_dir)
    guard = make_policy_guard(POLICY, confirm, assume_yes=confirm == "never")
    agent = Agent(driver, model, guard, confirmer, "SYSTEM", info, AgentSettings(),
                  [RecordObserver(recorder)], approvals=RunApprovals(approved or ()))
    outcome = agent.run()
    return outcome, driver, model, load_run(recorder.run_dir)


PAY_THEN_DONE = [answer("Click(point=(500, 460))", "Pay now."), answer("Finished(content='ok')")]


def test_no_terminal_fails_closed_with_the_pending_action_recorded(tmp_path):
    outcome, driver, _, stored = run(tmp_path, PAY_THEN_DONE, NonInteractiveConfirmer())
    assert (outcome.status, outcome.exit_code) == ("needs_user", ExitCode.NEEDS_USER)
    assert driver.performed == []
    step = stored.steps()[-1]
    assert step.action == "Click(point=(500, 460))"
    assert step.verdict["decision"] == "confirm" and step.verdict["category"] == "payment"
    assert step.reply == "unanswered" and "needs confirmation (payment)" in step.error
    assert stored.outcome.exit_code == 3


def test_a_pre_approved_category_runs_unattended(tmp_path):
    outcome, driver, _, stored = run(tmp_path, PAY_THEN_DONE, NonInteractiveConfirmer(),
                                     approved={"payment"})
    assert outcome.exit_code == 0 and driver.performed == [Click((500, 230))]
    steps = stored.steps()
    assert steps[0].verdict["decision"] == "allow"
    assert "payment approved for this run" in steps[0].verdict["reason"]
    assert all(s.verdict for s in steps)  # every step records its verdict


def test_the_prompt_shows_the_facts_and_a_marked_picture(tmp_path):
    person = Person("y")
    outcome, driver, _, stored = run(tmp_path, PAY_THEN_DONE, person.confirmer)
    shown = person.out.getvalue()
    assert outcome.exit_code == 0 and driver.performed == [Click((500, 230))]
    assert "confirmation needed (step 1)" in shown
    assert "action : click point (500, 460)" in shown
    assert "target : button 'Pay now'" in shown
    assert "where  : https://shop.example/checkout" in shown
    assert "policy : a payment or purchase" in shown and "[payment]" in shown
    assert "model  : Pay now." in shown
    picture = stored.path / "confirm-001.png"
    assert f"picture: {picture}" in shown
    image = Image.open(picture).convert("RGB")
    red = sum(1 for p in image.get_flattened_data() if p[0] > 200 and p[1] < 80 and p[2] < 120)
    assert red > 20  # the target is marked in the action colour
    assert stored.steps()[0].reply == "yes"


def test_no_tells_the_model_and_the_run_goes_on(tmp_path):
    person = Person("n")
    outcome, driver, model, _ = run(tmp_path, PAY_THEN_DONE, person.confirmer)
    assert outcome.exit_code == 0 and driver.performed == []
    assert "The user declined the action click" in model.calls[1][-1].text


def test_always_approves_the_category_for_the_rest_of_the_run(tmp_path):
    person = Person("a")
    answers = [answer("Click(point=(500, 460))"), answer("Click(point=(500, 460))"),
               answer("Finished(content='ok')")]
    outcome, driver, _, stored = run(tmp_path, answers, person.confirmer)
    assert outcome.exit_code == 0 and len(driver.performed) == 2
    assert person.out.getvalue().count("confirmation needed") == 1
    assert "[a]lways payment this run" in person.out.getvalue()
    assert [s.verdict["decision"] for s in stored.steps()] == ["confirm", "allow", "allow"]


def test_take_over_hands_the_surface_over_and_looks_again(tmp_path):
    person = Person("t")
    outcome, driver, model, _ = run(tmp_path, PAY_THEN_DONE, person.confirmer)
    assert person.took_over == 1 and driver.performed == [] and outcome.exit_code == 0
    assert "took over" in model.calls[1][-1].text


def test_abort_stops_with_exit_4(tmp_path):
    outcome, driver, _, _ = run(tmp_path, PAY_THEN_DONE, Person("q").confirmer)
    assert (outcome.status, outcome.exit_code) == ("aborted", ExitCode.POLICY_STOP)
    assert driver.performed == []


def test_a_deny_stops_the_run_even_with_confirmation_turned_off(tmp_path):
    answers = [answer("Type(content='sudo rm -rf / --no-preserve-root')")]
    outcome, driver, _, stored = run(tmp_path, answers, NonInteractiveConfirmer(),
                                     confirm="never", element=None)
    assert (outcome.status, outcome.exit_code) == ("denied", ExitCode.POLICY_STOP)
    assert driver.performed == []
    assert stored.steps()[0].verdict["decision"] == "deny"


def test_confirm_never_yes_lets_confirmations_through(tmp_path):
    outcome, driver, _, _ = run(tmp_path, PAY_THEN_DONE, NonInteractiveConfirmer(),
                                confirm="never")
    assert outcome.exit_code == 0 and driver.performed == [Click((500, 230))]


def test_typing_is_checked_against_the_focused_field(tmp_path):
    class Focused(FakeDriver):
        capabilities = frozenset({Capability.FOCUSED_ELEMENT})

        def focused_element(self):
            return Element(name="Password", role="textbox", input_type="password",
                           password=True)

    driver = Focused(context_value=CHECKOUT)
    model = ScriptedModel([Completion(text=answer("Type(content='hunter2')"))])
    recorder = Recorder(tmp_path / "runs", "log in")
    info = RunInfo(recorder.run_id, "log in", "browser", "fake", model.name, recorder.run_dir)
    agent = Agent(driver, model, make_policy_guard(POLICY), NonInteractiveConfirmer(), "S",
                  info, AgentSettings(), [RecordObserver(recorder)])
    assert agent.run().exit_code == ExitCode.NEEDS_USER
    step = load_run(recorder.run_dir).steps()[0]
    assert step.element["input_type"] == "password"
    assert step.verdict["category"] == "credentials"
    assert driver.performed == [] and Type("hunter2") not in driver.performed


@pytest.mark.parametrize(("typed", "reply"), [("yes", Reply.YES), ("是", Reply.YES),
                                              ("否", Reply.NO), ("take over", Reply.TAKEOVER),
                                              ("", Reply.ABORT)])
def test_answers_are_read_leniently(typed, reply):
    lines = ["what?", typed] if typed else []
    confirmer = TerminalConfirmer(read_line=lambda: lines.pop(0) + "\n" if lines else "",
                                  out=io.StringIO())
    request = ConfirmRequest(1, "click", None, None, "because", "")
    assert confirmer.confirm(request) is reply

