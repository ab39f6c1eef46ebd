"""Batches and evals with real model backends: servers (spread) and one local GGUF."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.integration.model_server.conftest import (  # noqa: F401 - fixtures
    API_KEY,
    grammatical_server,
)
from tests.support.cli import venusctl
from tests.support.tiny_model import grammatical_model, tiny_model  # noqa: F401


def test_tasks_take_turns_on_two_server_urls(grammatical_server, shop, browser_path,  # noqa: F811
                                             tmp_path: Path):
    """Two URLs of the one tiny-model server stand for two machines: each task starts
    on the next server in turn and every answer is counted where it came from."""
    first, second = grammatical_server, grammatical_server + "/v1"
    path = tmp_path / "tasks.yaml"
    path.write_text(yaml.safe_dump({
        "defaults": {"driver": "web", "url": shop.url + "/", "max_steps": 2,
                     "max_tokens": 300, "confirm": "never"},
        "tasks": [{"id": f"t{i}", "task": "open the about page"} for i in range(2)]}))
    out = tmp_path / "results.jsonl"
    # the same task twice on purpose, both asked: the trajectory cache stays off
    result = venusctl("batch", str(path), "--server", first, "--server", second,
                      "--api-key-env", "TINY_KEY", "--yes", "--continue-on-error", "--cache", "off",
                      "--browser-path", browser_path, "--out", str(out),
                      "--runs-dir", str(tmp_path / "runs"),
                      env={"TINY_KEY": API_KEY, "VENUSCTL_SERVER_GRAMMAR": "1"}, timeout=400)
    assert result.returncode in (0, 1), result.stderr[-2000:]
    t0, t1 = (json.loads(line) for line in out.read_text().splitlines())
    used = [t0["attempts"][-1]["servers"], t1["attempts"][-1]["servers"]]
    assert list(used[0]) == [first] and list(used[1]) == [second], used
    for task, counts in zip((t0, t1), used, strict=True):
        info = json.loads((Path(task["run_dir"]) / "run.json").read_text())
        assert info["model"] == "server:http://127.0.0.1:{0}/v1,http://127.0.0.1:{0}/v1".format(
            grammatical_server.rsplit(":", 1)[1])
        steps = (Path(task["run_dir"]) / "steps.jsonl").read_text().splitlines()
        assert sum(counts.values()) >= len(steps) >= 1
    assert API_KEY not in result.stderr + out.read_text()


def test_one_local_gguf_is_shared_by_concurrent_tasks(grammatical_model, shop, browser_path,  # noqa: F811
                                                      tmp_path: Path):
    """Two tasks at once on two browser contexts, one llama.cpp model answering both
    (one answer at a time), each with the browser's action grammar."""
    path = tmp_path / "tasks.yaml"
    path.write_text(yaml.safe_dump({
        "defaults": {"driver": "web", "url": shop.url + "/", "max_steps": 2,
                     "max_tokens": 200, "confirm": "never"},
        "tasks": [{"id": f"t{i}", "task": "open the about page"} for i in range(2)]}))
    out = tmp_path / "results.jsonl"
    result = venusctl("batch", str(path), "--model", str(grammatical_model.model), "--mmproj",
                      str(grammatical_model.mmproj), "--image-min-tokens", "64",
                      "--image-max-tokens", "256", "-j", "2", "--yes", "--continue-on-error",
                      "--cache", "off",  # two asked runs of one task, on purpose
                      "--browser-path", browser_path, "--out", str(out),
                      "--runs-dir", str(tmp_path / "runs"), timeout=400)
    assert result.returncode in (0, 1), result.stderr[-2000:]
    tasks = [json.loads(line) for line in out.read_text().splitlines()]
    assert {t["slot"] for t in tasks} == {"web-1", "web-2"}
    for task in tasks:
        assert task["status"] not in ("model_error", "crashed", "error"), task
        info = json.loads((Path(task["run_dir"]) / "run.json").read_text())
        assert info["model"] == f"llama.cpp/CPU:{grammatical_model.model.name}"  # the backend
        steps = [json.loads(line) for line in
                 (Path(task["run_dir"]) / "steps.jsonl").read_text().splitlines()]
        assert steps and all(s["action"] and s["model"]["completion_tokens"] > 0 for s in steps)


def test_grounding_eval_with_a_local_gguf(tiny_model, tmp_path: Path):  # noqa: F811
    from tests.integration.batch.test_eval_grounding import make_dataset

    root = make_dataset(tmp_path / "data")
    result = venusctl("eval", "grounding", str(root), "--split", "mobile", "--model",
                      str(tiny_model.model), "--mmproj", str(tiny_model.mmproj),
                      "--image-min-tokens", "64", "--image-max-tokens", "256",
                      "--runs-dir", str(tmp_path / "runs"), "--json", timeout=400)
    assert result.returncode == 0, result.stderr[-2000:]
    summary = json.loads(result.stdout)
    assert summary["overall"]["total"] == 3 and summary["unreadable_answers"] == 0  # grammar
    assert summary["model"] == f"llama.cpp/CPU:{tiny_model.model.name}"
