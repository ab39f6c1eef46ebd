"""Desktop tests share one Xvfb: pyautogui binds to DISPLAY when first imported."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from venusctl.sim.xserver import TkApp, XServer


@pytest.fixture(scope="session")
def xserver() -> Iterator[XServer]:
    server = XServer.start(1920, 1080)
    saved = {key: os.environ.get(key) for key in ("DISPLAY", "XDG_SESSION_TYPE")}
    os.environ["DISPLAY"] = server.display
    os.environ["XDG_SESSION_TYPE"] = "x11"
    try:
        yield server
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        server.stop()


@pytest.fixture
def tkapp(xserver: XServer, tmp_path: Path) -> Iterator[TkApp]:
    app = TkApp.launch(xserver, tmp_path / "events.jsonl")
    try:
        yield app
    finally:
        app.stop()


@pytest.fixture
def driver(xserver: XServer) -> Iterator[object]:
    from venusctl.drivers.desktop.driver import DesktopDriver, DesktopOptions

    opened = DesktopDriver(DesktopOptions())
    try:
        yield opened
    finally:
        opened.close()
        gui = opened.input.gui  # leave no test's pointer on a fail-safe corner
        gui.FAILSAFE = False
        gui.moveTo(960, 540)
        gui.FAILSAFE = True
