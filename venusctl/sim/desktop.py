"""The simulated desktop: a private X server (Xvfb) with the Venus Test App on it.

    with Desktop(size=(1280, 800)) as desktop:   # Xvfb on a free display, then the app
        desktop.display                          # ":5": point DISPLAY at it
        desktop.app.wait_for(lambda e: e["event"] == "saved")   # what the app received

The app (`venusctl.sim.tkapp`) logs every X event it receives, so what an action did
is read from the app itself; its window is 800x600 at +100+50.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from venusctl.sim.base import Environment
from venusctl.sim.tools import require, require_tk
from venusctl.sim.xserver import TkApp, XServer

APP_GEOMETRY = "800x600+100+50"
SMALLEST = (900, 660)  # the app's window at +100+50 fits


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
