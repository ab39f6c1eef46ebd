"""The OCR step of the guard phase, with a stand-in reader (real Tesseract: integration)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from tests.support.fakes import FakeDriver, png
from venusctl.core.actions import Surface
from venusctl.core.errors import ExitCode
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import Element, Screen, ScreenContext
from venusctl.loop.agent import Agent
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import Recorder, RunInfo, load_run
from venusctl.run.observers import RecordObserver
from venusctl.safety.confirm import NonInteractiveConfirmer
from venusctl.safety.guard import FOCUS, Target
from venusctl.safety.ocr import (
    crop_box,
    element_box,
    groups_for,
    needs_reading,
    prepared,
    read_points,
    read_target,
    within_window,
)
from venusctl.safety.policy import load_policy
from venusctl.safety.policy_guard import PolicyGuard

pytestmark = pytest.mark.unit


@dataclass
class StandIn:
    """Reads a fixed text and remembers what it was shown."""

    text: str = "Pay €49"
    boxes: list = field(default_factory=list)

    def read(self, image, box, context, centre=None) -> str:
        self.boxes.append(box)
        return self.text

    def read_window(self, image, box, context) -> str:
        self.boxes.append(box)
        return self.text


def test_only_targets_without_words_of_their_own_are_read():
    assert needs_reading(None)
    assert needs_reading(Element(tag="canvas"))
    assert needs_reading(Element(role="button", resource_id="btn_confirm"))  # an id is not shown
    assert needs_reading(Element(name="Chart", extra={"nameless": True}))
    assert not needs_reading(Element(name="Pay now", role="button"))
    assert not needs_reading(Element(tag="canvas", extra={"ocr": ""}))  # read already


def test_the_crop_follows_the_point_onto_the_image_and_stays_inside_it():
    assert crop_box((640, 400), (1280, 800), (1280, 800)) == (480, 352, 800, 448)
    assert crop_box((640, 400), (1280, 800), (2560, 1600)) == (960, 704, 1600, 896)  # HiDPI
    assert crop_box((5, 5), (1280, 800), (1280, 800)) == (0, 0, 320, 96)
    assert crop_box((1279, 799), (1280, 800), (1280, 800)) == (960, 704, 1280, 800)


def test_scripts_of_the_screen_choose_the_languages_besides_latin():
    assert groups_for(ScreenContext(title="Checkout")) == ("latin",)
    assert groups_for(ScreenContext(title="장바구니", app="shop")) == ("latin", "hangul")
    assert groups_for(ScreenContext(title="Корзина — 商店")) == ("latin", "cyrillic", "cjk")


@pytest.mark.parametrize(("fill", "ink"), [((0, 113, 227), (255, 255, 255)),
                                           ((255, 204, 0), (0, 0, 0))])
def test_a_control_is_cut_out_as_dark_ink_on_white_whatever_its_colours(fill, ink):
    crop = Image.new("RGB", (320, 96), (250, 250, 250))
    draw = ImageDraw.Draw(crop)
    draw.text((10, 5), "neighbour", fill=(0, 0, 0))  # outside the control: left out
    draw.rounded_rectangle((110, 28, 210, 68), radius=8, fill=fill)
    draw.rectangle((140, 44, 180, 52), fill=ink)  # stands for the label's strokes
    out = np.asarray(prepared(crop))
    assert out.shape[1] < 320 * 3  # cut down to the control
    assert (out == 0).sum() > 0 and (out == 255).mean() > 0.5  # dark ink on white
    assert out[:14].min() == 255  # a white margin


def _menu() -> Image.Image:
    """Rows of a list (left) under a two-item popup menu (a raised grey window)."""
    crop = Image.new("RGB", (320, 96), (217, 217, 217))
    draw = ImageDraw.Draw(crop)
    for top in (10, 40, 70):  # the list's rows, partly under the menu
        draw.rectangle((10, top, 120, top + 12), fill=(0, 0, 0))
    draw.rectangle((100, 20, 220, 80), fill=(217, 217, 217), outline=(120, 120, 120))
    draw.rectangle((110, 28, 150, 40), fill=(0, 0, 0))  # "Open"
    draw.rectangle((110, 58, 160, 70), fill=(0, 0, 0))  # "Delete"
    return crop


def _ink(picture: Image.Image) -> tuple[int, int]:
    """The height and width of the ink, in screen pixels (the picture is scaled by 3)."""
    rows, columns = np.nonzero(np.asarray(picture) == 0)
    return (rows.max() - rows.min() + 1) // 3, (columns.max() - columns.min() + 1) // 3


def test_among_rows_of_plain_text_the_line_at_the_point_is_read():
    menu = _menu().crop((100, 20, 221, 81))  # cut to the menu's window
    assert _ink(prepared(menu, (60, 44))) == (13, 51)  # "Delete" alone
    assert _ink(prepared(menu, (60, 14))) == (13, 41)  # "Open" alone


def test_a_point_between_lines_reads_the_nearest_one():
    menu = _menu().crop((100, 20, 221, 81))
    assert _ink(prepared(menu, (60, 34))) == (13, 51)  # nearer "Delete" (38-50) than "Open"


def test_the_crop_stays_inside_the_window_the_point_is_in():
    box = crop_box((215, 163), (1920, 1080), (1920, 1080))
    assert within_window(box, (215, 163), [169, 118, 92, 60], (1, 1)) == (169, 118, 261, 178)
    assert within_window(box, (215, 163), [0, 0, 30, 30], (1, 1)) == box  # not in it
    assert within_window(box, (215, 163), "junk", (1, 1)) == box
    hidpi = crop_box((215, 163), (1920, 1080), (3840, 2160))
    assert within_window(hidpi, (215, 163), [169, 118, 92, 60], (2, 2)) == (338, 236, 522, 356)


def test_the_reader_is_told_where_the_point_is_inside_the_cut_crop():
    seen = []

    class Where(StandIn):
        def read(self, image, box, context, centre=None) -> str:
            seen.append((box, centre))
            return "Delete"

    image = Image.new("RGB", (1920, 1080), (217, 217, 217))
    element = Element(extra={"unidentified": True, "window_bounds": [169, 118, 92, 60]})
    found, _ = read_target(Where(), image, (215, 163), (1920, 1080), element, ScreenContext())
    assert seen == [((169, 118, 261, 178), (46, 45))]
    assert found.extra["ocr"] == "Delete" and found.extra["window_bounds"] == [169, 118, 92, 60]


def test_nameless_points_are_read_and_keep_what_the_driver_said():
    screen = Screen(png(1000, 500), "image/png", ScreenSize(1000, 500), ScreenContext())
    canvas = Element(tag="canvas", extra={"nameless": True})
    targets = (Target((500, 250), canvas), Target((10, 10), Element(name="Home")),
               Target(FOCUS, None))
    reader = StandIn()
    found = read_points(reader, targets, screen)  # nothing pressed: a hover
    assert found[0].element.extra == {"nameless": True, "ocr": "Pay €49"}
    assert found[0].element.tag == "canvas"
    assert found[1:] == targets[1:] and len(reader.boxes) == 1


def test_a_pressed_point_is_read_even_when_the_driver_named_it():
    screen = Screen(png(1000, 500), "image/png", ScreenSize(1000, 500), ScreenContext())
    named = Element(name="Continue", role="button", bounds=(440, 230, 120, 40))
    targets = (Target((500, 250), named), Target((10, 10), Element(name="Home")))
    reader = StandIn()
    found = read_points(reader, targets, screen, frozenset({(500, 250)}))
    assert found[0].element.extra == {"ocr": "Pay €49"}  # both reads said so: kept once
    assert found[0].element.name == "Continue"
    assert reader.boxes == [crop_box((500, 250), (1000, 500), (1000, 500)),
                            (440, 230, 560, 270)]  # around the point, then the element
    assert found[1] == targets[1]  # only hovered, and named: not read


def test_the_two_readings_are_both_kept():
    seen = []

    class TwoReadings(StandIn):
        def read(self, image, box, context, centre=None) -> str:
            seen.append("line")
            return "Continue"

        def read_window(self, image, box, context) -> str:
            seen.append("box")
            return "Pay €49"

    image = Image.new("RGB", (1000, 500))
    found, _ = read_target(TwoReadings(), image, (500, 250), (1000, 500),
                           Element(name="Continue", bounds=(300, 200, 400, 100)),
                           ScreenContext())
    assert seen == ["line", "box"] and found.extra["ocr"] == "Continue | Pay €49"


def test_only_a_named_elements_own_box_of_row_size_around_the_point_is_read_whole():
    size = (1000, 500)
    button = Element(name="Pay", bounds=(440, 230, 120, 40))
    assert element_box(button, (500, 250), size, size) == (440, 230, 560, 270)
    assert element_box(button, (500, 250), size, (2000, 1000)) == (880, 460, 1120, 540)
    assert element_box(button, (10, 10), size, size) is None  # the point is elsewhere
    assert element_box(Element(name="Page", bounds=(0, 0, 1000, 500)), (500, 250), size,
                       size) is None  # the whole page: not one control
    assert element_box(Element(name="Column", bounds=(450, 0, 100, 400)), (500, 250), size,
                       size) is None  # taller than a third of the screen
    assert element_box(Element(tag="canvas", bounds=(440, 230, 120, 40)), (500, 250), size,
                       size) is None  # nameless: the line at the point is its reading
    assert element_box(Element(name="Pay"), (500, 250), size, size) is None  # no bounds


def test_the_reader_remembers_the_same_pixels_read_the_same_way(monkeypatch):
    from venusctl.safety import ocr

    reader = ocr.TesseractReader()
    calls = []
    monkeypatch.setattr(reader, "_each_group",
                        lambda picture, context, read: calls.append(read) or "Pay")
    image = Image.new("RGB", (400, 200), (250, 250, 250))
    ImageDraw.Draw(image).rectangle((100, 80, 200, 120), fill=(0, 0, 0))
    context = ScreenContext(title="Shop")
    box = (50, 50, 250, 150)
    assert reader.read(image, box, context) == "Pay"
    assert reader.read(image.copy(), box, context) == "Pay"  # the same pixels: remembered
    assert len(calls) == 1
    reader.read_window(image, box, context)  # another way of reading: read again
    reader.read(image, box, context, centre=(10, 10))  # another point: read again
    reader.read(image, box, ScreenContext(title="Магазин"))  # other engines: read again
    ImageDraw.Draw(image).point((120, 100), fill=(255, 255, 255))
    reader.read(image, box, context)  # one pixel changed: read again
    assert len(calls) == 5


def test_the_loop_reads_a_nameless_target_records_it_and_times_the_phase(tmp_path: Path):
    driver = FakeDriver(surface=Surface.BROWSER, element=Element(tag="canvas"),
                        context_value=ScreenContext(url="https://games.example/", title="Store"))
    model = ScriptedModel([Completion(text="<think>x</think><action>Click(point=(500, 500))"
                                           "</action>")])
    recorder = Recorder(tmp_path, "get gold")
    info = RunInfo(recorder.run_id, "get gold", "browser", "fake", model.name, recorder.run_dir)
    agent = Agent(driver, model, PolicyGuard(load_policy("default")), NonInteractiveConfirmer(),
                  "sys", info, observers=[RecordObserver(recorder)], reader=StandIn())
    assert agent.run().exit_code == ExitCode.NEEDS_USER and driver.performed == []
    step = load_run(recorder.run_dir).steps()[0]
    assert step.verdict["category"] == "payment"
    assert step.element["extra"]["ocr"] == "Pay €49"
    assert "ocr" in step.timings
