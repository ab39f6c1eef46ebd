"""describe() through AT-SPI: the accessible element (role, name) under a point in a real
GTK application, on a private session bus whose accessibility bus GTK itself starts."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator

import pytest
from Xlib import X

from tests.support.tools import ROOT, require
from tests.support.x11 import wait_until
from venusctl.core.actions import Click
from venusctl.drivers.desktop.driver import DesktopDriver
from venusctl.drivers.desktop.windows import X11Windows
from venusctl.sim.xserver import XServer

SYSTEM_PYTHON = "/usr/bin/python3"
GTK_CHECK = "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk"


@pytest.fixture
def session_bus(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    read, write = os.pipe()
    daemon = subprocess.Popen(
        [require("dbus-daemon"), "--session", "--nofork", f"--print-address={write}"],
        pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        address = pipe.readline().strip()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
    monkeypatch.delenv("AT_SPI_BUS_ADDRESS", raising=False)
    try:
        yield address
    finally:
        daemon.terminate()
        daemon.wait(10)


@pytest.fixture
def gtk_window(xserver: XServer, session_bus: str) -> Iterator[None]:
    checked = subprocess.run([require(SYSTEM_PYTHON), "-c", GTK_CHECK], capture_output=True,
                             check=False)
    if checked.returncode != 0:
        pytest.fail("GTK 3 for the system Python is missing; run scripts/test.sh (it installs "
                    "python3-gi and gir1.2-gtk-3.0)", pytrace=False)
    app = subprocess.Popen([SYSTEM_PYTHON, str(ROOT / "tests/support/gtkapp.py")],
                           env=xserver.env(DBUS_SESSION_BUS_ADDRESS=session_bus),
                           stderr=subprocess.DEVNULL)
    try:
        yield
    finally:
        app.terminate()
        app.wait(10)


def test_describe_reports_the_accessible_widget_under_the_point(xserver, gtk_window):
    # GTK puts its widgets on the accessibility bus when it realizes the window, a
    # moment before the X server shows it: wait for both before asking.
    windows = X11Windows(xserver.display)
    try:
        wait_until(lambda: (found := windows.at(350, 150)) and found.title == "Danger Zone",
                   timeout=20, what="the Danger Zone window on the X server")
    finally:
        windows.close()

    def button():
        driver = DesktopDriver()  # opens AT-SPI only once GTK has started its bus
        try:
            element = driver.describe(350, 150)
            return element if element and element.role == "push button" else None
        finally:
            driver.close()

    element = wait_until(button, timeout=20, what="GTK's button on the accessibility bus")
    assert element.name == "Delete everything"
    assert element.clickable is True and element.password is False
    assert element.extra["window_title"] == "Danger Zone"
    assert element.extra["source"] == "at-spi"
    left, top, width, height = element.bounds
    assert left <= 350 < left + width and top <= 150 < top + height
    assert left >= 200 and left + width <= 500  # inside the window, in image pixels

    driver = DesktopDriver()
    try:
        field = driver.describe(350, 260)
        assert field is not None and field.role == "password text"
        assert field.password is True and field.text is None  # never its content
        driver.perform(Click(point=(350, 260)))
        def focused_field():
            element = driver.focused_element()
            return element if element and element.role else None

        focused = wait_until(focused_field, what="the focus to reach the field")
        assert (focused.role, focused.password) == ("password text", True)
        assert focused.extra["window_title"] == "Danger Zone"
        [(left, top, width, height)] = driver.sensitive_regions()
        assert left <= 350 < left + width and top <= 260 < top + height
    finally:
        driver.close()


def test_without_an_accessibility_bus_the_element_is_unidentified_never_the_title(xserver, tkapp,
                                                                         monkeypatch):
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.delenv("AT_SPI_BUS_ADDRESS", raising=False)
    driver = DesktopDriver()
    try:
        assert driver.accessible is None
        element = driver.describe(*tkapp.centre("alpha"))
        assert element is not None and element.role is None
        assert element.name is None and element.text is None  # the title is no label
        assert element.extra["window_title"] == "Venus Test App"
        assert element.extra["unidentified"] is True and element.extra["nameless"] is True
        assert element.app == "Venustest"
        assert driver.sensitive_regions() == []
    finally:
        driver.close()


def test_a_window_that_vanishes_while_listed_hides_nothing(xserver, gtk_window):
    """A starting GTK app creates and destroys windows while the driver lists the
    root's children; one of them answering BadWindow must not hide the rest."""
    windows = X11Windows(xserver.display)
    try:
        wait_until(lambda: windows.at(350, 150), timeout=20, what="the Danger Zone window")
        gone = windows.root.create_window(0, 0, 10, 10, 0, X.CopyFromParent)
        gone.destroy()
        windows.display.sync()
        children = windows.root.query_tree().children
        real_tree = windows.root.query_tree

        class Tree:
            def __init__(self) -> None:
                self.children = [*children, gone]  # the topmost went away after listing

        windows.root.query_tree = lambda: Tree()  # type: ignore[method-assign]
        found = windows.at(350, 150)
        assert found is not None and found.title == "Danger Zone"
        assert (200, 100, 300, 200) in windows.boxes()
        windows.root.query_tree = real_tree  # type: ignore[method-assign]
    finally:
        windows.close()
