"""Run records are versioned (`schema`) and read back typed, old ones included."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.fakes import png
from venusctl.cli import run_cli
from venusctl.core.errors import ExitCode, UsageError
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import Screen
from venusctl.present.report import build_html
from venusctl.records.schema import SCHEMA, RecordedOutcome
from venusctl.records.store import Outcome, Recorder, RunInfo, StepRecord, load_run
from venusctl.run.replay import recorded_answers

OLD = Path(__file__).parents[1] / "corpus" / "records" / "before-schema"
OLD_ID = "20261130-155437-open-the-about-page-46e7"


@pytest.fixture
def old_run(tmp_path) -> Path:
    runs = tmp_path / "runs"
    shutil.copytree(OLD, runs, ignore=shutil.ignore_patterns("*.txt"))
    return runs / OLD_ID


def test_new_records_carry_the_schema_in_run_json_and_every_step(tmp_path):
    recorder = Recorder(tmp_path, "t")
    recorder.start(RunInfo(recorder.run_id, "t", "browser", "web", "m", recorder.run_dir))
    step = StepRecord(step=1, started_at=1.0, screen_size=(4, 2), thought="look",
                      action="Click(point=(1, 2))", element={"role": "link", "name": "A"},
                      targets=[{"where": [1, 2]}], verdict={"decision": "allow"},
                      timings={"model": 0.5}, source="replayed",
                      screen=Screen(png(4, 2), "image/png", ScreenSize(4, 2)))
    recorder.step(step)
    recorder.finish(Outcome("finished", ExitCode.FINISHED, "ok", steps=1))
    assert json.loads((recorder.run_dir / "run.json").read_text())["schema"] == SCHEMA
    lines = (recorder.run_dir / "steps.jsonl").read_text().splitlines()
    assert [json.loads(line)["schema"] for line in lines] == [SCHEMA]

    stored = load_run(recorder.run_dir)
    assert stored.record.schema == SCHEMA and stored.record.task == "t"
    assert stored.outcome == RecordedOutcome("finished", 0, "ok", 1, stored.outcome.ended_at)
    [back] = stored.steps()
    step.screen = None
    assert back == step  # every field round-trips, typed (the tuple is a tuple again)
    assert back.screen_size == (4, 2)


def test_a_record_from_before_the_schema_still_reads(old_run):
    stored = load_run(old_run)
    assert stored.record.schema == 0
    assert (stored.run_id, stored.record.task, stored.record.surface) == (
        OLD_ID, "open the about page", "browser")
    assert stored.record.settings == {"url": "http://127.0.0.1:8000/", "max_steps": 5}
    assert (stored.outcome.status, stored.outcome.exit_code, stored.outcome.steps) == (
        "finished", 0, 2)
    first, second = stored.steps()
    assert first.screen_size == (320, 200) and first.element == {
        "role": "link", "name": "About", "bounds": [100, 60, 120, 40]}
    assert (first.targets, first.requests, first.source) == ([], [], "asked")  # came later
    assert second.rejected == ["Clik(point=(1, 2))"] and second.image == "step-002.png"
    answers = recorded_answers(stored)
    assert [a.text for a in answers][1:] == ["Clik(point=(1, 2))",
                                              "<action>Finished(content='on the about page')"
                                              "</action>"]


def test_old_records_show_and_report(old_run, capsys):
    assert run_cli(["runs", "show", "last", "--runs-dir", str(old_run.parent)]) == 0
    shown = capsys.readouterr().out
    assert "open the about page" in shown and "Click(point=(500, 400))" in shown
    assert "(exit 0)" in shown
    html = build_html(load_run(old_run))
    assert "link &#39;About&#39;" in html and "click point (500, 400)" in html
    assert html.count('src="data:image/jpeg;base64,') == 2


def test_a_record_from_a_newer_venusctl_is_refused_in_one_line(old_run):
    data = json.loads((old_run / "run.json").read_text())
    (old_run / "run.json").write_text(json.dumps({**data, "schema": SCHEMA + 1}))
    with pytest.raises(UsageError, match=r"newer venusctl \(record schema 2; this one reads "
                                         r"up to 1\): upgrade venusctl"):
        load_run(old_run)
    (old_run / "run.json").write_text(json.dumps({**data, "schema": "one"}))
    with pytest.raises(UsageError, match="damaged: schema 'one' is not a version number"):
        load_run(old_run)


def test_values_of_the_wrong_type_read_as_defaults(old_run):
    steps = old_run / "steps.jsonl"
    first = json.loads(steps.read_text().splitlines()[0])
    first.update(thought=["not", "text"], screen_size=[1, "x"], element="a string",
                 timings=None, model=[], unknown_field=1, step="7")
    steps.write_text(json.dumps(first) + "\n{cut sho")
    data = json.loads((old_run / "run.json").read_text())
    data.update(started_at="yesterday", outcome="finished", settings=None)
    (old_run / "run.json").write_text(json.dumps(data))
    stored = load_run(old_run)
    assert (stored.record.started_at, stored.outcome, stored.record.settings) == (
        None, RecordedOutcome(), {})
    [step] = stored.steps()  # the line cut short is skipped
    assert (step.thought, step.screen_size, step.element, step.timings, step.model) == (
        "", None, None, {}, {})
    assert step.step == 0 and step.action == "Click(point=(500, 400))"
