"""Windows for desktop safety tests: GTK scenarios on a private accessibility bus, Tk
scenarios (no accessibility at all) and xterm running a shell in a scratch home.

Each app reports where its widgets are and what it did (its effects) in a JSON-lines
log; a terminal's shell appends a line to `~/.prompts` each time it shows a prompt,
so a test knows whether a typed command ran.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.tools import ROOT, require
from tests.support.x11 import wait_until
from venusctl.sim.xserver import TkApp, XServer

SYSTEM_PYTHON = "/usr/bin/python3"
BARRIER = "_VENUSCTL_BARRIER"  # the property both apps answer (gtkapp.py, venusctl/sim/tkapp.py)
GTK_CHECK = "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk"


@contextmanager
def session_bus() -> Iterator[str]:
    """A private D-Bus session bus; GTK starts the accessibility bus on it when it needs one."""
    read, write = os.pipe()
    daemon = subprocess.Popen(
        [require("dbus-daemon"), "--session", "--nofork", f"--print-address={write}"],
        pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        address = pipe.readline().strip()
    try:
        yield address
    finally:
        daemon.terminate()
        daemon.wait(10)


def require_gtk() -> None:
    checked = subprocess.run([require(SYSTEM_PYTHON), "-c", GTK_CHECK], capture_output=True,
                             check=False)
    if checked.returncode != 0:
        raise AssertionError("GTK 3 for the system Python is missing; run scripts/test.sh (it "
                             "installs python3-gi and gir1.2-gtk-3.0)")


@dataclass
class LoggedApp:
    """An app process writing JSON lines: `ready` (widget boxes), `effect`, `menu`."""

    process: subprocess.Popen[bytes]
    log: Path

    def events(self) -> list[dict[str, Any]]:
        lines = self.log.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def widgets(self) -> dict[str, list[int]]:
        """The latest known box of every named widget (menus report theirs when shown)."""
        boxes: dict[str, list[int]] = {}
        for event in self.events():
            if event["event"] == "ready":
                boxes.update(event["widgets"])
            elif event["event"] == "menu":
                boxes.update({f"menu_{k}": v for k, v in event["entries"].items()})
        return boxes

    def effects(self) -> list[str]:
        return [e["effect"] for e in self.events() if e["event"] == "effect"]

    def handled_earlier_input(self, server: XServer, timeout: float = 30) -> None:
        """Return once the app has handled every event the X server had for it before
        this call, and logged what those events did.

        Sets a property on the app's window; the server queues the change notice after
        every event it already queued for the app, and the app logs `barrier` when it
        reaches it. A test that must show something did *not* happen waits for this
        instead of waiting a while."""
        xid = next(e["xid"] for e in self.events() if e["event"] == "ready" and "xid" in e)
        before = self._barriers()
        subprocess.run([require("xprop"), "-id", str(xid), "-f", BARRIER, "8s", "-set", BARRIER,
                        str(before)], env=server.env(), check=True, capture_output=True,
                       timeout=timeout)
        wait_until(lambda: self._barriers() > before, timeout,
                   "the app to handle the input it was sent")

    def _barriers(self) -> int:
        return sum(1 for e in self.events() if e["event"] == "barrier")

    def wait_ready(self, timeout: float = 30) -> None:
        def ready() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(f"the app exited with {self.process.returncode}")
            return any(e["event"] == "ready" for e in self.events())
        wait_until(ready, timeout, "the app to show its window")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def launch_gtk(server: XServer, scenario: str, log: Path, bus: str) -> LoggedApp:
    log.touch()
    process = subprocess.Popen(
        [SYSTEM_PYTHON, str(ROOT / "tests/support/gtkapp.py"), scenario, str(log)],
        env=server.env(DBUS_SESSION_BUS_ADDRESS=bus), stderr=None)
    app = LoggedApp(process, log)
    app.wait_ready()
    wait_until(lambda: on_accessibility_bus(process.pid, bus), 30, "the app on the AT-SPI bus")
    return app


def on_accessibility_bus(pid: int, bus: str) -> bool:
    """Whether the process has a showing window on the accessibility bus of `bus`."""
    from venusctl.drivers.desktop.atspi import ROOT_PATH, STATE_SHOWING, open_atspi

    saved = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = bus
    try:
        atspi = open_atspi()
    finally:
        if saved is None:
            os.environ.pop("DBUS_SESSION_BUS_ADDRESS")
        else:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = saved
    if atspi is None:
        return False
    try:
        apps = atspi._children(("org.a11y.atspi.Registry", ROOT_PATH))
        mine = [app for app in apps if atspi._pid_of(app[0]) == pid]
        return any(STATE_SHOWING in atspi._states(frame)
                   for app in mine for frame in atspi._children(app))
    except Exception:
        return False
    finally:
        atspi.close()


def launch_tk(server: XServer, scenario: str, log: Path) -> LoggedApp:
    app = TkApp.launch(server, log, "600x360+100+100", scenario=scenario)
    return LoggedApp(app.process, log)


@dataclass
class Terminal:
    """xterm running bash in a scratch home; `~/.prompts` grows by one line per prompt."""

    process: subprocess.Popen[bytes]
    home: Path
    server: XServer
    window: str = ""
    bin_dir: Path = field(default_factory=Path)

    @classmethod
    def start(cls, server: XServer, home: Path, *xterm_args: str) -> Terminal:
        home.mkdir(parents=True, exist_ok=True)
        bin_dir = home.parent / "bin"
        bin_dir.mkdir(exist_ok=True)
        (home / ".bashrc").write_text(
            "PS1='$ '\nunset HISTFILE\nPROMPT_COMMAND='echo >> \"$HOME/.prompts\"'\n")
        env = server.env(HOME=str(home), SHELL="/bin/bash", PATH=f"{bin_dir}:/usr/sbin:/sbin:"
                         f"{os.environ.get('PATH', '/usr/bin:/bin')}")
        process = subprocess.Popen([require("xterm"), "-geometry", "100x20+150+150",
                                    *xterm_args], env=env, cwd=home, stderr=subprocess.DEVNULL)
        terminal = cls(process, home, server, bin_dir=bin_dir)
        wait_until(lambda: terminal.prompts() >= 1, 30, "the shell's first prompt")
        terminal.window = wait_until(terminal._find_window, 10, "the xterm window")
        return terminal

    def prompts(self) -> int:
        path = self.home / ".prompts"
        return len(path.read_text().splitlines()) if path.exists() else 0

    def _find_window(self) -> str:
        found = subprocess.run([require("xdotool"), "search", "--onlyvisible", "--pid",
                                str(self.process.pid)], env=self.server.env(),
                               capture_output=True, text=True, check=False)
        return found.stdout.split()[-1] if found.stdout.split() else ""

    def focus(self) -> None:
        """Give the xterm the keyboard focus (no window manager does it here)."""
        def focused() -> bool:
            done = subprocess.run([require("xdotool"), "windowfocus", "--sync", self.window],
                                  env=self.server.env(), capture_output=True, timeout=10,
                                  check=False)
            return done.returncode == 0
        wait_until(focused, 10, "the xterm to take the focus")

    def box(self) -> list[int]:
        found = subprocess.run([require("xdotool"), "getwindowgeometry", "--shell", self.window],
                               env=self.server.env(), capture_output=True, text=True,
                               check=True)
        values = dict(line.split("=", 1) for line in found.stdout.split())
        return [int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.bin_dir, ignore_errors=True)


def settled(check: Callable[[], bool], grace: float) -> bool:
    """`check()` after waiting up to `grace` seconds for it to become true."""
    deadline = time.monotonic() + grace
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
