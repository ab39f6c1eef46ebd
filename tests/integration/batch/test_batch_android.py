"""`venusctl batch` over a pool of simulated phones behind an adb server named HOST:PORT."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.support.cli import venusctl, write_answers
from venusctl.sim.phone.env import PhoneEnv


def note_answers(phone, text: str) -> list[str]:
    field = phone.grid_on("notes", rid="note_field")
    save = phone.grid_on("notes", rid="save")
    return ["<action>LaunchApp(app='Notes')</action>", f"<action>Click(point={field})</action>",
            f"<action>Type(content='{text}')</action>", f"<action>Click(point={save})</action>",
            f"<action>Finished(content='saved {text}')</action>"]


def test_two_phones_on_a_remote_adb_server_run_tasks_side_by_side(
        phone_env: PhoneEnv, tmp_path: Path, monkeypatch):
    second = phone_env.add_phone()
    try:
        # the batch finds the phones through --phone, not through the environment
        monkeypatch.delenv("ANDROID_ADB_SERVER_PORT")
        tasks = []
        for i, text in enumerate(["milk", "eggs", "bread"]):
            answers = write_answers(tmp_path / f"{i}.jsonl", note_answers(phone_env.phone, text))
            tasks.append({"id": text, "task": f"save a note saying {text}",
                          "answers": answers.name, "check": {"text_present": text}})
        tasks.append({"id": "pinned", "task": "save a note saying tea", "answers": "pin.jsonl",
                      "device": second.serial, "check": {
                          "shell": f'test "$ANDROID_SERIAL" = "{second.serial}" && '
                                   f'test "$ANDROID_ADB_SERVER_PORT" = {phone_env.adb_port}'}})
        write_answers(tmp_path / "pin.jsonl", note_answers(second, "tea"))
        path = tmp_path / "phones.yaml"
        path.write_text(yaml.safe_dump({"defaults": {"driver": "android", "max_steps": 6},
                                        "tasks": tasks}))
        out = tmp_path / "results.jsonl"
        result = venusctl("batch", str(path), "--phone", f"@127.0.0.1:{phone_env.adb_port}",
                          "-j", "2", "--out", str(out), "--runs-dir", str(tmp_path / "runs"),
                          env={"ANDROID_ADB_SERVER_PORT": "1"}, timeout=240)
        assert result.returncode == 0, result.stderr
        results = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
        where = f"@127.0.0.1:{phone_env.adb_port}"
        assert {r["slot"] for r in results.values()} == {
            phone_env.serial + where, second.serial + where}
        assert results["pinned"]["slot"] == second.serial + where
        notes = sorted(phone_env.state.notes + second.state.notes)
        assert notes == ["bread", "eggs", "milk", "tea"]
        assert phone_env.state.notes and second.state.notes  # both phones did work
    finally:
        phone_env.server.detach(second)
        second.stop()


def test_a_task_for_a_phone_nobody_has_fails_with_exit_5_in_its_result(
        phone_env: PhoneEnv, tmp_path: Path):
    write_answers(tmp_path / "a.jsonl", ["<action>Finished(content='x')</action>"])
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({"tasks": [
        {"id": "ghost", "task": "anything", "driver": "android", "device": "ghost-1",
         "answers": "a.jsonl"}]}))
    out = tmp_path / "r.jsonl"
    result = venusctl("batch", str(path), "--out", str(out), "--runs-dir", str(tmp_path / "runs"))
    assert result.returncode == 1
    (line,) = map(json.loads, out.read_text().splitlines())
    assert (line["status"], line["exit_code"]) == ("device_error", 5)
    assert "no phone with serial ghost-1" in line["error"]
