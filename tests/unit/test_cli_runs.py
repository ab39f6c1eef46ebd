"""`venusctl runs` reads records back; bad references are one clear line."""

from __future__ import annotations

import json

from tests.support.fakes import FakeDriver
from venusctl.cli import run_cli
from venusctl.loop.agent import Agent, AgentSettings
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import Recorder, RunInfo
from venusctl.run.observers import RecordObserver
from venusctl.safety.confirm import NonInteractiveConfirmer
from venusctl.safety.guard import AllowAllGuard


def record_run(runs_dir, task: str) -> str:
    model = ScriptedModel([Completion(text="<think>look</think><action>Click(point=(1, 2))"
                                           "</action>"),
                           Completion(text="<action>Finished(content='done')</action>")])
    recorder = Recorder(runs_dir, task)
    info = RunInfo(recorder.run_id, task, "browser", "fake", model.name, recorder.run_dir)
    Agent(FakeDriver(), model, AllowAllGuard(), NonInteractiveConfirmer(), "S", info,
          AgentSettings(), [RecordObserver(recorder)]).run()
    return recorder.run_id


def test_list_and_show(tmp_path, capsys):
    runs = tmp_path / "runs"
    first = record_run(runs, "first task")
    second = record_run(runs, "second task")
    assert run_cli(["runs", "list", "--runs-dir", str(runs), "--json"]) == 0
    listed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["run_id"] for r in listed] == [first, second]
    assert listed[0]["status"] == "finished" and listed[0]["steps"] == 2

    assert run_cli(["runs", "show", "last", "--runs-dir", str(runs)]) == 0
    shown = capsys.readouterr().out
    assert "second task" in shown and "Click(point=(1, 2))" in shown and "look" in shown

    assert run_cli(["runs", "show", first[:20], "--runs-dir", str(runs), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["run"]["task"] == "first task" and len(data["steps"]) == 2


def test_bad_references_are_usage_errors(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert run_cli(["runs", "show", "last", "--runs-dir", str(runs)]) == 2
    assert "no runs recorded yet" in capsys.readouterr().err
    record_run(runs, "a")
    record_run(runs, "b")
    prefix = sorted(p.name for p in runs.iterdir())[0][:8]  # the date both ids start with
    assert run_cli(["runs", "show", prefix, "--runs-dir", str(runs)]) == 2
    assert "matches 2 runs" in capsys.readouterr().err
    assert run_cli(["runs", "show", "zzz", "--runs-dir", str(runs)]) == 2
    assert "no run 'zzz'" in capsys.readouterr().err
    assert run_cli(["replay", "zzz", "--runs-dir", str(runs)]) == 2
