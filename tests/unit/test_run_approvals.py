"""A "yes, always" answer is a run's own: it never outlives the run that heard it.

The settings a caller hands in (budgets, sampling) are often reused for the next
task: a program's `RunRequest`, a session's agent, a test. An approval given in one
run must not let a payment through unasked in the next one.
"""

from __future__ import annotations

import io
from pathlib import Path

from tests.support.fakes import FakeDriver
from venusctl.core.actions import Click
from venusctl.core.errors import ExitCode
from venusctl.drivers.base import Element, ScreenContext
from venusctl.loop.agent import Agent, AgentSettings
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import Outcome, Recorder, RunInfo
from venusctl.run.build import ModelOptions, RunRequest, run_task
from venusctl.safety.confirm import Confirmer, NonInteractiveConfirmer, TerminalConfirmer
from venusctl.safety.policy import load_policy
from venusctl.safety.setup import SafetyOptions, make_policy_guard

PAY = Element(text="Pay now", role="button", tag="button", bounds=(400, 200, 200, 60))
CHECKOUT = ScreenContext(url="https://shop.example/checkout", title="Checkout")
PAY_THEN_DONE = ["<think>Pay now.</think><action>Click(point=(500, 460))</action>",
                 "<think>t</think><action>Finished(content='ok')</action>"]


def always() -> TerminalConfirmer:
    """A person who answers "always" to the first question."""
    lines = ["a"]
    return TerminalConfirmer(read_line=lambda: lines.pop(0) + "\n" if lines else "",
                             out=io.StringIO())


def loop_run(tmp_path: Path, settings: AgentSettings, confirmer: Confirmer
             ) -> tuple[Outcome, FakeDriver]:
    driver = FakeDriver(element=PAY, context_value=CHECKOUT)
    model = ScriptedModel([Completion(text=a) for a in PAY_THEN_DONE])
    recorder = Recorder(tmp_path / "runs", "buy it")
    info = RunInfo(recorder.run_id, "buy it", driver.surface.value, driver.name, model.name,
                   recorder.run_dir)
    guard = make_policy_guard(load_policy("default"))
    outcome = Agent(driver, model, guard, confirmer, "SYSTEM", info, settings).run()
    return outcome, driver


def test_always_in_one_run_does_not_carry_into_the_next_with_the_same_settings(tmp_path):
    settings = AgentSettings(max_steps=4)
    first, driver = loop_run(tmp_path, settings, always())
    assert first.exit_code == ExitCode.FINISHED and driver.performed == [Click((500, 230))]

    second, driver = loop_run(tmp_path, settings, NonInteractiveConfirmer())
    assert (second.status, second.exit_code) == ("needs_user", ExitCode.NEEDS_USER)
    assert driver.performed == []


def request_run(tmp_path: Path, request: RunRequest, confirmer: Confirmer
                ) -> tuple[Outcome, FakeDriver]:
    driver = FakeDriver(element=PAY, context_value=CHECKOUT)
    model = ScriptedModel([Completion(text=a) for a in PAY_THEN_DONE])
    return run_task(request, confirmer, driver=driver, model=model), driver


def test_a_reused_request_starts_each_run_with_only_the_policy_approvals(tmp_path):
    request = RunRequest(task="buy it", model=ModelOptions(answers=Path("unused")),
                         settings=AgentSettings(max_steps=4), runs_dir=tmp_path / "runs",
                         output="quiet", safety=SafetyOptions(config={}))
    first, driver = request_run(tmp_path, request, always())
    assert first.exit_code == ExitCode.FINISHED and driver.performed == [Click((500, 230))]

    second, driver = request_run(tmp_path, request, NonInteractiveConfirmer())
    assert second.exit_code == ExitCode.NEEDS_USER and driver.performed == []


def test_a_category_approved_in_advance_holds_for_every_run_of_the_request(tmp_path):
    request = RunRequest(task="buy it", model=ModelOptions(answers=Path("unused")),
                         settings=AgentSettings(max_steps=4), runs_dir=tmp_path / "runs",
                         output="quiet",
                         safety=SafetyOptions(allow_categories=("payment",), config={}))
    for _ in range(2):
        outcome, driver = request_run(tmp_path, request, NonInteractiveConfirmer())
        assert outcome.exit_code == ExitCode.FINISHED
        assert driver.performed == [Click((500, 230))]
