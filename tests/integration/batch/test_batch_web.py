"""`venusctl batch` on real Chromium against the shop app, with the scripted model."""

from __future__ import annotations

import itertools
import json
import signal
import time
from pathlib import Path

import yaml

from tests.support.cli import start, venusctl, write_answers

ABOUT = ["<think>The About link.</think><action>Click(point=(105, 513))</action>",
         "<action>Finished(content='This is the about page')</action>"]
ORDER = ["<action>Click(point=(234, 150))</action>",
         "<action>Type(content='Ada Lovelace')</action>",
         "<action>Click(point=(161, 414))</action>",
         "<action>Finished(content='Ordered for Ada')</action>"]


def task_file(tmp_path: Path, shop_url: str, tasks: list[dict], **defaults) -> Path:
    """A YAML task file; each task's `answers` list becomes a JSON-lines file beside it."""
    for task in tasks:
        if isinstance(task.get("answers"), list):
            name = f"{task['id']}.answers.jsonl"
            write_answers(tmp_path / name, task["answers"])
            task["answers"] = name
    path = tmp_path / "tasks.yaml"
    path.write_text(yaml.safe_dump({
        # the scripted answers point at the shop as laid out in a 1280x800 viewport
        "name": "shop", "defaults": {"driver": "web", "url": shop_url + "/",
                                     "viewport": "1280x800", **defaults},
        "tasks": tasks}, sort_keys=False))
    return path


def batch(tmp_path: Path, path: Path, browser_path: str, *extra: str):
    """These batches repeat one task on purpose (retries, several contexts), each run
    played from its own answers: the trajectory cache stays off (tested elsewhere)."""
    return venusctl("batch", str(path), "--browser-path", browser_path, "--cache", "off",
                    "--runs-dir", str(tmp_path / "runs"), *extra, timeout=240)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def run_info(result: dict) -> dict:
    return json.loads((Path(result["run_dir"]) / "run.json").read_text())


def test_parallel_batch_results_summary_exit_code_and_resume(shop, browser_path, tmp_path):
    path = task_file(tmp_path, shop.url, [
        {"id": "about", "task": "open the about page", "answers": ABOUT,
         "check": {"url_matches": "/about$", "text_present": "About this shop"}},
        {"id": "order", "task": "order one for Ada Lovelace", "answers": ORDER,
         "allow_categories": ["payment"],
         "check": [{"answer_matches": "Ada"},
                   {"shell": 'test -f "$VENUSCTL_RUN_DIR/run.json" && '
                             'test "$VENUSCTL_URL" = "$VENUSCTL_START_URL"order'}]},
        {"id": "gated", "task": "order one for Ada Lovelace", "answers": ORDER,
         "expect_exit": 3},
        {"id": "wrong-page", "task": "open the about page", "answers": ABOUT,
         "check": {"url_matches": "/offers$"}},
    ])
    out = tmp_path / "results.jsonl"
    result = batch(tmp_path, path, browser_path, "--concurrency", "2", "--continue-on-error",
                   "--out", str(out), "--json")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr

    results = {r["id"]: r for r in lines(out)}
    assert {k: r["passed"] for k, r in results.items()} == {
        "about": True, "order": True, "gated": True, "wrong-page": False}
    assert results["order"]["answer"] == "Ordered for Ada"
    assert results["gated"]["status"] == "needs_user" and results["gated"]["exit_code"] == 3
    assert shop.state.orders == [{"name": "Ada Lovelace", "colour": "Red"}]  # gated: none
    failed = results["wrong-page"]["checks"][0]
    assert failed["passed"] is False and failed["detail"].endswith("/about")
    # every result links its run record, which says which batch task it was
    for task_id, item in results.items():
        info = run_info(item)
        assert info["settings"]["task_id"] == task_id
        assert info["settings"]["slot"] == item["slot"]
    # two browser contexts worked at the same time
    assert {r["slot"] for r in results.values()} == {"web-1", "web-2"}
    spans = sorted((run_info(r)["started_at"], run_info(r)["outcome"]["ended_at"])
                   for r in results.values())
    assert any(later[0] < earlier[1] for earlier, later in itertools.pairwise(spans))

    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["event"] for e in events] == ["task"] * 4 + ["summary"]
    assert events[-1] | {"seconds": 0} == events[-1] | {
        "total": 4, "passed": 3, "failed": 1, "skipped": 0, "exit_code": 1, "seconds": 0}
    assert "3/4 passed (75%)" in result.stderr and "FAIL wrong-page" in result.stderr

    # --resume: only the task that did not pass runs again
    again = tmp_path / "again.jsonl"
    runs_before = set((tmp_path / "runs").iterdir())
    second = batch(tmp_path, path, browser_path, "--resume", str(out), "--out", str(again))
    assert second.returncode == 1, second.stderr
    new_runs = [p for p in (tmp_path / "runs").iterdir()
                if p not in runs_before and (p / "run.json").exists()]
    assert len(new_runs) == 1 and json.loads((new_runs[0] / "run.json").read_text())[
        "settings"]["task_id"] == "wrong-page"
    resumed = {r["id"]: r["resumed"] for r in lines(again)}
    assert resumed == {"about": True, "order": True, "gated": True, "wrong-page": False}
    assert "resuming: 3 task(s) already passed, 1 to run" in second.stderr


def test_without_continue_on_error_the_rest_is_skipped_and_retry_reruns(
        shop, browser_path, tmp_path):
    marker = tmp_path / "second-try"
    path = task_file(tmp_path, shop.url, [
        {"id": "flaky", "task": "open the about page", "answers": ABOUT,
         "check": {"shell": f'test -f {marker} || {{ touch {marker}; exit 1; }}'}},
        {"id": "broken", "task": "open the about page", "answers": ABOUT,
         "check": {"file_exists": "never-made.txt"}},
        {"id": "later", "task": "open the about page", "answers": ABOUT},
    ])
    out = tmp_path / "results.jsonl"
    result = batch(tmp_path, path, browser_path, "--retry", "1", "--out", str(out))
    assert result.returncode == 1, result.stderr
    flaky, broken, later = lines(out)
    assert flaky["passed"] and len(flaky["attempts"]) == 2
    assert flaky["attempts"][0]["run_dir"] != flaky["attempts"][1]["run_dir"]
    assert not broken["passed"] and len(broken["attempts"]) == 2
    assert later["status"] == "skipped" and "task 'broken' failed" in later["error"]
    assert "SKIP later" in result.stderr


def test_every_task_passing_is_exit_0_and_default_results_live_with_the_runs(
        shop, browser_path, tmp_path):
    path = task_file(tmp_path, shop.url, [
        {"id": "about", "task": "open the about page", "answers": ABOUT}])
    result = batch(tmp_path, path, browser_path)
    assert result.returncode == 0, result.stderr
    (out,) = (tmp_path / "runs" / "batches").glob("batch-*.jsonl")
    assert lines(out)[0]["passed"] and f"results: {out}" in " ".join(result.stderr.split())


def test_a_bad_task_file_is_exit_2_before_anything_runs(shop, browser_path, tmp_path):
    path = task_file(tmp_path, shop.url, [
        {"id": "a", "task": "open the about page", "answers": ABOUT, "colour": "red"}])
    result = batch(tmp_path, path, browser_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "unknown key colour" in result.stderr
    never = task_file(tmp_path, shop.url, [
        {"id": "a", "task": "open the about page", "answers": ABOUT, "confirm": "never"}])
    result = batch(tmp_path, never, browser_path)
    assert result.returncode == 2 and "pass --yes to venusctl batch" in result.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").glob("*/run.json"))


def test_contexts_on_a_browser_server_and_a_cdp_endpoint(
        shop, browser_path, tmp_path, browser_server, cdp_browser):
    ws_url, server_process = browser_server
    cdp_url, cdp_process = cdp_browser
    path = task_file(tmp_path, shop.url, [
        {"id": f"about-{i}", "task": "open the about page", "answers": ABOUT,
         "check": {"url_matches": "/about$"}} for i in range(3)])
    out = tmp_path / "results.jsonl"
    result = batch(tmp_path, path, browser_path, "--browser-server", ws_url, "--cdp", cdp_url,
                   "--concurrency", "2", "--out", str(out))
    assert result.returncode == 0, result.stderr
    slots = {r["slot"] for r in lines(out)}
    assert slots == {f"web-1 ({ws_url})", f"web-2 ({cdp_url})"}
    assert shop.state.visits.count("/about") == 3
    # closing a task's context leaves the browsers other people run alive
    assert server_process.poll() is None and cdp_process.poll() is None


def test_an_interrupted_batch_keeps_what_ended_and_resume_runs_the_rest(
        shop, browser_path, tmp_path):
    slow = ["<action>Wait()</action>"] * 4 + ["<action>Finished(content='waited')</action>"]
    path = task_file(tmp_path, shop.url, [
        {"id": "slow", "task": "wait a while", "answers": slow, "max_steps": 10},
        {"id": "after", "task": "open the about page", "answers": ABOUT}])
    out = tmp_path / "results.jsonl"
    process = start("batch", str(path), "--browser-path", browser_path, "--out", str(out),
                    "--runs-dir", str(tmp_path / "runs"), "--cache", "off")
    runs = tmp_path / "runs"
    deadline = time.monotonic() + 60
    while not any(runs.glob("*/steps.jsonl")) or not any(
            p.read_text() for p in runs.glob("*/steps.jsonl")):
        assert time.monotonic() < deadline and process.poll() is None, process.stderr.read()
        time.sleep(0.1)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "--resume the results file" in stderr and "Traceback" not in stderr
    (line,) = lines(out)
    assert (line["id"], line["status"], line["exit_code"]) == ("slow", "interrupted", 130)
    assert json.loads((Path(line["run_dir"]) / "run.json").read_text())["outcome"][
        "status"] == "interrupted"
    again = batch(tmp_path, path, browser_path, "--resume", str(out), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert [(r["id"], r["passed"]) for r in lines(out)] == [("slow", True), ("after", True)]
