"""Nothing gated happens later: a `MouseUp` over a delete button is gated, the run stops
(exit 3 with nobody to ask; Ctrl-C, SIGTERM or a closed terminal while the question
waits), and letting go of the held button afterwards must not press it.

The button reads "Press and hold" (so pressing it is allowed) and, once pressed,
"Release to delete all files" (so the release is gated). These are `venusctl do` runs
as a user starts them, against a GTK window whose button the driver identifies through
AT-SPI; the app's own log says whether it deleted.
"""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import VENUSCTL, venusctl, write_answers
from tests.support.desktop_apps import LoggedApp, launch_gtk, require_gtk, session_bus, settled
from tests.support.x11 import input_state, wait_until
from venusctl.core.actions import Surface
from venusctl.core.grid import ScreenSize, to_grid
from venusctl.sim.xserver import XServer

SCREEN = ScreenSize(1920, 1080)


@pytest.fixture
def delete_button(xserver: XServer, tmp_path: Path) -> Iterator[tuple[LoggedApp, str]]:
    require_gtk()
    with session_bus() as bus:
        app = launch_gtk(xserver, "release", tmp_path / "app.jsonl", bus)
        try:
            yield app, bus
        finally:
            app.stop()


def answers(app: LoggedApp, tmp_path: Path) -> Path:
    x, y, w, h = app.widgets()["hold"]
    box = to_grid((x + w // 2, y + h // 2), SCREEN, Surface.DESKTOP)
    return write_answers(tmp_path / "answers.jsonl", [
        f"<think>Press the button.</think><action>MouseDown(box={box})</action>",
        f"<think>Let go.</think><action>MouseUp(box={box})</action>",
        "<action>Finished(content='done')</action>"])


def do_args(app: LoggedApp, tmp_path: Path) -> list[str]:
    return ["do", "press the button", "--driver", "desktop", "--model-file",
            str(answers(app, tmp_path)), "--runs-dir", str(tmp_path / "runs"), "--quiet"]


def test_a_gated_mouseup_then_exit_3_never_deletes(xserver, delete_button, tmp_path):
    app, bus = delete_button
    done = venusctl(*do_args(app, tmp_path), env={"DBUS_SESSION_BUS_ADDRESS": bus},
                    timeout=180)
    assert done.returncode == 3, done.stderr
    assert "needs confirmation (delete)" in done.stdout + done.stderr
    assert not settled(lambda: "deleted_all" in app.effects(), 1.5), "the release deleted"
    assert input_state(xserver) == (set(), 0)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=["ctrl-c", "term", "hangup"])
def test_a_gated_mouseup_then_a_signal_never_deletes(xserver, delete_button, tmp_path, sig):
    app, bus = delete_button
    controller, terminal = pty.openpty()  # a terminal, so the question is asked and waits
    process = subprocess.Popen(
        [VENUSCTL, *do_args(app, tmp_path)], stdin=terminal, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": bus})
    os.close(terminal)
    errors: list[str] = []
    reader = threading.Thread(target=lambda: errors.extend(process.stderr), daemon=True)
    reader.start()
    try:
        wait_until(lambda: any("confirmation needed" in line for line in errors), 120,
                   "the confirmation prompt")
        assert input_state(xserver)[1] == 0x100, "button 1 is held while the question waits"
        process.send_signal(sig)
        process.wait(60)
    finally:
        os.close(controller)
        if process.poll() is None:
            process.kill()
    reader.join(10)
    assert process.returncode == 130, "".join(errors)
    assert not any("Traceback" in line for line in errors)
    assert "mouse up" in "".join(errors)  # the question was about the release
    assert not settled(lambda: "deleted_all" in app.effects(), 1.5), "the release deleted"
    assert input_state(xserver) == (set(), 0)
