"""Closing the browser in bounded time, and Ctrl-C that never lands inside Playwright,
against real Chromium and Playwright's real driver process."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from drivers.web.shutdown import CloseWatchdog, playwright_drivers
from tests.integration.web.test_do_web import _start_long_run


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_watchdog_ends_a_playwright_driver_that_stopped_answering(browser_path):
    from playwright.sync_api import sync_playwright

    manager = sync_playwright()
    playwright = manager.start()
    try:
        browser = playwright.chromium.launch(executable_path=browser_path)
        page = browser.new_page()
        drivers = playwright_drivers()
        assert len(drivers) == 1  # Playwright's Node driver, found among our children
        started = time.monotonic()
        with CloseWatchdog(limit_s=1.0), pytest.raises(Exception):  # noqa: B017
            page.evaluate("() => new Promise(() => {})")  # an answer that never comes
        assert time.monotonic() - started < 10
        assert not any(_alive(pid) for pid in drivers)
    finally:
        manager.__exit__(None, None, None)  # returns at once: the pipe is already broken


def test_a_watchdog_that_is_not_needed_ends_nothing(browser_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_path)
        with CloseWatchdog(limit_s=0.5):
            browser.close()
        time.sleep(1.0)  # past the limit: a timer left running would have fired by now
        assert len(playwright_drivers()) == 1
        playwright.chromium.launch(executable_path=browser_path).close()  # it still answers


def test_ctrl_c_twice_still_ends_the_run_and_the_browser(shop, browser_path, tmp_path):
    process, run = _start_long_run(shop, browser_path, tmp_path)
    process.send_signal(signal.SIGINT)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert json.loads((run / "run.json").read_text())["outcome"]["status"] == "interrupted"
    profile = f"--user-data-dir={tmp_path / 'profile'}"
    deadline = time.monotonic() + 10
    while subprocess.run(["pgrep", "-f", "--", profile], capture_output=True).returncode == 0:
        assert time.monotonic() < deadline, "Chromium outlived the interrupted run"
        time.sleep(0.2)
