"""Typed text arrives whole in a real application however late it reads its input.

The Tk app is stopped (SIGSTOP) while venusctl types, so every key press waits in its
queue: the moment it reads them is chosen by the test, not by the machine's load. A
typer that puts the keyboard map back before the application has read a press loses
that character (`Grüße, 你好` arrived as `Grüße, 你` on a loaded machine); the keymap
typer holds each binding until the application has answered a ping sent after it.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from tests.support.desktop_apps import launch_gtk, require_gtk, session_bus
from venusctl.core.actions import Click, Type
from venusctl.core.errors import ActionFailed
from venusctl.drivers.desktop.keymap import REBIND_AFTER_S, KeymapTyper, keysym_of, typeable
from venusctl.sim.xserver import TkApp

TEXT = "Grüße, 你好 Zoë Ørsted ✓ ΔΣλ — 日本語"


def _paused_then_resumed(pid: int, seconds: float) -> threading.Thread:
    os.kill(pid, signal.SIGSTOP)
    resume = threading.Timer(seconds, os.kill, (pid, signal.SIGCONT))
    resume.start()
    return resume


def test_text_typed_while_the_app_cannot_read_arrives_whole(driver, tkapp):
    """Tk does not take pings: each character keeps a keycode of its own, bound until
    the driver closes, so the presses it reads late still read right."""
    assert driver.input.typer.name == "keymap"
    driver.perform(Click(point=tkapp.centre("notes")))
    tkapp.wait_for(lambda e: e["event"] == "ButtonPress" and e["widget"] == "notes")
    resume = _paused_then_resumed(tkapp.process.pid, 1.5)
    try:
        driver.perform(Type(content=TEXT))
    finally:
        resume.join()
    driver.perform(Click(point=tkapp.centre("save")))
    assert tkapp.wait_for(lambda e: e["event"] == "saved")["notes"] == TEXT


def test_keycodes_are_bound_again_only_after_a_gtk_app_read_them(driver, xserver, tmp_path):
    """GTK takes pings. With three spare keycodes for twenty distinct characters every
    keycode carries several characters in turn, each rebinding while the app is
    stopped: a binding changes only after the app answered for the press it carried,
    and the Type action returns only once the app has read it all."""
    require_gtk()
    typer = driver.input.typer
    assert isinstance(typer, KeymapTyper)
    typer.spare = typer.spare[:3]
    text = "αβγδεζηθικλμνξοπρστυ"
    with session_bus() as bus:
        app = launch_gtk(xserver, "chat", tmp_path / "chat.jsonl", bus)
        try:
            x, y, w, h = app.widgets()["message"]
            driver.perform(Click(point=(x + w // 2, y + h // 2)))
            resume = _paused_then_resumed(app.process.pid, 1.0)
            try:
                driver.perform(Type(content=text))
                typed = [e["text"] for e in app.events() if e.get("effect") == "typed"]
                assert typed and typed[-1] == text  # read before the action returned
            finally:
                resume.join()
        finally:
            app.stop()
    assert len(typer.bound) == 3


def test_rebinding_for_an_app_without_pings_waits_out_its_bound(driver, tkapp):
    typer = driver.input.typer
    typer.spare = typer.spare[:3]
    driver.perform(Click(point=tkapp.centre("name")))
    tkapp.wait_for(lambda e: e["event"] == "ButtonPress" and e["widget"] == "name")
    text = "αβγδεζηθι"
    started = time.monotonic()
    driver.perform(Type(content=text))
    assert time.monotonic() - started >= 2 * REBIND_AFTER_S  # six rebinds, two rounds
    driver.perform(Click(point=tkapp.centre("save")))
    assert tkapp.wait_for(lambda e: e["event"] == "saved")["name"] == text


def test_characters_bound_for_a_type_action_reach_tk_before_their_presses(xserver, tmp_path):
    """Tk takes no pings and reads a press by the keyboard map it had when the press
    reached it: each Type action binds its characters first and gives Tk `TAKE_IN_S`
    to read the change. Without that, 6 of 15 such fields lost a character (a letter
    missing, or read as the one its keycode carried before) on the loaded 2-core VM.
    Each round has a driver and an app of its own, so every letter takes a fresh keycode."""
    from venusctl.drivers.desktop.driver import DesktopDriver, DesktopOptions

    text = "αβγδεζηθικλμνξοπρστυφχψω"
    for round_ in range(3):
        app = TkApp.launch(xserver, tmp_path / f"events-{round_}.jsonl")
        driver = DesktopDriver(DesktopOptions())
        try:
            assert isinstance(driver.input.typer, KeymapTyper)
            driver.perform(Click(point=app.centre("name")))
            app.wait_for(lambda e: e["event"] == "ButtonPress" and e["widget"] == "name")
            driver.perform(Type(content=text))
            driver.perform(Click(point=app.centre("save")))
            assert app.wait_for(lambda e: e["event"] == "saved")["name"] == text
        finally:
            driver.close()
            app.stop()


def test_the_keyboard_map_is_put_back_when_the_driver_closes(xserver, tkapp):
    from venusctl.drivers.desktop.driver import DesktopDriver, DesktopOptions

    driver = DesktopDriver(DesktopOptions())
    typer = driver.input.typer
    info = typer.display.display.info
    count = info.max_keycode - info.min_keycode + 1
    before = typer.display.get_keyboard_mapping(typer.low, count)
    try:
        driver.perform(Click(point=tkapp.centre("name")))
        driver.perform(Type(content="ğış"))
        assert len(typer.bound) == 3
    finally:
        driver.close()
    check = KeymapTyper()
    try:
        assert check.display.get_keyboard_mapping(check.low, count) == before
        assert check.spare == typer.spare
    finally:
        check.close()


def test_a_character_no_key_can_carry_is_refused_plainly(driver, tkapp):
    driver.perform(Click(point=tkapp.centre("name")))
    with pytest.raises(ActionFailed, match=r"cannot type the character U\+0007"):
        driver.perform(Type(content="bell\u0007"))


def test_keysyms_follow_the_x_convention():
    assert keysym_of("a") == 0x61 and keysym_of("é") == 0xE9
    assert keysym_of("你") == 0x01004F60 and keysym_of("😀") == 0x0101F600
    assert typeable("你") and typeable("é") and not typeable("\u0007")
