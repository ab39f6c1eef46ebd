"""The shipped examples, run as a user runs them: the offline suite, the shell scripts."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

from tests.support.cli import venusctl, write_answers

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
BIN = str(Path(sys.executable).parent)


def script(name: str, *args: str, cwd: Path, env: dict[str, str] | None = None,
           timeout: float = 300) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}", **(env or {})}
    return subprocess.run([str(EXAMPLES / name), *args], cwd=cwd, env=environ, text=True,
                          capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)


def test_the_offline_suite_passes_on_web_x_and_phone(browser_path, tmp_path):
    runs = tmp_path / "runs"
    result = venusctl("eval", "suite", str(EXAMPLES / "suite" / "suite.yaml"), "--browser-path",
                      browser_path, "--runs-dir", str(runs), "--json", timeout=400)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["success_rate"] == 1.0 and summary["tasks"] == 5
    per_task = {t["id"]: t for t in summary["per_task"]}
    assert set(per_task) == {"web-about", "web-order", "x-app-save", "phone-note",
                             "phone-note-opened"}
    assert per_task["phone-note"]["steps"] == 5 and per_task["phone-note-opened"]["steps"] == 4
    for task in per_task.values():
        info = json.loads((Path(task["run_dir"]) / "run.json").read_text())
        assert info["outcome"]["status"] == "finished" and task["seconds"] > 0
    drivers = {json.loads((Path(t["run_dir"]) / "run.json").read_text())["driver"]
               for t in per_task.values()}
    assert drivers == {"web", "desktop", "android"}
    record = Path(summary["record"])
    assert json.loads((record / "suite.json").read_text())["passed"] == 5
    assert re.search(r"success rate 100% \(5/5\)", " ".join(result.stderr.split()))
    # the environments are gone: the X server's socket and the adb server's port
    logs = {p.name: p.read_text() for p in record.glob("*-env/env-*.log")}
    display = re.search(r"DISPLAY=:(\d+)", logs["env-x-app.log"]).group(1)
    assert not Path(f"/tmp/.X11-unix/X{display}").exists()
    port = int(re.search(r"ANDROID_ADB_SERVER_PORT=(\d+)", logs["env-phone.log"]).group(1))
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", port)) != 0


def test_nightly_batch_script_runs_then_resumes(browser_path, tmp_path):
    env = {"RESULTS": str(tmp_path / "results.jsonl")}
    # two of the file's tasks share their text; each plays its own answers here
    args = (str(EXAMPLES / "batch" / "shop.yaml"), "-j", "2", "--browser-path", browser_path,
            "--runs-dir", str(tmp_path / "runs"), "--cache", "off")
    first = script("nightly-batch.sh", *args, cwd=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {"passed": 3, "total": 3}
    statuses = [json.loads(line)["status"] for line in (tmp_path / "results.jsonl").open()]
    assert sorted(statuses) == ["finished", "finished", "needs_user"]
    second = script("nightly-batch.sh", *args, cwd=tmp_path, env=env)
    assert second.returncode == 0, second.stderr
    assert "resuming: 3 task(s) already passed, 0 to run" in second.stderr


def test_do_pipeline_script_branches_on_exit_codes(shop, browser_path, tmp_path):
    done = write_answers(tmp_path / "done.jsonl", ["<think>The tab says Shop.</think>"
                                                   "<action>Finished(content='Shop')</action>"])
    # one task asked again and again with other scripted answers: no trajectory cache
    common = ("--browser-path", browser_path, "--runs-dir", str(tmp_path / "runs"),
              "--cache", "off")
    result = script("do-pipeline.sh", shop.url + "/", "--model-file", str(done), *common,
                    cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "page title: Shop", "step 1: Finished(content='Shop')",
        "end: finished after 1 step(s), exit 0"]
    asks = write_answers(tmp_path / "asks.jsonl",
                         ["<action>CallUser(content='Which page do you mean?')</action>"])
    result = script("do-pipeline.sh", shop.url + "/", "--model-file", str(asks), *common,
                    cwd=tmp_path)
    assert result.returncode == 3
    assert "the agent needs a person: Which page do you mean?" in result.stderr
