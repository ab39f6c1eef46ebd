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
