"""Every desktop action on a real X server, verified through the Tk app's own event log."""

from __future__ import annotations

import time

import pytest

from venusctl.core.actions import (
    Click,
    DoubleClick,
    Drag,
    Finished,
    Hotkey,
    Hover,
    KeyDown,
    KeyUp,
    MiddleClick,
    MouseDown,
    MouseUp,
    RightClick,
    Sequence,
    TripleClick,
    Type,
    Wait,
    WheelScroll,
)
from venusctl.core.errors import ActionFailed


def press(name: str, num: int = 1):
    return lambda e: e["event"] == "ButtonPress" and e["widget"] == name and e["num"] == num


def test_click_lands_on_the_widget_aimed_at(driver, tkapp):
    x, y = tkapp.centre("alpha")
    driver.screenshot()
    driver.perform(Click(point=(x, y)))
    event = tkapp.wait_for(press("alpha"))
    assert (event["x_root"], event["y_root"]) == (x, y)
    tkapp.wait_for(lambda e: e["event"] == "command" and e["widget"] == "alpha")
    assert not [e for e in tkapp.events() if e["event"] == "command" and e["widget"] == "beta"]


def test_click_without_a_point_clicks_at_the_cursor_after_a_hover(driver, tkapp):
    driver.perform(Hover(point=tkapp.centre("beta")))
    tkapp.wait_for(lambda e: e["event"] == "Enter" and e["widget"] == "beta")
    assert not [e for e in tkapp.events() if e["event"] == "ButtonPress"]
    driver.perform(Click())
    tkapp.wait_for(lambda e: e["event"] == "command" and e["widget"] == "beta")


def test_double_triple_right_and_middle_clicks(driver, tkapp):
    pad = tkapp.centre("pad")
    driver.perform(DoubleClick(point=pad))
    tkapp.wait_for(lambda e: e["event"] == "DoubleClick" and e["widget"] == "pad")
    time.sleep(0.6)  # let Tk's multi-click window pass so the next clicks start afresh
    driver.perform(TripleClick(point=(pad[0] + 30, pad[1])))
    tkapp.wait_for(lambda e: e["event"] == "TripleClick" and e["x_root"] == pad[0] + 30)
    driver.perform(RightClick(point=pad))
    tkapp.wait_for(press("pad", 3))
    driver.perform(MiddleClick(point=pad))
    tkapp.wait_for(press("pad", 2))
    assert len([e for e in tkapp.events() if press("pad", 1)(e)]) == 5


def test_typing_unicode_and_newlines_arrives_in_the_app(driver, tkapp):
    driver.perform(Click(point=tkapp.centre("name")))
    driver.perform(Type(content="Zoë Ørsted ✓"))
    driver.perform(Click(point=tkapp.centre("notes")))
    driver.perform(Type(content="Grüße, 你好\nsecond line\r\nthird"))
    driver.perform(Click(point=tkapp.centre("save")))
    saved = tkapp.wait_for(lambda e: e["event"] == "saved")
    assert saved["name"] == "Zoë Ørsted ✓"
    assert saved["notes"] == "Grüße, 你好\nsecond line\nthird"
    returns = [e for e in tkapp.events() if e["event"] == "KeyPress" and e["keysym"] == "Return"]
    assert len(returns) == 2


def test_hotkey_with_repeat_and_modifiers(driver, tkapp):
    driver.perform(Click(point=tkapp.centre("name")))
    driver.perform(Type(content="abcdef"))
    driver.perform(Hotkey(keys=("BackSpace",), repeat=3))
    driver.perform(Hotkey(keys=("ctrl", "shift", "F5")))
    driver.perform(Click(point=tkapp.centre("save")))
    assert tkapp.wait_for(lambda e: e["event"] == "saved")["name"] == "abc"
    f5 = tkapp.wait_for(lambda e: e["event"] == "KeyPress" and e["keysym"] == "F5")
    assert f5["state"] & 0x4 and f5["state"] & 0x1  # Control and Shift were down
    released = [e["keysym"] for e in tkapp.events() if e["event"] == "KeyRelease"]
    assert {"Control_L", "Shift_L", "F5"} <= set(released)
    assert driver.input.held_keys == []


def test_unknown_key_is_refused_before_anything_is_pressed(driver, tkapp):
    with pytest.raises(ActionFailed, match="unknown key 'hyperdrive'"):
        driver.perform(Hotkey(keys=("ctrl", "hyperdrive")))
    time.sleep(0.2)
    assert not [e for e in tkapp.events() if e["event"] == "KeyPress"]


def test_held_key_persists_across_actions_until_key_up(driver, tkapp):
    driver.perform(Click(point=tkapp.centre("name")))
    result = driver.perform(KeyDown(keys=("shift",)))
    assert result.details["held_keys"] == ["shift"]
    driver.perform(Type(content="abc"))
    driver.perform(KeyUp(keys=("Shift",)))
    driver.perform(Type(content="d"))
    driver.perform(Click(point=tkapp.centre("save")))
    assert tkapp.wait_for(lambda e: e["event"] == "saved")["name"] == "ABCd"
    assert driver.input.held_keys == []


def test_mouse_down_move_up_drags_across_steps(driver, tkapp):
    x, y = tkapp.centre("pad")
    driver.perform(MouseDown(point=(x - 100, y - 100)))
    assert driver.input.held_buttons == ["left"]
    driver.perform(Hover(point=(x, y)))
    driver.perform(MouseUp(point=(x + 50, y + 60)))
    tkapp.wait_for(lambda e: e["event"] == "Drag" and e["widget"] == "pad")
    release = tkapp.wait_for(lambda e: e["event"] == "ButtonRelease" and e["widget"] == "pad")
    assert (release["x_root"], release["y_root"]) == (x + 50, y + 60)
    assert driver.input.held_buttons == []


def test_drag_with_and_without_a_start(driver, tkapp):
    x, y = tkapp.centre("pad")
    driver.perform(Drag(start=(x - 120, y), end=(x + 120, y + 40)))
    first = tkapp.wait_for(press("pad"))
    assert (first["x_root"], first["y_root"]) == (x - 120, y)
    end = tkapp.wait_for(lambda e: e["event"] == "ButtonRelease")
    assert (end["x_root"], end["y_root"]) == (x + 120, y + 40)
    moves = [e for e in tkapp.events() if e["event"] == "Drag"]
    assert len(moves) >= 3  # glided, not jumped
    driver.perform(Drag(end=(x, y - 100)))  # from the cursor, where the last drag ended
    second = tkapp.wait_for(press("pad"), count=2)
    assert (second["x_root"], second["y_root"]) == (x + 120, y + 40)
    end = tkapp.wait_for(lambda e: e["event"] == "ButtonRelease", count=2)
    assert (end["x_root"], end["y_root"]) == (x, y - 100)


def test_wheel_scroll_at_the_cursor(driver, tkapp):
    driver.perform(Hover(point=tkapp.centre("pad")))
    driver.perform(WheelScroll(amount=3))
    driver.perform(WheelScroll(amount=-2))
    driver.perform(WheelScroll(amount=4, axis="horizontal"))
    # Tk 8.6 reports X's horizontal buttons 6/7 as Shift+Button-4/5 (left/right)
    tkapp.wait_for(lambda e: press("pad", 5)(e) and e["state"] & 1, count=4)
    wheel = [(e["num"], bool(e["state"] & 1)) for e in tkapp.events() if
             e["event"] == "ButtonPress" and e["widget"] == "pad"]
    assert wheel == [(4, False)] * 3 + [(5, False)] * 2 + [(5, True)] * 4


def test_sequence_runs_in_order_and_stops_at_the_terminal_child(driver, tkapp):
    result = driver.perform(Sequence(actions=(
        Click(point=tkapp.centre("name")), Type(content="Ada"),
        Click(point=tkapp.centre("save")), Finished(content="done"))))
    assert result.details == {"sequence_done": 3, "stopped_at": "Finished"}
    assert tkapp.wait_for(lambda e: e["event"] == "saved")["name"] == "Ada"


def test_sequence_failure_says_which_child_failed(driver, tkapp):
    with pytest.raises(ActionFailed, match=r"action 2 of the Sequence.*after 1 done"):
        driver.perform(Sequence(actions=(Click(point=tkapp.centre("alpha")),
                                         Hotkey(keys=("nosuchkey",)))))
    tkapp.wait_for(lambda e: e["event"] == "command" and e["widget"] == "alpha")


def test_wait_waits(driver):
    started = time.monotonic()
    driver.perform(Wait())
    assert 0.9 <= time.monotonic() - started < 3
