"""What the desktop driver sees: screenshots, settle, the window under a point, the
active window, a monitor not at the origin, the fail-safe corner and the clipboard."""

from __future__ import annotations

import subprocess

import pytest

from tests.support.tools import require
from tests.support.x11 import input_state, wait_until
from venusctl.core.actions import Click, Hover, KeyDown, Surface, Type
from venusctl.core.errors import Aborted
from venusctl.core.grid import ScreenSize, to_grid, to_pixels
from venusctl.drivers.desktop.driver import DesktopDriver, DesktopOptions
from venusctl.drivers.desktop.geometry import Monitor
from venusctl.sim.tkapp import CLASS, TITLE


def test_screenshot_is_the_whole_monitor_in_the_chosen_format(driver, tkapp):
    screen = driver.screenshot()
    assert screen.mime == "image/jpeg"
    assert screen.size == ScreenSize(1920, 1080)
    assert screen.image.size == (1920, 1080)
    x, y = tkapp.centre("pad")  # the pad's light blue shows where the window is
    red, green, blue = screen.image.getpixel((x, y))
    assert blue > 240 and 200 < green < 250 and red > 200


def test_settle_returns_soon_on_a_still_screen_and_feeds_the_next_screenshot(driver, tkapp):
    waited = driver.settle(3.0)
    assert waited < 1.0
    cached = driver._cached
    assert cached is not None
    assert driver.screenshot().data == driver.capturer.encode(cached[0])[0]


def test_describe_names_the_window_under_the_point(driver, tkapp):
    driver.screenshot()
    element = driver.describe(*tkapp.centre("alpha"))
    assert element is not None
    assert element.app == CLASS
    assert element.extra["window_title"] == TITLE
    assert element.name is None and element.bounds is None  # Tk tells nothing of its widgets
    assert element.extra["window_bounds"] == tkapp.window
    assert driver.describe(1900, 1000) is None  # bare root window: nothing there


def test_context_is_the_active_window(driver, tkapp):
    driver.perform(Click(point=tkapp.centre("name")))
    context = wait_until(lambda: driver.context().title and driver.context(), what="focus")
    assert (context.app, context.title) == (CLASS, TITLE)


def test_a_region_not_at_the_origin_maps_grid_points_exactly(xserver, tkapp):
    window = Monitor(index=0, left=tkapp.window[0], top=tkapp.window[1],
                     width=tkapp.window[2], height=tkapp.window[3])
    region = DesktopDriver(DesktopOptions(region=window))
    try:
        screen = region.screenshot()
        assert screen.size == ScreenSize(800, 600)
        for name in ("alpha", "beta", "save"):
            x, y = tkapp.centre(name)
            grid = to_grid((x - window.left, y - window.top), screen.size, Surface.DESKTOP)
            placed = to_pixels(Click(point=grid), screen.size, Surface.DESKTOP)
            region.perform(placed)
            event = tkapp.wait_for(lambda e, n=name: e["event"] == "ButtonPress" and
                                   e["widget"] == n)
            assert abs(event["x_root"] - x) <= 1 and abs(event["y_root"] - y) <= 1
    finally:
        region.close()


def test_a_corner_target_is_moved_off_the_fail_safe_point(driver):
    driver.perform(Hover(point=(0, 0)))
    assert tuple(driver.input.gui.position()) == (1, 1)
    driver.perform(Hover(point=(1919, 1079)))
    assert tuple(driver.input.gui.position()) == (1918, 1078)
    driver.perform(Hover(point=(500, 500)))  # still allowed: the fail-safe did not trip


def test_the_fail_safe_corner_stops_the_run_and_held_keys_are_still_released(
        xserver, driver, tkapp):
    driver.perform(Click(point=tkapp.centre("name")))
    driver.perform(KeyDown(keys=("shift",)))
    subprocess.run([require("xdotool"), "mousemove", "0", "0"], env=xserver.env(), check=True)
    with pytest.raises(Aborted, match="fail-safe"):
        driver.perform(Type(content="x"))
    assert "Shift_L" in input_state(xserver)[0]
    driver.close()
    assert input_state(xserver) == (set(), 0)  # released at the server (focus left Tk)
    assert driver.input.held_keys == []


def test_unicode_through_the_clipboard_restores_the_clipboard(xserver, tkapp):
    xclip = require("xclip")
    env = xserver.env()
    subprocess.run([xclip, "-selection", "clipboard"], input=b"before", env=env, check=True,
                   timeout=10)
    clip = DesktopDriver(DesktopOptions(unicode_typing="clipboard"))
    try:
        assert clip.input.typer.name == "clipboard"
        clip.perform(Click(point=tkapp.centre("name")))
        clip.perform(Type(content="naïve café Ω"))
        clip.perform(Click(point=tkapp.centre("save")))
        assert tkapp.wait_for(lambda e: e["event"] == "saved")["name"] == "naïve café Ω"
    finally:
        clip.close()

    def clipboard() -> bytes:
        return subprocess.run([xclip, "-o", "-selection", "clipboard"], env=env,
                              capture_output=True, timeout=10, check=True).stdout

    wait_until(lambda: clipboard() == b"before", 10, "the clipboard put back")
