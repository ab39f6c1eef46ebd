"""The simulated desktop: a private X server (Xvfb) with the Venus Test App on it.

    with Desktop(size=(1280, 800)) as desktop:   # Xvfb on a free display, then the app
        desktop.display                          # ":5": point DISPLAY at it
        desktop.app.wait_for(lambda e: e["event"] == "saved")   # what the app received

Xvfb picks a free display itself (`-displayfd`), so several run beside each other
and beside a real desktop. Windows are real X clients: the Tk event logger in
`venusctl.sim.tkapp` and any other program started with `XServer.env()`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venusctl.sim.base import Environment
from venusctl.sim.tools import SimUnavailable, require, require_tk
from venusctl.text import one_line

APP_GEOMETRY = "800x600+100+50"
SMALLEST = (900, 660)  # the app's window at +100+50 fits
STOP_WAIT_S = 10


@dataclass
class XServer:
    """One running Xvfb and the environment that points programs at it."""

    process: subprocess.Popen[bytes]
    display: str
    size: tuple[int, int]

    @classmethod
    def start(cls, width: int = 1920, height: int = 1080, program: str | None = None
              ) -> XServer:
        read, write = os.pipe()
        process = subprocess.Popen(
            [program or require("Xvfb"), "-displayfd", str(write), "-screen", "0",
             f"{width}x{height}x24", "-nolisten", "tcp", "-noreset"],
            pass_fds=(write,), stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            process.kill()
            process.wait(STOP_WAIT_S)
            raise SimUnavailable("Xvfb did not start (it printed no display number)")
        return cls(process, f":{number}", (width, height))

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "DISPLAY": self.display, "XDG_SESSION_TYPE": "x11",
                "LC_ALL": "C.UTF-8", **extra}

    def stop(self) -> None:
        _end(self.process)


@dataclass
class TkApp:
    """The Tk event logger running on a display; `events()` reads what it received."""

    process: subprocess.Popen[bytes]
    log: Path
    widgets: dict[str, list[int]] = field(default_factory=dict)
    window: list[int] = field(default_factory=list)

    @classmethod
    def launch(cls, server: XServer, log: Path, geometry: str = "800x600+100+50") -> TkApp:
        log.touch()
        process = subprocess.Popen(
            [sys.executable, "-m", "venusctl.sim.tkapp", str(log), "--geometry", geometry],
            env=server.env(), stderr=subprocess.PIPE)
        app = cls(process, log)
        try:
            ready = app.wait_for(lambda e: e["event"] == "ready", timeout=20)
        except SimUnavailable:
            app.stop()
            raise
        app.widgets = ready["widgets"]
        app.window = ready["window"]
        return app

    def events(self) -> list[dict[str, Any]]:
        lines = self.log.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def wait_for(self, match: Callable[[dict[str, Any]], bool], timeout: float = 10,
                 count: int = 1) -> dict[str, Any]:
        """The `count`-th event matching, waiting up to `timeout` seconds for it."""
        deadline = time.monotonic() + timeout
        while True:
            found = [e for e in self.events() if match(e)]
            if len(found) >= count:
                return found[count - 1]
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                last = err.strip().splitlines()[-1:] or ["no message"]
                raise SimUnavailable(f"the Tk app exited: {one_line(last[0], 300)}")
            if time.monotonic() > deadline:
                raise SimUnavailable(f"no matching event within {timeout} s; last events: "
                                     f"{one_line(repr(self.events()[-8:]), 2000)}")
            time.sleep(0.02)

    def centre(self, name: str) -> tuple[int, int]:
        """The centre of a widget in root-window (pointer) coordinates."""
        x, y, w, h = self.widgets[name]
        return (x + w // 2, y + h // 2)

    def stop(self) -> None:
        _end(self.process)


class Desktop(Environment):
    """Xvfb of `size` with the Venus Test App at 800x600+100+50; its event log at `log`
    (a temporary file, removed on stop, unless one is given)."""

    kind = "desktop"

    def __init__(self, size: tuple[int, int] = (1280, 800), log: Path | None = None) -> None:
        if size[0] < SMALLEST[0] or size[1] < SMALLEST[1]:
            raise ValueError(f"the desktop must be at least {SMALLEST[0]}x{SMALLEST[1]} "
                             "for the app's window to fit")
        self.size = size
        self.log = log
        self.server: XServer | None = None
        self.app: TkApp | None = None
        self._folder: Path | None = None

    @property
    def display(self) -> str:
        if self.server is None:
            raise RuntimeError("start() the desktop first")
        return self.server.display

    def start(self) -> Desktop:
        require_tk()
        xvfb = require("Xvfb")
        if self.log is None:
            self._folder = Path(tempfile.mkdtemp(prefix="venusctl-desktop-"))
            self.log = self._folder / "tk-events.jsonl"
        try:
            self.server = XServer.start(*self.size, program=xvfb)
            self.app = TkApp.launch(self.server, self.log, geometry=APP_GEOMETRY)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        if self.app is not None:
            self.app.stop()
            self.app = None
        if self.server is not None:
            self.server.stop()
            self.server = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder, self.log = None, None

    def variables(self) -> dict[str, str]:
        return {"DISPLAY": self.display, "XDG_SESSION_TYPE": "x11", "TK_LOG": str(self.log)}

    def summary(self) -> str:
        width, height = self.size
        return (f"the Venus Test App runs on DISPLAY={self.display} ({width}x{height}); try: "
                f"DISPLAY={self.display} venusctl screenshot --driver desktop")

    def problem(self) -> str | None:
        if self.server is not None and self.server.process.poll() is not None:
            return "the X server (Xvfb) stopped"
        if self.app is not None and self.app.process.poll() is not None:
            return "the Venus Test App stopped"
        return None


def _end(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it lingers; always reaped."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(STOP_WAIT_S)
