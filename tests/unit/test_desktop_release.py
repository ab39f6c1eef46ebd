"""Letting go of held buttons where nothing can receive them, without a display."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from venusctl.drivers.desktop.input import Input
from venusctl.drivers.desktop.release import contains, neutral_point

pytestmark = pytest.mark.unit

MONITOR = (0, 0, 1920, 1080)


def test_the_neutral_point_is_off_the_pressed_window_and_on_bare_desktop():
    window, other = (100, 100, 800, 600), (1000, 0, 920, 1080)
    spot = neutral_point(MONITOR, [window, other], [(500, 400)])
    assert not contains(window, spot) and not contains(other, spot)
    x, y = spot
    assert 0 < x < 1000 and 700 <= y < 1080 - 10  # below the window, left of the other


def test_when_windows_cover_the_rest_the_point_is_only_off_the_pressed_ones():
    pressed, under = (0, 0, 960, 1080), (960, 0, 960, 1080)
    spot = neutral_point(MONITOR, [pressed, under], [(100, 100)])
    assert contains(under, spot) and not contains(pressed, spot)


def test_both_the_press_and_the_pointer_windows_are_avoided():
    left, right, bottom = (0, 0, 960, 700), (960, 0, 960, 700), (0, 700, 1920, 380)
    spot = neutral_point(MONITOR, [left, right, bottom], [(100, 100), (1500, 300)])
    assert contains(bottom, spot)


def test_a_full_screen_window_leaves_the_point_farthest_from_the_press():
    spot = neutral_point(MONITOR, [MONITOR], [(100, 100)])
    assert spot[0] > 1800 and spot[1] > 1000
    assert spot != (1919, 1079)  # never a fail-safe corner


class FakeGui:
    """pyautogui as far as `Input` uses it, recording every call."""

    FAILSAFE = True
    KEY_NAMES = ("shift", "ctrl", "a", "space", "delete")
    platformModule = None

    def __init__(self, interrupt_glide: bool = False) -> None:
        self.calls: list[tuple] = []
        self.where = (0, 0)
        self.interrupt_glide = interrupt_glide

    def position(self):
        return self.where

    def moveTo(self, x, y, duration=0.0):
        if duration and self.interrupt_glide:
            self.where = ((self.where[0] + x) // 2, (self.where[1] + y) // 2)
            raise KeyboardInterrupt
        self.where = (x, y)
        self.calls.append(("move", x, y))

    def mouseDown(self, button="left"):
        self.calls.append(("down", button, self.where))

    def mouseUp(self, button="left"):
        self.calls.append(("up", button, self.where))

    def keyDown(self, key):
        self.calls.append(("keydown", key, self.where))

    def keyUp(self, key):
        self.calls.append(("keyup", key, self.where))


def neutral_input(gui: FakeGui) -> tuple[Input, list]:
    shields: list = []

    @contextmanager
    def neutral(pressed):
        shields.append(("shield", pressed))
        yield (1800, 1000)
        shields.append(("gone",))

    return Input(gui, typer=None, neutral=neutral), shields


def test_release_all_lets_keys_go_first_then_buttons_at_the_neutral_place():
    gui = FakeGui()
    held, shields = neutral_input(gui)
    held.key_down(("shift",))
    held.mouse_down((300, 200))
    gui.calls.clear()
    assert held.release_all() == ["key shift", "button left"]
    assert gui.calls == [("keyup", "shift", (300, 200)), ("move", 1800, 1000),
                         ("up", "left", (1800, 1000))]
    assert shields == [("shield", (300, 200)), ("gone",)]
    assert held.held_buttons == [] and held.held_keys == [] and held.pressed_at == {}


def test_mouse_up_lets_go_where_the_action_says():
    gui = FakeGui()
    held, shields = neutral_input(gui)
    held.mouse_down((300, 200))
    held.mouse_up((310, 205))
    assert gui.calls[-1] == ("up", "left", (310, 205))
    assert shields == [] and held.release_all() == []


def test_a_drag_cut_short_lets_go_at_the_neutral_place_not_mid_glide():
    gui = FakeGui(interrupt_glide=True)
    held, shields = neutral_input(gui)
    with pytest.raises(KeyboardInterrupt):
        held.drag((100, 100), (900, 700))
    assert gui.calls[-1] == ("up", "left", (1800, 1000))
    assert shields[0] == ("shield", (100, 100))
    assert held.held_buttons == []


def test_without_a_neutral_place_the_button_is_let_go_where_it_is():
    gui = FakeGui()
    held = Input(gui, typer=None)
    held.mouse_down((40, 50))
    held.release_all()
    assert gui.calls[-1] == ("up", "left", (40, 50))
