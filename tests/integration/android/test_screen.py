"""Seeing the phone: screenshots, sizes and rotation, what is under a point, settling."""

from __future__ import annotations

import time

import pytest

from tests.integration.android.conftest import centre
from venusctl.core.actions import Click, LaunchApp, Surface
from venusctl.core.grid import ScreenSize, to_pixels
from venusctl.drivers.android.driver import AndroidDriver, AndroidOptions
from venusctl.drivers.settle import fingerprint, frames_match
from venusctl.sim.phone import PhoneConfig
from venusctl.sim.phone.env import PhoneEnv


def test_screenshot_is_the_phone_screen_with_its_app(phone_env: PhoneEnv, driver: AndroidDriver):
    screen = driver.screenshot()
    assert screen.size == ScreenSize(540, 960)
    assert screen.mime == "image/jpeg" and screen.image.size == (540, 960)
    assert screen.context.app == "com.android.launcher3"
    assert set(driver.capturer.timings) == {"raw", "png"}, "both paths measured"
    icon = phone_env.phone.find(text="Notes")
    x, y = icon.box[0] + 20, icon.box[1] + 20  # inside the yellow icon
    red, green, blue = screen.image.getpixel((x, y))
    assert red > 200 and green > 140 and blue < 80


@pytest.mark.parametrize("phone_config", [PhoneConfig(raw_screencap=False)], indirect=True)
def test_png_path_when_raw_capture_fails(phone_env: PhoneEnv, tmp_path):
    driver = AndroidDriver(AndroidOptions(image_format="png", cache_dir=None, aliases_file=None))
    try:
        screen = driver.screenshot()
        assert driver.capturer.path == "png"
        assert screen.mime == "image/png" and screen.data.startswith(b"\x89PNG")
        assert "screencap -p" in phone_env.log
    finally:
        driver.close()


def test_landscape_turns_the_size(phone_env: PhoneEnv, driver: AndroidDriver):
    assert driver.screenshot().size == ScreenSize(540, 960)
    phone_env.phone.rotate(1)
    screen = driver.screenshot()
    assert screen.size == ScreenSize(960, 540) and screen.image.size == (960, 540)


@pytest.mark.parametrize("phone_config", [PhoneConfig(override_size=(270, 480))], indirect=True)
def test_wm_size_override_sets_the_touch_space(phone_env: PhoneEnv, driver: AndroidDriver):
    screen = driver.screenshot()
    assert screen.image.size == (540, 960), "the panel's frame"
    assert screen.size == ScreenSize(270, 480), "touches use the override"
    notes = phone_env.phone.find(text="Notes")
    grid = phone_env.phone.grid_of(notes)
    placed = to_pixels(Click(point=grid), screen.size, Surface.MOBILE)
    driver.perform(placed)
    assert phone_env.state.screen == "notes"


def test_describe_names_buttons_and_password_fields(phone_env: PhoneEnv, driver: AndroidDriver):
    driver.perform(LaunchApp(app="Shop"))
    driver.settle(2.0)
    driver.screenshot()
    pay = driver.describe(*centre(phone_env.phone.find(rid="pay")))
    assert pay is not None
    assert (pay.text, pay.role, pay.resource_id, pay.clickable) == (
        "Pay 4.50 EUR", "button", "com.example.shop:id/pay", True)
    assert pay.app == "com.example.shop"
    pin = phone_env.phone.find(rid="pin")
    element = driver.describe(*centre(pin))
    assert element is not None and element.password and element.input_type == "password"
    left, top, right, bottom = pin.box
    assert driver.sensitive_regions() == [(left, top, right - left, bottom - top)]
    dumps = sum("uiautomator dump" in line for line in phone_env.log)
    assert dumps == 1, "one dump serves the whole screen"


def test_focused_element_is_the_field_being_typed_into(phone_env: PhoneEnv,
                                                       driver: AndroidDriver):
    driver.perform(LaunchApp(app="Shop"))
    driver.perform(Click(point=centre(phone_env.phone.find(rid="pin"))))
    focused = driver.focused_element()
    assert focused is not None and focused.password and focused.resource_id.endswith(":id/pin")


def test_context_follows_the_app(phone_env: PhoneEnv, driver: AndroidDriver):
    driver.perform(LaunchApp(app="Shop"))
    driver.perform(Click(point=centre(phone_env.phone.find(rid="pay"))))
    context = driver.context()
    assert (context.app, context.activity) == ("com.example.shop",
                                               "com.example.shop.ConfirmActivity")


def test_settle_waits_for_the_transition_to_end(phone_env: PhoneEnv, driver: AndroidDriver):
    driver.perform(LaunchApp(app="Gallery"))
    started = time.monotonic()
    waited = driver.settle(3.0)
    assert 0.2 <= waited < 2.0
    assert phone_env.state.animate_until <= time.monotonic() + 0.05
    settled = driver.screenshot().image
    fresh = phone_env.phone.frame()
    assert frames_match(fingerprint(settled), fingerprint(fresh))
    assert time.monotonic() - started < 3.0


def test_settle_returns_at_once_on_a_still_screen(driver: AndroidDriver):
    driver.screenshot()
    assert driver.settle(3.0) < 1.0
