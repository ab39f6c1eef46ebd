"""Grid placement: the 0..999 contract per surface, clamped into the screen."""

from __future__ import annotations

from venusctl.core.actions import Click, Drag, Sequence, Surface, Type, WheelScroll
from venusctl.core.grid import ScreenSize, to_grid, to_pixel, to_pixels

PHONE = ScreenSize(1080, 2400)
DESKTOP = ScreenSize(1920, 1080)


def test_mobile_and_browser_divide_by_1000():
    assert to_pixel((500, 500), PHONE, Surface.MOBILE) == (540, 1200)
    assert to_pixel((250, 100), ScreenSize(1280, 800), Surface.BROWSER) == (320, 80)


def test_desktop_divides_by_999():
    assert to_pixel((999, 999), DESKTOP, Surface.DESKTOP) == (1919, 1079)
    assert to_pixel((333, 0), DESKTOP, Surface.DESKTOP) == (640, 0)


def test_clamped_into_the_screen():
    assert to_pixel((999, 999), ScreenSize(1000, 1000), Surface.MOBILE) == (999, 999)
    assert to_pixel((0, 0), PHONE, Surface.MOBILE) == (0, 0)
    assert to_pixel((999, 999), ScreenSize(10, 10), Surface.DESKTOP) == (9, 9)


def test_every_point_of_an_action_is_placed_and_others_untouched():
    placed = to_pixels(Drag(end=(1000 - 1, 500), start=(0, 250)), PHONE, Surface.MOBILE)
    assert placed == Drag(end=(1079, 1200), start=(0, 600))
    assert to_pixels(Type("hi"), PHONE, Surface.MOBILE) == Type("hi")
    assert to_pixels(WheelScroll(5, "vertical"), DESKTOP, Surface.DESKTOP) == WheelScroll(5)
    seq = to_pixels(Sequence((Click((500, 500)), Click(None))), DESKTOP, Surface.DESKTOP)
    assert seq == Sequence((Click((961, 541)), Click(None)))


def test_grid_and_pixels_round_trip_within_a_pixel():
    for surface in Surface:
        for x in range(0, 1000, 37):
            px = to_pixel((x, x), PHONE, surface)
            assert abs(to_grid(px, PHONE, surface)[0] - x) <= 1
