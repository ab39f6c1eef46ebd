"""A private X server (Xvfb) and windows on it, for desktop tests.

Xvfb picks a free display itself (`-displayfd`), so tests can run beside each other
and beside a real desktop. Windows are real X clients: the Tk event logger in
`tests.support.tkapp` and third-party programs such as xterm.
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

from tests.support.tools import require

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class XServer:
    """One running Xvfb and the environment that points programs at it."""

    process: subprocess.Popen[bytes]
    display: str
    size: tuple[int, int]

    @classmethod
    def start(cls, width: int = 1920, height: int = 1080) -> XServer:
        read, write = os.pipe()
        process = subprocess.Popen(
            [require("Xvfb"), "-displayfd", str(write), "-screen", "0",
             f"{width}x{height}x24", "-nolisten", "tcp", "-noreset"],
            pass_fds=(write,), stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            process.kill()
            raise RuntimeError("Xvfb did not start")
        return cls(process, f":{number}", (width, height))

    def env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "DISPLAY": self.display, "XDG_SESSION_TYPE": "x11",
                "LC_ALL": "C.UTF-8", **extra}

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


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
            [sys.executable, "-m", "tests.support.tkapp", str(log), "--geometry", geometry,
             *more], cwd=ROOT, env=server.env(), stderr=subprocess.PIPE)
        app = cls(process, log)
        ready = app.wait_for(lambda e: e["event"] == "ready", timeout=20)
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
                raise AssertionError(f"the Tk app exited: {err[-2000:]}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no matching event within {timeout} s; "
                                     f"last events: {self.events()[-8:]}")
            time.sleep(0.02)

    def centre(self, name: str) -> tuple[int, int]:
        """The centre of a widget in root-window (pointer) coordinates."""
        x, y, w, h = self.widgets[name]
        return (x + w // 2, y + h // 2)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def wait_until(check: Callable[[], Any], timeout: float = 10, what: str = "condition") -> Any:
    """Poll `check` until it returns something true; fail the test after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def input_state(server: XServer) -> tuple[set[str], int]:
    """What the X server itself holds down now: key names and the button mask.

    Read on a fresh connection, so it reports the server's state, not any client's.
    """
    from Xlib import XK, display

    conn = display.Display(server.display)
    try:
        keymap = conn.query_keymap()
        codes = {byte * 8 + bit for byte, value in enumerate(keymap) for bit in range(8)
                 if value & (1 << bit)}
        by_keysym = {getattr(XK, n): n[3:] for n in dir(XK) if n.startswith("XK_")}
        names = {by_keysym.get(conn.keycode_to_keysym(code, 0), str(code)) for code in codes}
        mask = conn.screen().root.query_pointer().mask
        buttons = mask & 0x1F00  # Button1Mask .. Button5Mask
        return names, buttons
    finally:
        conn.close()
