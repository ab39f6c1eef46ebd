"""`venusctl.Agent` for programs: events in order, the gate, early stops, one-shot calls."""

from __future__ import annotations

import json

import pytest

from tests.support.fakes import FakeDriver
from venusctl import (
    Aborted,
    Agent,
    AgentSettings,
    ConfirmationAnswered,
    ConfirmationAsked,
    ModelText,
    NeedsUser,
    PhaseStarted,
    PolicyDenied,
    Reply,
    RunEnded,
    RunRequest,
    RunStarted,
    SafetyOptions,
    StepFinished,
    StepStarted,
    UsageError,
)
from venusctl.drivers.base import Element, ScreenContext
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel

PAY = Element(text="Pay now", role="button")


def answer(action: str) -> Completion:
    return Completion(text=f"<think>why</think><action>{action}</action>")


def agent(tmp_path, answers, element=None, **kwargs) -> tuple[Agent, FakeDriver]:
    driver = FakeDriver(element=element, context_value=ScreenContext(url="https://shop.x/catalog"))
    built = Agent(driver, ScriptedModel([answer(a) for a in answers]), runs_dir=tmp_path,
                  safety=SafetyOptions(config={}), **kwargs)
    return built, driver


def test_a_run_yields_typed_events_in_order(tmp_path):
    built, driver = agent(tmp_path, ["Click(point=(10, 10))", "Finished(content='done')"])
    run = built.run("click then finish")
    events = list(run)
    kinds = [type(e) for e in events if not isinstance(e, PhaseStarted | ModelText)]
    assert kinds == [RunStarted, StepStarted, StepFinished, StepStarted, StepFinished, RunEnded]
    assert events[0].run_id == run.run_id and (tmp_path / run.run_id / "run.json").exists()
    first = next(e for e in events if isinstance(e, StepFinished))
    assert first.action == "Click(point=(10, 10))" and first.decision == "allow"
    assert first.screen is not None and first.screen.size.width == 1000
    assert {e.phase for e in events if isinstance(e, PhaseStarted)} >= {"observe", "act"}
    assert events[-1].answer == "done" and events[-1].exit_code == 0
    assert run.outcome.status == "finished" and len(driver.performed) == 1
    assert not driver.closed  # the program's own driver stays open


def test_without_a_confirmer_a_gated_action_fails_closed(tmp_path):
    built, driver = agent(tmp_path, ["Click(point=(10, 10))"], element=PAY)
    run = built.run("pay")
    events = list(run)
    asked = [e for e in events if isinstance(e, ConfirmationAsked)]
    answered = [e for e in events if isinstance(e, ConfirmationAnswered)]
    assert len(asked) == 1 and asked[0].request.category == "payment"
    assert answered[0].reply is None
    assert run.outcome.status == "needs_user" and int(run.outcome.exit_code) == 3
    assert driver.performed == []
    steps = (tmp_path / run.run_id / "steps.jsonl").read_text().splitlines()
    assert json.loads(steps[-1])["verdict"]["decision"] == "confirm"


@pytest.mark.parametrize(("reply", "performed", "status"), [
    (True, 1, "finished"), (Reply.YES, 1, "finished"), (False, 0, "finished"),
    (Reply.ABORT, 0, "aborted")])
def test_a_program_confirms_with_a_function(tmp_path, reply, performed, status):
    seen = []

    def decide(request):
        seen.append(request)
        return reply

    built, driver = agent(tmp_path, ["Click(point=(10, 10))", "Finished(content='ok')"],
                          element=PAY, confirmer=decide)
    outcome = built.run("pay").wait()
    assert len(seen) == 1 and "click" in seen[0].action
    assert len(driver.performed) == performed and outcome.status == status


def test_leaving_the_loop_early_stops_the_run_and_closes_its_record(tmp_path):
    built, driver = agent(tmp_path, ["Wait()"] * 10, settings=AgentSettings(max_steps=10))
    run = built.run("wait a lot")
    for event in run:
        if isinstance(event, StepFinished):
            break
    assert run.outcome.status == "interrupted"
    info = json.loads((tmp_path / run.run_id / "run.json").read_text())
    assert info["outcome"]["status"] == "interrupted"
    assert len(driver.performed) == 1
    assert built.run("again").wait().status in ("budget", "loop")  # the agent is free again


def test_usage_errors_come_from_the_first_event(tmp_path):
    built, _ = agent(tmp_path, [])
    run = built.run("   ")
    with pytest.raises(UsageError, match="the task is empty"):
        next(iter(run))


def test_a_request_carries_every_setting(tmp_path):
    built, driver = agent(tmp_path, ["Click(point=(10, 10))"] * 3)
    request = RunRequest(task="click", settings=AgentSettings(max_steps=2), runs_dir=tmp_path,
                         dry_run=True, safety=SafetyOptions(config={}))
    outcome = built.run(request).wait()
    assert outcome.steps == 2 and driver.performed == []  # dry run, two-step budget


def test_act_goes_through_the_gate(tmp_path):
    built, _ = agent(tmp_path, [], element=Element(text="About", role="link"))
    result = built.act("Click(point=(500, 500))")
    assert result.placed == "Click(point=(500, 250))" and result.target == "link 'About'"
    assert "performed Click(point=(500, 500)) on 1000x500" in result.report()
    payer, paid = agent(tmp_path, [], element=PAY)
    with pytest.raises(NeedsUser):
        payer.act("Click(point=(500, 500))")
    declining, _ = agent(tmp_path, [], element=PAY, confirmer=lambda r: Reply.NO)
    with pytest.raises(Aborted):
        declining.act("Click(point=(500, 500))")
    assert paid.performed == []
    with pytest.raises(UsageError):
        built.act("Fly(to='moon')")


def test_denials_raise_policy_denied(tmp_path):
    built, driver = agent(tmp_path, [], element=Element(role="textbox", extra={"terminal": True}),
                          confirmer=lambda r: True)
    with pytest.raises(PolicyDenied) as caught:
        built.act("Type(content='rm -rf / --no-preserve-root\\n')")
    assert driver.performed == [] and caught.value.exit_code == 4
