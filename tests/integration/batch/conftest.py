"""Batch and eval tests: the shop app, Chromium, remote browsers, simulated phones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.phone_fixtures import adb_server, phone_config, phone_env  # noqa: F401
from tests.support.tools import require

PLAYWRIGHT = str(Path(sys.executable).with_name("playwright"))


def stop(process: subprocess.Popen) -> None:
    """End a process this test started, with everything in its session."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


@pytest.fixture
def browser_server(browser_path: str, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """A Playwright browser server on 127.0.0.1 (`playwright launch-server`): its ws URL."""
    config = tmp_path / "launch-server.json"
    config.write_text(json.dumps({"executablePath": browser_path, "headless": True,
                                  "host": "127.0.0.1", "port": 0}))
    process = subprocess.Popen([PLAYWRIGHT, "launch-server", "--browser", "chromium",
                                "--config", str(config)], stdout=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        line = process.stdout.readline().strip() if process.stdout else ""
        assert line.startswith("ws://127.0.0.1:"), f"launch-server said {line!r}"
        yield line, process
    finally:
        stop(process)


@pytest.fixture
def cdp_browser(browser_path: str, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    """A headless Chromium with a DevTools port on 127.0.0.1: its http URL."""
    profile = tmp_path / "cdp-profile"
    process = subprocess.Popen(
        [require("chromium", "chromium-browser", "google-chrome"), "--headless=new",
         "--no-sandbox", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
         f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 20
        while not (port_file.exists() and port_file.read_text().strip()):
            assert process.poll() is None and time.monotonic() < deadline, "no DevTools port"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port_file.read_text().split()[0]}", process
    finally:
        stop(process)
