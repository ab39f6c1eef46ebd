"""The trajectory cache in `venusctl batch`: stored only when the checks pass, replayed
next time, and a task's own `cache:` keeps it out."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.support.cli import venusctl
from tests.support.script_server import ScriptServer

TASK = "Open the About page."
ABOUT = ["<think>The About link.</think><action>Click(point=(137, 535))</action>",
         "<think>It is open.</think><action>Finished(content='The About page is open')</action>"]


def task_file(tmp_path: Path, shop_url: str, check: dict, **task) -> Path:
    path = tmp_path / "tasks.yaml"
    path.write_text(yaml.safe_dump({"tasks": [
        {"id": "about", "task": TASK, "driver": "web", "url": shop_url + "/", "check": check,
         **task}]}))
    return path


def batch(tmp_path: Path, path: Path, browser_path: str, model: ScriptServer, name: str):
    out = tmp_path / f"{name}.jsonl"
    result = venusctl("batch", str(path), "--browser-path", browser_path, "--server", model.url,
                      "--runs-dir", str(tmp_path / "runs"), "--out", str(out), timeout=240)
    (line,) = [json.loads(text) for text in out.read_text().splitlines()]
    return result, line


def test_only_a_task_whose_checks_pass_is_replayed_next_time(shop, browser_path, tmp_path):
    with ScriptServer({TASK: ABOUT}) as model:
        wrong = task_file(tmp_path, shop.url, {"text_present": "No such text anywhere"})
        result, line = batch(tmp_path, wrong, browser_path, model, "failed")
        assert result.returncode == 1 and line["status"] == "finished" and not line["passed"]
        assert venusctl("cache", "list", "--json").stdout == ""  # finished, but not right

        right = task_file(tmp_path, shop.url, {"text_present": "About this shop"})
        result, line = batch(tmp_path, right, browser_path, model, "passed")
        assert result.returncode == 0 and line["passed"] and line["replayed"] == 0
        assert len(model.asked) == 4

        result, line = batch(tmp_path, right, browser_path, model, "replayed")
        assert result.returncode == 0 and line["passed"]
        assert line["replayed"] == 2 and line["attempts"][0]["replayed"] == 2
        assert len(model.asked) == 4  # the model was not asked again
        assert "(2 replayed)" in result.stderr
        info = json.loads((Path(line["run_dir"]) / "run.json").read_text())
        assert info["settings"]["cache"] == "on"

        kept_out = task_file(tmp_path, shop.url, {"text_present": "About this shop"},
                             cache="off")
        result, line = batch(tmp_path, kept_out, browser_path, model, "kept-out")
        assert result.returncode == 0 and line["replayed"] == 0 and len(model.asked) == 6
