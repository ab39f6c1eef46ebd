"""Grid -> captured image -> pointer on the desktop, with synthetic HiDPI scales and
monitors away from the origin; the fail-safe corners; choosing a monitor."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from venusctl.core.actions import Click, Surface
from venusctl.core.grid import ScreenSize, to_pixels
from venusctl.drivers.desktop.geometry import (
    Monitor,
    PointerMap,
    avoid_corners,
    choose_monitor,
)


def mapping(left: int, top: int, width: int, height: int, scale: float) -> PointerMap:
    monitor = Monitor(2, left, top, width, height)
    return PointerMap(monitor, ScreenSize(round(width * scale), round(height * scale)))


def test_plain_monitor_at_the_origin_is_the_identity():
    m = mapping(0, 0, 1920, 1080, 1.0)
    assert m.to_pointer(0, 0) == (0, 0)
    assert m.to_pointer(1919, 1079) == (1919, 1079)
    assert m.to_pointer(960, 540) == (960, 540)


def test_retina_2x_halves_image_pixels_into_points():
    m = mapping(0, 0, 1440, 900, 2.0)  # a 2880x1800 capture of a 1440x900-point screen
    assert m.image == ScreenSize(2880, 1800)
    assert m.to_pointer(0, 0) == (0, 0)
    assert m.to_pointer(1, 1) == (0, 0)  # both pixels of point 0
    assert m.to_pointer(2, 3) == (1, 1)
    assert m.to_pointer(2879, 1799) == (1439, 899)


def test_fractional_125_percent_scale():
    m = mapping(0, 0, 1536, 864, 1.25)  # 1920x1080 physical pixels
    assert m.image == ScreenSize(1920, 1080)
    assert m.to_pointer(960, 540) == (768, 432)
    assert m.to_pointer(1919, 1079) == (1535, 863)


def test_second_monitor_to_the_right_and_one_above_the_primary():
    right = mapping(1920, 0, 2560, 1440, 1.0)
    assert right.to_pointer(0, 0) == (1920, 0)
    assert right.to_pointer(2559, 1439) == (4479, 1439)
    above = mapping(-320, -1080, 1920, 1080, 2.0)  # negative origin, HiDPI
    assert above.to_pointer(0, 0) == (-320, -1080)
    assert above.to_pointer(3839, 2159) == (1599, -1)


def test_grid_centre_of_a_hidpi_monitor_off_the_origin_lands_on_its_centre():
    m = mapping(1920, 200, 1440, 900, 2.0)
    placed = to_pixels(Click(point=(500, 500)), m.image, Surface.DESKTOP)
    assert placed.point == (1441, 901)  # x * W / 999 on the 2880x1800 image
    assert m.to_pointer(*placed.point) == (1920 + 720, 200 + 450)


def test_pointer_results_are_clamped_into_the_monitor():
    m = mapping(100, 50, 800, 600, 1.0)
    assert m.to_pointer(5000, 5000) == (899, 649)
    assert m.to_pointer(-10, -10) == (100, 50)


def test_pointer_rectangles_map_back_to_image_bounds_cut_to_the_monitor():
    m = mapping(1920, 0, 1440, 900, 2.0)
    assert m.rect_to_image(2000, 100, 300, 200) == (160, 200, 600, 400)
    assert m.rect_to_image(1800, -20, 200, 100) == (0, 0, 160, 160)  # cut at the edges
    assert m.rect_to_image(3400, 0, 100, 100) == (0, 0, 0, 0)  # beyond its right edge
    assert m.rect_to_image(0, 0, 1920, 900) == (0, 0, 0, 0)  # on the monitor to its left


@given(
    left=st.integers(-4000, 4000), top=st.integers(-3000, 3000),
    width=st.integers(200, 4000), height=st.integers(200, 3000),
    scale=st.sampled_from([1.0, 1.25, 1.5, 1.75, 2.0, 3.0]),
    fx=st.floats(0, 1, exclude_max=True), fy=st.floats(0, 1, exclude_max=True),
)
def test_every_image_pixel_maps_into_the_point_that_covers_it(left, top, width, height, scale,
                                                               fx, fy):
    m = mapping(left, top, width, height, scale)
    x, y = int(fx * m.image.width), int(fy * m.image.height)
    px, py = m.to_pointer(x, y)
    assert m.monitor.contains(px, py)
    # the pixel's centre lies inside the pointer cell (px, py) on the image plane
    assert (px - left) * m.scale_x <= x + 0.5 < (px - left + 1) * m.scale_x + 1e-9
    assert (py - top) * m.scale_y <= y + 0.5 < (py - top + 1) * m.scale_y + 1e-9


def test_fail_safe_corners_are_avoided_by_one_pixel_inwards():
    monitor = Monitor(1, 0, 0, 1920, 1080)
    corners = [(0, 0), (0, 1079), (1919, 0), (1919, 1079)]
    assert [avoid_corners(c, corners, monitor) for c in corners] == [
        (1, 1), (1, 1078), (1918, 1), (1918, 1078)]
    assert avoid_corners((0, 500), corners, monitor) == (0, 500)  # edges stay reachable


def test_choose_monitor_prefers_the_one_asked_for_then_the_primary():
    monitors = [Monitor(1, 0, 0, 1920, 1080), Monitor(2, 1920, 0, 2560, 1440, primary=True)]
    assert choose_monitor(monitors, None).index == 2
    assert choose_monitor(monitors, 1).index == 1
    assert choose_monitor(monitors[:1], None).index == 1  # no primary flagged: the first
    with pytest.raises(LookupError, match="there is no monitor 3; monitors: 1, 2"):
        choose_monitor(monitors, 3)


def test_monitor_from_mss_and_its_description():
    info = {"left": -1920, "top": 0, "width": 1920, "height": 1080, "is_primary": True,
            "output": "HDMI-1"}
    monitor = Monitor.from_mss(2, info)
    assert monitor.region() == {"left": -1920, "top": 0, "width": 1920, "height": 1080}
    assert monitor.describe() == "2: 1920x1080+-1920+0 primary HDMI-1"
