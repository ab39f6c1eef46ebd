"""Half-block pictures: two pixels per cell, colours preserved, aspect kept."""

from __future__ import annotations

from PIL import Image
from rich.console import Console

from venusctl.present.halfblock import UPPER_HALF, HalfBlockImage, cell_size, rows_of


def test_cell_size_keeps_the_aspect_ratio():
    assert cell_size((1280, 800), 80, 100) == (80, 25)
    assert cell_size((100, 400), 80, 20) == (10, 20)
    assert cell_size((0, 10), 80, 20) == (0, 0)


def test_top_and_bottom_pixels_become_foreground_and_background():
    image = Image.new("RGB", (2, 2))
    image.putpixel((0, 0), (255, 0, 0))
    image.putpixel((0, 1), (0, 0, 255))
    segment = rows_of(image, 2, 1)[0][0]
    assert segment.text == UPPER_HALF
    assert segment.style.color.triplet == (255, 0, 0)
    assert segment.style.bgcolor.triplet == (0, 0, 255)


def test_renders_within_the_width_given():
    console = Console(width=40, color_system="truecolor", record=True)
    console.print(HalfBlockImage(Image.new("RGB", (400, 200), (9, 9, 9)), max_rows=50))
    lines = console.export_text().splitlines()
    assert len(lines) == 10 and all(len(line) == 40 for line in lines)
