"""A real third-party X application, xterm: typing and clicks land, and its visible
state (the window title it sets, the line its shell received) is read back."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.tools import require
from tests.support.x11 import wait_until
from venusctl.core.actions import Click, Hotkey, Type
from venusctl.sim.xserver import XServer

# The shell reads one line, shows it in the window title and saves it; then waits.
SCRIPT = 'IFS= read -r line; printf "\\033]2;got: %s\\007" "$line"; printf "%s" "$line" > "$1"; ' \
         'sleep 60'


@pytest.fixture
def xterm(xserver: XServer, tmp_path: Path) -> Iterator[Path]:
    out = tmp_path / "line.txt"
    process = subprocess.Popen(
        [require("xterm"), "-u8", "-geometry", "80x12+700+500", "-T", "plain xterm",
         "-e", "sh", "-c", SCRIPT, "sh", str(out)],
        env=xserver.env(), stderr=subprocess.DEVNULL)
    try:
        yield out
    finally:
        process.terminate()
        process.wait(10)


def test_typing_into_xterm_and_reading_its_title_back(driver, xterm):
    centre = (1000, 580)  # inside the 80x12 terminal at +700+500
    element = wait_until(lambda: (driver.describe(*centre) or None), what="the xterm window")
    assert element.app == "XTerm"
    assert element.extra["window_title"] == "plain xterm"
    assert (element.extra["terminal"], element.extra["window_class"],
            element.extra["process"]) == (True, "XTerm", "xterm")
    driver.perform(Click(point=centre))  # no window manager: keys go to the window under
    driver.perform(Type(content="Grüße aus Ørsted ✓ 你好 $HOME\n"))  # the pointer
    def window_title() -> str:
        return driver.describe(*centre).extra.get("window_title") or ""

    title = wait_until(lambda: window_title().startswith("got:") and window_title(),
                       what="the title xterm sets")
    assert title == "got: Grüße aus Ørsted ✓ 你好 $HOME"
    assert xterm.read_text(encoding="utf-8") == "Grüße aus Ørsted ✓ 你好 $HOME"
    assert driver.context().title == title  # the window under the pointer has the keys


def test_ctrl_c_in_xterm_interrupts_its_shell(driver, xterm):
    centre = (1000, 580)
    wait_until(lambda: driver.describe(*centre), what="the xterm window")
    driver.perform(Click(point=centre))
    driver.perform(Hotkey(keys=("ctrl", "c")))
    wait_until(lambda: driver.describe(*centre) is None, what="xterm to close after Ctrl-C")
    assert not xterm.exists()
