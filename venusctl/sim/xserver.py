"""A private X server (Xvfb) and windows on it, for the simulated desktop and tests.

Xvfb picks a free display itself (`-displayfd`), so tests can run beside each other
and beside a real desktop. Windows are real X clients: the Tk event logger in
`venusctl.sim.tkapp` and third-party programs such as xterm.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venusctl.core.text import one_line
from venusctl.sim.tools import SimUnavailable, require

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
    def launch(cls, server: XServer, log: Path, geometry: str = "800x600+100+50",
               scenario: str | None = None) -> TkApp:
        log.touch()
        more = ["--scenario", scenario] if scenario else []
        process = subprocess.Popen(
            [sys.executable, "-m", "venusctl.sim.tkapp", str(log), "--geometry", geometry,
             *more], env=server.env(), stderr=subprocess.PIPE)
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
