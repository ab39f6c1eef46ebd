"""A batch whose model is behind OpenAI-compatible servers: requests spread across them."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.integration.model_server.conftest import API_KEY, llama_server  # noqa: F401
from tests.support.cli import venusctl
from tests.support.tiny_model import tiny_model  # noqa: F401


def test_tasks_take_turns_on_two_server_urls(llama_server, shop, browser_path,  # noqa: F811
                                             tmp_path: Path):
    """Two URLs of the one tiny-model server stand for two machines: each task starts
    on the next server in turn and every answer is counted where it came from."""
    first, second = llama_server, llama_server + "/v1"
    path = tmp_path / "tasks.yaml"
    path.write_text(yaml.safe_dump({
        "defaults": {"driver": "web", "url": shop.url + "/", "max_steps": 2,
                     "max_tokens": 300, "confirm": "never"},
        "tasks": [{"id": f"t{i}", "task": "open the about page"} for i in range(2)]}))
    out = tmp_path / "results.jsonl"
    result = venusctl("batch", str(path), "--server", first, "--server", second,
                      "--api-key-env", "TINY_KEY", "--yes", "--continue-on-error",
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
            llama_server.rsplit(":", 1)[1])
        steps = (Path(task["run_dir"]) / "steps.jsonl").read_text().splitlines()
        assert sum(counts.values()) >= len(steps) >= 1
    assert API_KEY not in result.stderr + out.read_text()
