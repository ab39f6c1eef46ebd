"""The loop, end to end on a fake surface: what it performs, asks, records and returns."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.support.fakes import FakeDriver
from venusctl.core.actions import Click, GetUrl, Surface, Type
from venusctl.core.errors import ExitCode, ModelError
from venusctl.drivers.base import Element
from venusctl.loop.agent import Agent, AgentSettings
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import Recorder, RunInfo, load_run
from venusctl.run.observers import RecordObserver
from venusctl.safety.confirm import NonInteractiveConfirmer, TerminalConfirmer
from venusctl.safety.guard import AllowAllGuard, ConfirmAllGuard, Decision, Verdict


def answer(action: str, thought: str = "t") -> str:
    return f"<think>{thought}</think><action>{action}</action>"


def run(tmp_path: Path, answers: list[str], driver: FakeDriver | None = None,
        guard=None, confirmer=None, **settings):
    driver = driver or FakeDriver()
    model = ScriptedModel([Completion(text=a) for a in answers])
    recorder = Recorder(tmp_path / "runs", "test task")
    info = RunInfo(recorder.run_id, "test task", driver.surface.value, driver.name, model.name,
                   recorder.run_dir)
    agent = Agent(driver, model, guard or AllowAllGuard(), confirmer or NonInteractiveConfirmer(),
                  "SYSTEM", info, AgentSettings(**settings), [RecordObserver(recorder)])
    outcome = agent.run()
    return outcome, driver, model, load_run(recorder.run_dir)


def replies(*lines: str):
    queue = list(lines)
    return TerminalConfirmer(read_line=lambda: queue.pop(0) + "\n" if queue else "",
                             out=io.StringIO())


def test_a_task_runs_to_finished_with_pixels_performed_and_recorded(tmp_path):
    outcome, driver, _, stored = run(tmp_path, [
        answer("Click(point=(500, 500))"), answer("Type(content='héllo')"),
        answer("Finished(content='done it')")])
    assert (outcome.status, outcome.exit_code, outcome.message) == ("finished", 0, "done it")
    assert driver.performed == [Click((500, 250)), Type("héllo")]
    steps = stored.steps()
    assert [s.action for s in steps] == [
        "Click(point=(500, 500))", "Type(content='héllo')", "Finished(content='done it')"]
    assert steps[0].grid == [[500, 500]] and steps[0].pixels == [[500, 250]]
    assert steps[0].verdict["decision"] == "allow"
    assert set(steps[0].timings) >= {"observe", "model", "parse", "act", "settle"}
    assert (stored.path / steps[0].image).read_bytes().startswith(b"\x89PNG")
    assert stored.outcome.status == "finished" and stored.outcome.steps == 3


def test_a_parse_error_is_fed_back_and_retried(tmp_path):
    outcome, _, model, stored = run(tmp_path, [
        answer("Tap(point=(1, 1))"), answer("Finished(content='ok')")])
    assert outcome.status == "finished"
    retry_prompt = model.calls[1][-1].text
    assert retry_prompt.startswith("Your previous answer could not be used: Unknown action 'Tap'")
    step = stored.steps()[0]
    assert step.rejected == [answer("Tap(point=(1, 1))")]
    assert "Unknown action" in step.parse_errors[0]


def test_unparseable_answers_end_the_run_after_the_retries(tmp_path):
    outcome, _, model, _ = run(tmp_path, ["nonsense"] * 3, parse_retries=2)
    assert (outcome.status, outcome.exit_code) == ("parse_error", ExitCode.FAILED)
    assert len(model.calls) == 3


def test_call_user_without_a_terminal_stops_with_the_question(tmp_path):
    outcome, _, _, stored = run(tmp_path, [answer("CallUser(content='Which size?')")])
    assert (outcome.status, outcome.exit_code, outcome.message) == (
        "needs_user", ExitCode.NEEDS_USER, "Which size?")
    assert stored.outcome.exit_code == 3


def test_call_user_at_a_terminal_feeds_the_reply_back(tmp_path):
    outcome, _, model, _ = run(tmp_path, [
        answer("CallUser(content='Which size?')"), answer("Finished(content='')")],
        confirmer=replies("large"))
    assert outcome.status == "finished"
    assert model.calls[1][-1].text.startswith("The user replied: large")


def test_confirmation_yes_no_always(tmp_path):
    outcome, driver, model, stored = run(tmp_path, [
        answer("Click(point=(1, 1))"), answer("Click(point=(2, 2))"),
        answer("Click(point=(3, 3))"), answer("Click(point=(400, 400))"),
        answer("Finished(content='')")],
        guard=ConfirmAllGuard(), confirmer=replies("n", "y", "a"))
    assert outcome.status == "finished"
    assert driver.performed == [Click((2, 1)), Click((3, 2)), Click((400, 200))]
    assert "The user declined the action click point (1, 1)" in model.calls[1][-1].text
    assert [s.reply for s in stored.steps()[:4]] == ["no", "yes", "always", None]
    assert stored.steps()[3].verdict["decision"] == "allow"


def test_abort_at_a_confirmation_stops_with_code_4(tmp_path):
    outcome, driver, _, _ = run(tmp_path, [answer("Click(point=(1, 1))")],
                                guard=ConfirmAllGuard(), confirmer=replies("q"))
    assert (outcome.status, outcome.exit_code) == ("aborted", ExitCode.POLICY_STOP)
    assert driver.performed == []


def test_take_over_then_reobserve(tmp_path):
    outcome, driver, model, _ = run(tmp_path, [
        answer("Click(point=(1, 1))"), answer("Finished(content='')")],
        guard=ConfirmAllGuard(), confirmer=replies("t", ""))
    assert outcome.status == "finished" and driver.performed == []
    assert "took over" in model.calls[1][-1].text
    assert driver.shots == 2


def test_no_terminal_fails_closed_with_the_pending_action_recorded(tmp_path):
    outcome, driver, _, stored = run(tmp_path, [answer("Type(content='x')")],
                                     guard=ConfirmAllGuard())
    assert (outcome.status, outcome.exit_code) == ("needs_user", ExitCode.NEEDS_USER)
    assert driver.performed == []
    assert outcome.steps == 1 and stored.outcome.steps == 1
    step = stored.steps()[0]
    assert step.action == "Type(content='x')" and step.verdict["decision"] == "confirm"


def test_a_failed_action_is_fed_back(tmp_path):
    driver = FakeDriver(fail_on={"Click"})
    outcome, _, model, _ = run(tmp_path, [answer("Click(point=(1, 1))"),
                                          answer("Finished(content='')")], driver)
    assert outcome.status == "finished"
    assert model.calls[1][-1].text.startswith("The last action failed: Click did not work")


def test_driver_feedback_reaches_the_next_message(tmp_path):
    driver = FakeDriver(feedback={"GetUrl": "The current URL is http://x/a"})
    run(tmp_path, [answer("GetUrl()"), answer("Finished(content='')")], driver)
    assert driver.performed == [GetUrl()]


def test_a_dead_device_closes_the_record_with_code_5(tmp_path):
    driver = FakeDriver(die_on_step=2)
    outcome, _, _, stored = run(tmp_path, [answer("Click(point=(1, 1))")] * 3, driver)
    assert (outcome.status, outcome.exit_code) == ("device_error", ExitCode.UNAVAILABLE)
    assert stored.outcome.status == "device_error"
    assert stored.steps()[-1].error == "the fake device went away"


def test_loop_guard_stops_five_identical_clicks_on_a_coarse_grid(tmp_path):
    clicks = [answer(f"Click(point=({500 + i}, 500))") for i in range(6)]
    outcome, driver, _, _ = run(tmp_path, clicks)
    assert (outcome.status, outcome.exit_code) == ("loop", ExitCode.FAILED)
    assert len(driver.performed) == 5


def test_step_budget(tmp_path):
    outcome, _, _, _ = run(tmp_path, [answer(f"Click(point=({i * 100}, 1))") for i in range(5)],
                           max_steps=3)
    assert (outcome.status, outcome.steps) == ("budget", 3)


def test_timeout(tmp_path):
    outcome, _, _, _ = run(tmp_path, [answer("Wait()")] * 3, timeout_s=0.0)
    assert outcome.status == "timeout"


class _InterruptingModel(ScriptedModel):
    def complete(self, messages, options, on_text=None):
        if len(self.calls) == 1:
            raise KeyboardInterrupt
        return super().complete(messages, options, on_text)


class _CrashingModel(ScriptedModel):
    def complete(self, messages, options, on_text=None):
        raise ModelError("the model ran out of memory")


@pytest.mark.parametrize(("model_cls", "status", "code"), [
    (_InterruptingModel, "interrupted", ExitCode.INTERRUPTED),
    (_CrashingModel, "model_error", ExitCode.UNAVAILABLE),
])
def test_interrupts_and_model_crashes_leave_a_closed_record(tmp_path, model_cls, status, code):
    driver = FakeDriver()
    model = model_cls([Completion(text=answer("Click(point=(1, 1))"))] * 3)
    recorder = Recorder(tmp_path / "runs", "t")
    info = RunInfo(recorder.run_id, "t", "browser", "fake", "m", recorder.run_dir)
    outcome = Agent(driver, model, AllowAllGuard(), NonInteractiveConfirmer(), "S", info,
                    AgentSettings(), [RecordObserver(recorder)]).run()
    assert (outcome.status, outcome.exit_code) == (status, code)
    saved = json.loads((recorder.run_dir / "run.json").read_text())
    assert saved["outcome"]["status"] == status
    assert (recorder.run_dir / "steps.jsonl").read_text().strip() != ""


class _DenyTyping:
    def check(self, request):
        if isinstance(request.action, Type):
            return Verdict(Decision.DENY, "no typing here", "credentials")
        return Verdict(Decision.ALLOW)


def test_a_denied_action_stops_with_code_4_and_is_not_performed(tmp_path):
    outcome, driver, _, stored = run(tmp_path, [answer("Click(point=(1, 1))"),
                                                answer("Type(content='pw')")],
                                     guard=_DenyTyping())
    assert (outcome.status, outcome.exit_code) == ("denied", ExitCode.POLICY_STOP)
    assert driver.performed == [Click((1, 1))]
    assert stored.steps()[-1].verdict["decision"] == "deny"


def test_the_element_under_the_point_reaches_the_record(tmp_path):
    driver = FakeDriver(element=Element(text="Pay now", role="button", bounds=(1, 2, 3, 4)))
    _, _, _, stored = run(tmp_path, [answer("Click(point=(1, 1))"),
                                     answer("Finished(content='')")], driver)
    assert stored.steps()[0].element == {"text": "Pay now", "role": "button",
                                            "bounds": [1, 2, 3, 4]}


def test_mobile_surface_parses_mobile_actions(tmp_path):
    driver = FakeDriver(surface=Surface.MOBILE)
    outcome, _, _, _ = run(tmp_path, [answer("PressHome()"), answer("Answer(content='42')")],
                           driver)
    assert (outcome.status, outcome.message) == ("answered", "42")
