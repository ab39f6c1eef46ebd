"""A desktop Sequence is one step; a terminal child at its end ends the run like the
same action alone would, but only once the children before it were performed."""

from __future__ import annotations

from pathlib import Path

from tests.support.fakes import FakeDriver
from venusctl.core.actions import Click, Sequence, Surface, Type
from venusctl.loop.agent import Agent, AgentSettings
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import Recorder, RunInfo
from venusctl.safety.confirm import NonInteractiveConfirmer
from venusctl.safety.guard import AllowAllGuard


def run(tmp_path: Path, answers: list[str], driver: FakeDriver):
    model = ScriptedModel([Completion(text=f"<action>{a}</action>") for a in answers])
    recorder = Recorder(tmp_path / "runs", "task")
    info = RunInfo(recorder.run_id, "task", "desktop", "fake", model.name, recorder.run_dir)
    agent = Agent(driver, model, AllowAllGuard(), NonInteractiveConfirmer(), "SYSTEM", info,
                  AgentSettings(max_steps=4))
    return agent.run()


def desktop() -> FakeDriver:
    return FakeDriver(surface=Surface.DESKTOP)


def test_a_sequence_ending_in_finished_finishes_after_its_children(tmp_path):
    driver = desktop()
    outcome = run(tmp_path, ["Sequence(actions=[Click(box=(0, 0)), Type(content='x'), "
                             "Finished(content='all done')])"], driver)
    assert (outcome.status, outcome.message, outcome.steps) == ("finished", "all done", 1)
    assert len(driver.performed) == 1 and isinstance(driver.performed[0], Sequence)
    assert driver.performed[0].actions[:2] == (Click((0, 0)), Type("x"))


def test_a_sequence_ending_in_call_user_hands_over(tmp_path):
    outcome = run(tmp_path, ["Sequence(actions=[Type(content='x'), CallUser(content='Which "
                             "one?')])"], desktop())
    assert (outcome.status, outcome.exit_code, outcome.message) == (
        "needs_user", 3, "Which one?")


def test_a_failed_sequence_does_not_end_the_run(tmp_path):
    driver = desktop()
    driver.fail_on = {"Sequence"}
    outcome = run(tmp_path, ["Sequence(actions=[Type(content='x'), Finished()])",
                             "Finished(content='second try')"], driver)
    assert (outcome.status, outcome.message, outcome.steps) == ("finished", "second try", 2)
