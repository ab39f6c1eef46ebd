"""A batch's web tasks share their worker's Chromium, each in a fresh context: counted
from /proc while real batches run against a page that remembers what it can."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from tests.support.cli import VENUSCTL, write_answers
from tests.support.processes import browsers_below, descendants, wait_gone

# The page says what this browser context remembers from before, then leaves a
# cookie and local storage behind for whoever comes next (its server sets a cookie
# too); the whole page is a link.
PAGE = """<!doctype html><title>Memory</title>
<a href="/crash" style="display:block;width:100vw;height:100vh">
<p id="seen"></p></a>
<script>
  const kept = localStorage.getItem('mark') || 'none';
  const cookie = document.cookie.split('; ').filter(c => c.startsWith('mark='));
  document.getElementById('seen').textContent =
    'storage: ' + kept + '; cookie: ' + (cookie[0] || 'none');
  localStorage.setItem('mark', 'left-by-' + Date.now());
  document.cookie = 'mark=left; max-age=3600; path=/';
</script>"""
FRESH = "storage: none; cookie: none"
LOOK = ["<action>Finished(content='looked')</action>"]
CLICK = ["<action>Click(point=(500, 500))</action>",
         "<action>Finished(content='clicked')</action>"]


class MemorySite:
    """The page above; it notes the Cookie header of every request and, at each page
    load, the browser processes under the batch (`batch_pid`). `/crash` kills them."""

    def __init__(self) -> None:
        self.batch_pid = 0
        self.cookies: list[str] = []
        self.browsers: list[set[int]] = []
        self.seen: dict[int, list[str]] = {}
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return None

            def do_GET(self) -> None:
                if self.path == "/favicon.ico":
                    self.send_error(404)
                    return
                site.note(self.headers.get("Cookie") or "")
                if self.path.startswith("/crash"):
                    site.kill_browsers()
                body = PAGE.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Set-Cookie", "served=1; Max-Age=3600; Path=/")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler

    def note(self, cookie: str) -> None:
        below = descendants(self.batch_pid)
        with self.lock:
            self.cookies.append(cookie)
            self.browsers.append(browsers_below(self.batch_pid))
            self.seen.update(below)

    def kill_browsers(self) -> None:
        for pid in browsers_below(self.batch_pid):
            os.kill(pid, signal.SIGKILL)

    def all_browsers(self) -> set[int]:
        return set().union(*self.browsers)

    def __enter__(self) -> MemorySite:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def site() -> Iterator[MemorySite]:
    with MemorySite() as memory:
        yield memory


def task_file(tmp_path: Path, url: str, tasks: list[tuple[str, list[str], str | None]]) -> Path:
    entries = []
    for task_id, answers, check in tasks:
        write_answers(tmp_path / f"{task_id}.jsonl", answers)
        entry = {"id": task_id, "task": f"look at the page ({task_id})",
                 "answers": f"{task_id}.jsonl"}
        if check:
            entry["check"] = {"text_present": check}
        entries.append(entry)
    path = tmp_path / "tasks.yaml"
    path.write_text(yaml.safe_dump({"name": "memory", "defaults": {
        "driver": "web", "url": url, "viewport": "800x600", "max_steps": 6}, "tasks": entries}))
    return path


def start_batch(site: MemorySite, tmp_path: Path, path: Path, browser_path: str,
                *extra: str) -> subprocess.Popen[str]:
    """`venusctl batch` in its own process group (so a Ctrl-C can go to that group,
    as a terminal sends it); the site watches the processes below it."""
    process = subprocess.Popen(
        [VENUSCTL, "batch", str(path), "--browser-path", browser_path, "--cache", "off",
         "--runs-dir", str(tmp_path / "runs"), "--out", str(tmp_path / "results.jsonl"),
         *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        stdin=subprocess.DEVNULL, start_new_session=True)
    site.batch_pid = process.pid
    return process


def results(tmp_path: Path) -> dict[str, dict]:
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    return {item["id"]: item for item in map(json.loads, lines)}


def test_one_browser_serves_the_batch_and_no_task_sees_anothers_cookies_or_storage(
        site, browser_path, tmp_path):
    path = task_file(tmp_path, site.url, [(f"look-{i}", LOOK, FRESH) for i in range(3)])
    process = start_batch(site, tmp_path, path, browser_path)
    _, stderr = process.communicate(timeout=240)
    assert process.returncode == 0, stderr
    # every task found the page as a new visitor would: its check read FRESH
    assert all(item["passed"] for item in results(tmp_path).values())
    assert site.cookies == ["", "", ""]  # no request carried an earlier task's cookie
    # one Chromium, started once, served all three tasks
    assert len(site.browsers) == 3 and all(len(seen) == 1 for seen in site.browsers)
    assert len(site.all_browsers()) == 1
    # and nothing venusctl started is left running
    assert site.seen and not wait_gone(site.seen), site.seen


def test_with_two_workers_each_keeps_one_browser(site, browser_path, tmp_path):
    path = task_file(tmp_path, site.url, [(f"look-{i}", LOOK, FRESH) for i in range(4)])
    process = start_batch(site, tmp_path, path, browser_path, "-j", "2")
    _, stderr = process.communicate(timeout=240)
    assert process.returncode == 0, stderr
    assert {item["slot"] for item in results(tmp_path).values()} <= {"web-1", "web-2"}
    assert site.cookies == [""] * 4
    assert 1 <= len(site.all_browsers()) <= 2  # four tasks, at most one browser per worker
    assert not wait_gone(site.seen), site.seen


def test_a_crashed_browser_is_started_again_and_the_task_that_lost_it_says_so(
        site, browser_path, tmp_path):
    path = task_file(tmp_path, site.url, [("crash", CLICK, None), ("after", LOOK, FRESH)])
    process = start_batch(site, tmp_path, path, browser_path, "--continue-on-error")
    _, stderr = process.communicate(timeout=240)
    assert process.returncode == 1, stderr
    crash, after = results(tmp_path)["crash"], results(tmp_path)["after"]
    assert not crash["passed"] and crash["exit_code"] == 5
    assert "the batch's browser stopped during this task" in crash["error"]
    assert "Traceback" not in stderr and "FAIL crash" in stderr
    assert after["passed"], after
    assert len(site.all_browsers()) == 2  # the second is the one started again
    assert not wait_gone(site.seen), site.seen


def test_ctrl_c_stops_the_task_and_leaves_no_browser_running(site, browser_path, tmp_path):
    waits = ["<action>Wait()</action>"] * 8 + ["<action>Finished(content='done')</action>"]
    path = task_file(tmp_path, site.url, [("slow", waits, None), ("never", LOOK, None)])
    process = start_batch(site, tmp_path, path, browser_path)
    deadline = time.monotonic() + 120
    while not any(p.read_text() for p in (tmp_path / "runs").glob("*/steps.jsonl")):
        assert time.monotonic() < deadline and process.poll() is None, process.stderr.read()
        time.sleep(0.1)
    running = descendants(process.pid)
    assert browsers_below(process.pid), running
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr
    slow = results(tmp_path)["slow"]
    assert (slow["status"], slow["exit_code"]) == ("interrupted", 130), slow
    assert "Traceback" not in stderr
    assert not wait_gone({**running, **site.seen}), running
