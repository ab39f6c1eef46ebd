"""A desktop task in a batch: its app started by `setup.app`, used, and ended with it."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.support.cli import venusctl, write_answers
from venusctl.sim.xserver import XServer


def test_setup_app_starts_a_program_the_task_uses_and_stops(tmp_path: Path):
    server = XServer.start(1280, 800)
    try:
        log = tmp_path / "tk.jsonl"
        # the Tk app's Alpha button is at (180, 90): grid (140, 112) with /999
        write_answers(tmp_path / "alpha.jsonl", [
            "<action>Click(box=(140, 112))</action>",
            "<action>Finished(content='pressed Alpha')</action>"])
        path = tmp_path / "desktop.yaml"
        path.write_text(yaml.safe_dump({"tasks": [{
            "id": "alpha", "task": "press the Alpha button", "driver": "desktop",
            "answers": "alpha.jsonl",
            "setup": {"app": f'"$VENUSCTL_PYTHON" -m venusctl.sim.tkapp {log} '
                             "--geometry 800x600+100+50 & echo $! > app.pid; wait"},
            "check": {"shell": f"grep -q '\"widget\": \"alpha\"' {log}"}}]}))
        out = tmp_path / "results.jsonl"
        result = venusctl("batch", str(path), "--out", str(out), "--runs-dir",
                          str(tmp_path / "runs"), env=server.env(), timeout=240)
        assert result.returncode == 0, result.stderr
        (line,) = map(json.loads, out.read_text().splitlines())
        assert line["slot"] == "desktop" and line["passed"], line
        events = [json.loads(x) for x in log.read_text().splitlines()]
        kinds = [(e["event"], e.get("widget")) for e in events]
        assert kinds.index(("command", "alpha")) > kinds.index(("ready", None))
        pid = int((tmp_path / "app.pid").read_text())
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(
            f"/proc/{pid}/status").read_text()  # ended with the task
    finally:
        server.stop()


def test_text_present_reads_what_a_tk_window_shows(tmp_path: Path):
    """Tk publishes nothing on AT-SPI: the check reads the active window's pixels, and
    passes only for the task that made the window show the text."""
    server = XServer.start(1280, 800)
    try:
        # the name field is at (270, 145): grid (211, 181); Save at (470, 145): (367, 181)
        write_answers(tmp_path / "save.jsonl", [
            "<action>Click(box=(211, 181))</action>",
            "<action>Type(content='Lunch Tuesday')</action>",
            "<action>Click(box=(367, 181))</action>",
            "<action>Finished(content='saved')</action>"])
        write_answers(tmp_path / "idle.jsonl", ["<action>Finished(content='saved')</action>"])
        app = (f'"$VENUSCTL_PYTHON" -m venusctl.sim.tkapp {tmp_path}/$VENUSCTL_TASK_ID.log '
               "--geometry 800x600+100+50 & wait")
        tasks = [{"id": name, "task": task, "driver": "desktop", "answers": f"{name}.jsonl",
                  "setup": {"app": app}, "check": {"text_present": "Saved: Lunch Tuesday"}}
                 for name, task in (("save", "save the name Lunch Tuesday"),
                                    ("idle", "look at the window"))]  # not one cached run
        path = tmp_path / "desktop.yaml"
        path.write_text(yaml.safe_dump({"tasks": tasks}))
        out = tmp_path / "results.jsonl"
        result = venusctl("batch", str(path), "--out", str(out), "--runs-dir",
                          str(tmp_path / "runs"), env=server.env(), timeout=300)
        lines = {line["id"]: line for line in map(json.loads, out.read_text().splitlines())}
        assert result.returncode != 0, result.stdout  # one task failed its check
        saved, idle = lines["save"], lines["idle"]
        assert saved["passed"], saved
        (check,) = saved["checks"]
        assert check["passed"] and "read by OCR" in check["detail"], check
        assert not idle["passed"] and not idle["checks"][0]["passed"], idle
        assert "not found in" in idle["checks"][0]["detail"].rsplit(";", 1)[1], idle
    finally:
        server.stop()
