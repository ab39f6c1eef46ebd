"""Drawing actions on screenshots: marks land where the agent acted, at any scale."""

from __future__ import annotations

from PIL import Image

from venusctl.core import pictures
from venusctl.core.actions import Click, Surface
from venusctl.core.grid import ScreenSize

WHITE = (255, 255, 255)


def blank(width: int = 400, height: int = 200) -> Image.Image:
    return Image.new("RGB", (width, height), WHITE)


def is_red(pixel: tuple[int, int, int]) -> bool:
    return pixel[0] > 180 and pixel[1] < 90 and pixel[2] < 140


def test_click_is_drawn_at_the_placed_pixel_on_a_hidpi_image():
    # screen of 200x100 CSS pixels captured at 2x: the dot must land on image (200, 100)
    step = {"action": "Click(point=(500, 500))", "screen_size": [200, 100]}
    out = pictures.annotated_step(blank(400, 200), step, "browser")
    assert is_red(out.getpixel((200, 100)))
    assert out.getpixel((20, 20)) == WHITE


def test_element_box_is_outlined_in_image_pixels():
    step = {"action": "Click(point=(500, 500))", "screen_size": [200, 100],
            "element": {"bounds": [10, 10, 50, 20]}}
    out = pictures.annotated_step(blank(400, 200), step, "browser")
    left_edge = out.getpixel((20, 40))  # x=10*2, y in the middle of the box
    assert left_edge == pictures.ELEMENT_COLOUR


def test_swipe_arrow_starts_with_a_dot_and_runs_towards_the_end():
    step = {"action": "Swipe(start=(100, 500), end=(900, 500))", "screen_size": [400, 200]}
    out = pictures.annotated_step(blank(), step, "mobile")
    assert is_red(out.getpixel((40, 100)))  # start
    assert is_red(out.getpixel((200, 100)))  # along the line
    assert out.getpixel((200, 150)) == WHITE


def test_typed_text_and_keys_get_labels():
    typed = pictures.annotated_step(blank(), {"action": "Type(content='hi')",
                                              "screen_size": [400, 200]}, "browser")
    assert typed.getpixel((6, 6)) == pictures.LABEL_BG
    nothing = pictures.annotated_step(blank(), {"screen_size": [400, 200]}, "browser")
    assert nothing.getpixel((6, 6)) == WHITE


def test_unreadable_action_leaves_the_image_alone():
    step = {"action": "Explode(now=True)", "screen_size": [400, 200]}
    assert pictures.ActionMarks.from_step(step, "browser") is None
    assert pictures.annotated_step(blank(), step, "browser").getpixel((200, 100)) == WHITE


def test_sequence_children_are_numbered_and_all_drawn():
    marks = pictures.ActionMarks.from_step(
        {"action": "Sequence(actions=[Click(box=(100, 100)), Click(box=(900, 900))])",
         "screen_size": [400, 200]}, Surface.DESKTOP)
    out = pictures.draw_action(blank(), marks)
    assert is_red(out.getpixel((40, 20))) and is_red(out.getpixel((360, 180)))


def test_crop_around_stays_inside_the_image():
    image = blank(400, 200)
    crop = pictures.crop_around(image, (395, 5), (100, 80))
    assert crop.size == (100, 80)
    assert pictures.crop_around(image, (0, 0), (1000, 1000)).size == (400, 200)


def test_marks_scale_from_screen_units():
    marks = pictures.ActionMarks(Click((100, 50)), ScreenSize(200, 100))
    out = pictures.draw_action(blank(800, 400), marks)
    assert is_red(out.getpixel((400, 200)))


def test_fit_and_caption():
    small = pictures.fit(blank(800, 400), 200)
    assert small.size == (200, 100)
    assert pictures.fit(blank(100, 50), 200).size == (100, 50)
    framed = pictures.caption(small, "step 1: click")
    assert framed.width == 200 and framed.height > 100
