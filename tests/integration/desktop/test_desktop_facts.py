"""The element facts the desktop driver gives the safety layer, read from real windows:
GTK on a private accessibility bus, Tk with no accessibility, xterm."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.desktop_apps import (
    LoggedApp,
    Terminal,
    launch_gtk,
    launch_tk,
    require_gtk,
    session_bus,
)
from tests.support.x11 import input_state, wait_until
from venusctl.core.actions import Click, MouseDown, Type
from venusctl.drivers.desktop.driver import DesktopDriver
from venusctl.sim.xserver import XServer


@pytest.fixture
def bus(xserver: XServer) -> Iterator[str]:
    require_gtk()
    with session_bus() as address, pytest.MonkeyPatch.context() as patch:
        patch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
        patch.delenv("AT_SPI_BUS_ADDRESS", raising=False)
        yield address


@pytest.fixture
def opened(xserver: XServer, bus: str, tmp_path: Path) -> Iterator[object]:
    """`opened("gtk", scene)` / `opened("tk", scene)`: the app and a driver on it."""
    started: list[tuple[LoggedApp, DesktopDriver]] = []

    def open_one(kind: str, scene: str) -> tuple[LoggedApp, DesktopDriver]:
        log = tmp_path / f"{kind}-{scene}.jsonl"
        app = launch_gtk(xserver, scene, log, bus) if kind == "gtk" else launch_tk(
            xserver, scene, log)
        started.append((app, DesktopDriver()))
        return started[-1]

    yield open_one
    for app, driver in started:
        driver.close()
        app.stop()


def centre(app: LoggedApp, name: str) -> tuple[int, int]:
    x, y, w, h = app.widgets()[name]
    return (x + w // 2, y + h // 2)


def test_ok_in_a_gtk_alert_carries_the_question_and_the_default(opened):
    app, driver = opened("gtk", "dialog-trash")
    element = driver.describe(*centre(app, "ok"))
    assert (element.role, element.name) == ("push button", "OK")
    assert "Empty trash?" in element.extra["dialog"]
    assert element.extra["default_button"] == "OK"
    assert element.extra["form_buttons"] == ["Cancel", "OK"]
    assert element.extra["window_class"] and element.extra["terminal"] is False


def test_keys_see_the_default_button_mnemonics_selection_and_hint(opened):
    _app, driver = opened("gtk", "dialog-field")
    field = wait_until(lambda: (driver.focused_element() or None), what="the focus")
    assert field.role == "text" and field.extra["default_button"] == "Delete"
    _app, driver = opened("gtk", "mnemonics")
    wait_until(lambda: driver.focused_element().extra.get("mnemonics"), what="mnemonics")
    assert driver.focused_element().extra["mnemonics"] == {"s": "Send", "p": "Pay €49",
                                                           "k": "Keep draft"}
    _app, driver = opened("gtk", "files")
    rows = wait_until(lambda: driver.focused_element().extra.get("selection"), what="rows")
    assert rows == ["report.txt"]
    _app, driver = opened("gtk", "chat")
    box = wait_until(lambda: driver.focused_element().extra.get("hint") and
                     driver.focused_element(), what="the message box")
    assert box.extra["hint"] == "Message" and box.name is None


def test_a_label_inside_a_list_row_answers_as_the_row(opened):
    app, driver = opened("gtk", "files")
    row = driver.describe(*centre(app, "file1"))
    assert (row.role, row.name) == ("list item", "photo.png")
    assert row.extra["leaf"] == "label 'photo.png'"


def test_a_drawn_button_is_nameless(opened):
    app, driver = opened("gtk", "canvas")
    x, y, _w, _h = app.widgets()["canvas"]
    drawn = driver.describe(x + 190, y + 80)
    assert drawn.role == "drawing area" and drawn.name is None
    assert drawn.extra["nameless"] is True


def test_describe_hovers_first(opened):
    app, driver = opened("gtk", "buttons")
    point = centre(app, "send")
    driver.describe(*point)
    assert tuple(driver.gui.position()) == point


def test_without_accessibility_a_tk_dialog_still_says_it_is_one(opened):
    app, driver = opened("tk", "dialog-delete")
    element = driver.describe(*centre(app, "ok"))
    assert element.name is None and element.role is None  # never the title as label
    assert element.extra["dialog"] == "Delete?"
    assert element.extra["unidentified"] is True and element.extra["nameless"] is True


def test_surface_text_is_the_window_title_names_and_typed_text_through_atspi(opened):
    app, driver = opened("gtk", "chat")
    before = driver.surface_text()
    assert "Ada Lovelace" in before and "Ada: are we still on for 7?" in before
    assert "see you at eight" not in before
    driver.perform(Click(point=centre(app, "message")))
    driver.perform(Type(content="see you at eight"))
    wait_until(lambda: "typed" in app.effects() and app.events()[-1].get("text") ==
               "see you at eight", what="the typed message")
    assert "see you at eight" in driver.surface_text()


def test_a_window_without_accessibility_says_only_its_title(opened):
    _app, driver = opened("tk", "dialog-delete")
    assert driver.surface_text().splitlines() == ["Delete?"]


def test_a_held_button_is_let_go_off_its_window(xserver, opened):
    app, driver = opened("tk", "release")
    x, y = centre(app, "delete")
    driver.perform(MouseDown(point=(x, y)))
    assert input_state(xserver)[1] == 0x100
    driver.close()
    assert input_state(xserver) == (set(), 0)
    assert "deleted" not in app.effects()
    px, py = driver.gui.position()
    left, top, width, height = next(
        e for e in app.events() if e["event"] == "ready")["window"]
    assert not (left <= px < left + width and top <= py < top + height)


def test_an_xterm_is_a_terminal_whatever_its_title(xserver, tmp_path):
    terminal = Terminal.start(xserver, tmp_path / "home", "-T", "Build log")
    driver = DesktopDriver()
    try:
        terminal.focus()
        focused = wait_until(lambda: driver.focused_element(), what="the xterm's focus")
        assert focused.extra["terminal"] is True
        assert (focused.extra["window_class"], focused.extra["process"]) == ("XTerm", "xterm")
        assert focused.extra["window_title"] == "Build log" and focused.name is None
    finally:
        driver.close()
        terminal.stop()
