"""Pictures in any terminal: two pixels per character cell with the upper half block.

Every colour terminal can show `▀` with a foreground (the upper pixel) and a
background (the lower pixel), so the live view shows the screenshot without relying
on a graphics protocol the terminal may lack. Terminal cells are about twice as tall
as wide, so one cell with two stacked pixels is roughly square and the aspect ratio
of the screenshot is kept.
"""

from __future__ import annotations

from PIL import Image
from rich.color import Color
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style

UPPER_HALF = "▀"


def cell_size(image_size: tuple[int, int], max_cols: int, max_rows: int) -> tuple[int, int]:
    """Columns and rows that fit the image into the box, keeping its aspect ratio."""
    width, height = image_size
    if width <= 0 or height <= 0 or max_cols <= 0 or max_rows <= 0:
        return (0, 0)
    scale = min(max_cols / width, (2 * max_rows) / height)
    cols = max(1, min(max_cols, round(width * scale)))
    rows = max(1, min(max_rows, round(height * scale / 2)))
    return (cols, rows)


def rows_of(image: Image.Image, cols: int, rows: int) -> list[list[Segment]]:
    """The image resized to `cols` x `2*rows` pixels, as one list of segments per row."""
    small = image.convert("RGB").resize((cols, rows * 2), Image.Resampling.BILINEAR)
    pixels = small.load()
    styles: dict[tuple[tuple[int, int, int], tuple[int, int, int]], Style] = {}
    lines = []
    for row in range(rows):
        line = []
        for col in range(cols):
            top, bottom = pixels[col, 2 * row], pixels[col, 2 * row + 1]
            key = (top, bottom)
            style = styles.get(key)
            if style is None:
                style = Style(color=Color.from_rgb(*top), bgcolor=Color.from_rgb(*bottom))
                styles[key] = style
            line.append(Segment(UPPER_HALF, style))
        lines.append(line)
    return lines


class HalfBlockImage:
    """A rich renderable drawing a PIL image in at most `max_rows` terminal rows."""

    def __init__(self, image: Image.Image, max_rows: int | None = None) -> None:
        self.image = image
        self.max_rows = max_rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        max_rows = self.max_rows or options.height or options.size.height
        cols, rows = cell_size(self.image.size, options.max_width, max_rows)
        if not cols:
            return
        for line in rows_of(self.image, cols, rows):
            yield from line
            yield Segment.line()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, options.max_width)
