"""Drawing on screenshots: the one place that marks points, boxes, arrows and labels.

The HTML report, the animated GIF, the live TUI and the safety confirmation crop all
show a person what the agent did or is about to do. They draw through this module so
a click looks the same everywhere and the scaling from screen units (CSS pixels,
device pixels) to image pixels is done once, here.

Coordinates passed to the `mark_*` helpers are image pixels. `ActionMarks` carries an
action in screen units plus the screen size, and `draw_action` scales it.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from venusctl.core.actions import (
    Action,
    CallUser,
    Click,
    DoubleClick,
    Drag,
    Finished,
    Hotkey,
    Hover,
    KeyDown,
    KeyUp,
    Launch,
    LaunchApp,
    LongPress,
    MiddleClick,
    MouseDown,
    MouseUp,
    RightClick,
    Scroll,
    Sequence,
    Surface,
    Swipe,
    TripleClick,
    Type,
    WheelScroll,
    describe,
    parse_action,
)
from venusctl.core.errors import ParseError
from venusctl.core.grid import ScreenSize, to_pixels
from venusctl.core.text import one_line

Point = tuple[int, int]
Box = tuple[int, int, int, int]  # left, top, width, height
Colour = tuple[int, int, int]

ACTION_COLOUR: Colour = (235, 38, 80)
ELEMENT_COLOUR: Colour = (40, 160, 255)
LABEL_BG: Colour = (20, 20, 28)
LABEL_FG: Colour = (255, 255, 255)

_FONT_NAMES = ("DejaVuSans.ttf", "NotoSans-Regular.ttf", "LiberationSans-Regular.ttf",
               "Arial.ttf", "arial.ttf")
_CLICK_WORDS = {
    DoubleClick: "x2", TripleClick: "x3", RightClick: "right", MiddleClick: "middle",
    LongPress: "hold", MouseDown: "down", MouseUp: "up", Hover: "hover",
}
_SCROLL_VECTORS = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}


# --------------------------------------------------------------------- primitives


@lru_cache(maxsize=32)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A system sans font with wide Unicode coverage when there is one (typed text may
    be any language), else Pillow's bundled font, which every machine has."""
    for name in _FONT_NAMES:
        try:
            return ImageFont.truetype(name, max(8, size))
        except OSError:
            continue
    return ImageFont.load_default(size=max(8, size))


def stroke_for(image: Image.Image) -> int:
    """Line width that stays visible on a phone screenshot and a 4K desktop alike."""
    return max(2, round(min(image.size) / 220))


def mark_point(
    image: Image.Image, xy: Point, colour: Colour = ACTION_COLOUR, radius: int | None = None,
    hollow: bool = False,
) -> None:
    """A target ring with a dot in its centre, drawn in place."""
    draw = ImageDraw.Draw(image)
    width = stroke_for(image)
    r = radius or width * 6
    x, y = xy
    draw.ellipse((x - r - width, y - r - width, x + r + width, y + r + width),
                 outline=(255, 255, 255), width=width)
    draw.ellipse((x - r, y - r, x + r, y + r), outline=colour, width=width + 1)
    if not hollow:
        dot = max(2, r // 3)
        draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=colour)


def mark_box(image: Image.Image, box: Box, colour: Colour = ELEMENT_COLOUR) -> None:
    """An outline around an element; `box` is left, top, width, height in image pixels."""
    draw = ImageDraw.Draw(image)
    left, top, width, height = box
    draw.rectangle((left, top, left + width, top + height), outline=colour,
                   width=stroke_for(image))


def mark_arrow(
    image: Image.Image, start: Point, end: Point, colour: Colour = ACTION_COLOUR,
) -> None:
    """A line from `start` with an arrow head at `end` (swipes, drags, scrolls)."""
    draw = ImageDraw.Draw(image)
    width = stroke_for(image) + 1
    draw.line((start, end), fill=colour, width=width)
    angle = math.atan2(end[1] - start[1], end[0] - start[0])
    head = width * 5
    left = (end[0] - head * math.cos(angle - 0.45), end[1] - head * math.sin(angle - 0.45))
    right = (end[0] - head * math.cos(angle + 0.45), end[1] - head * math.sin(angle + 0.45))
    draw.polygon((end, left, right), fill=colour)
    r = width * 2
    draw.ellipse((start[0] - r, start[1] - r, start[0] + r, start[1] + r), fill=colour)


def mark_label(
    image: Image.Image, xy: Point, text: str, colour: Colour = LABEL_BG,
    text_colour: Colour = LABEL_FG, size: int | None = None,
) -> Box:
    """Text on a solid patch, kept inside the image; returns the patch's box."""
    draw = ImageDraw.Draw(image)
    face = font(size or max(12, round(min(image.size) / 40)))
    text = one_line(text, 80)
    left, top, right, bottom = draw.textbbox((0, 0), text, font=face)
    pad = max(3, (bottom - top) // 4)
    w, h = right - left + 2 * pad, bottom - top + 2 * pad
    x = min(max(0, xy[0]), max(0, image.width - w))
    y = min(max(0, xy[1]), max(0, image.height - h))
    draw.rectangle((x, y, x + w, y + h), fill=colour)
    draw.text((x + pad - left, y + pad - top), text, font=face, fill=text_colour)
    return (x, y, w, h)


def crop_around(image: Image.Image, xy: Point, size: tuple[int, int]) -> Image.Image:
    """A `size` window centred on `xy`, shifted to stay inside the image."""
    w, h = min(size[0], image.width), min(size[1], image.height)
    left = min(max(0, xy[0] - w // 2), image.width - w)
    top = min(max(0, xy[1] - h // 2), image.height - h)
    return image.crop((left, top, left + w, top + h))


def blur_boxes(image: Image.Image, boxes: list[Box], radius: int | None = None) -> Image.Image:
    """A copy with each box (image pixels) blurred beyond reading: password and card
    fields in screenshots that are kept or shown."""
    out = image.copy()
    for left, top, width, height in boxes:
        area = (max(0, left), max(0, top), min(out.width, left + width),
                min(out.height, top + height))
        if area[2] <= area[0] or area[3] <= area[1]:
            continue
        patch = out.crop(area)
        strength = radius or max(6, min(patch.size) // 2)
        out.paste(patch.filter(ImageFilter.GaussianBlur(strength)), area[:2])
    return out


def encode(image: Image.Image, kind: str = "png", quality: int = 80) -> bytes:
    """The image as PNG or JPEG bytes (JPEG drops alpha)."""
    out = io.BytesIO()
    if kind == "jpeg":
        image.convert("RGB").save(out, "JPEG", quality=quality, optimize=True)
    else:
        image.save(out, "PNG", optimize=True)
    return out.getvalue()


# ------------------------------------------------------------------ actions drawn


@dataclass(frozen=True)
class ActionMarks:
    """An action placed on a screen (screen units) and what it was aimed at."""

    action: Action
    size: ScreenSize
    element: Box | None = None

    @classmethod
    def from_step(cls, step: Mapping[str, Any], surface: Surface | str) -> ActionMarks | None:
        """From a step as recorded (steps.jsonl or `StepRecord.as_dict()`).

        The grid action is read back with the parser and placed again, so the marks
        land exactly where the agent acted. None when the step has no readable action.
        """
        text, size = step.get("action"), step.get("screen_size")
        if not text or not size:
            return None
        try:
            grid = parse_action(text, Surface(surface))
        except (ParseError, ValueError):
            return None
        screen = ScreenSize(int(size[0]), int(size[1]))
        placed = to_pixels(grid, screen, Surface(surface))
        bounds = (step.get("element") or {}).get("bounds")
        box = tuple(int(v) for v in bounds) if bounds and len(bounds) == 4 else None
        return cls(placed, screen, box)  # type: ignore[arg-type]


def draw_action(image: Image.Image, marks: ActionMarks) -> Image.Image:
    """A copy of `image` with the action drawn on it (RGB)."""
    out = image.convert("RGB")
    sx, sy = out.width / marks.size.width, out.height / marks.size.height

    def at(point: Point) -> Point:
        return (round(point[0] * sx), round(point[1] * sy))

    if marks.element is not None:
        left, top, w, h = marks.element
        mark_box(out, (round(left * sx), round(top * sy), round(w * sx), round(h * sy)))
    actions = marks.action.actions if isinstance(marks.action, Sequence) else (marks.action,)
    for number, action in enumerate(actions, start=1):
        prefix = f"{number}. " if len(actions) > 1 else ""
        _draw_one(out, action, at, prefix, number - 1)
    return out


def _draw_one(image: Image.Image, action: Action, at: Any, prefix: str, row: int) -> None:
    """One action: dots for pointer actions, arrows for motion, labels for the rest."""
    point = getattr(action, "point", None)
    banner_y = 4 + row * max(20, round(min(image.size) / 22))
    if isinstance(action, (Swipe, Drag)) and action.end is not None:
        end = at(action.end)
        if action.start is not None:
            mark_arrow(image, at(action.start), end)
        else:
            mark_point(image, end)
        _label_near(image, end, prefix + action.NAME.lower())
    elif isinstance(action, Scroll) and point is not None:
        start = at(point)
        dx, dy = _SCROLL_VECTORS.get(action.direction, (0, 1))
        length = min(image.size) // 6
        mark_arrow(image, start, (start[0] + dx * length, start[1] + dy * length))
        _label_near(image, start, f"{prefix}scroll {action.direction}")
    elif point is not None:
        centre = at(point)
        mark_point(image, centre, hollow=isinstance(action, Hover))
        word = _CLICK_WORDS.get(type(action), "")
        if word or prefix:
            _label_near(image, centre, (prefix + word).strip())
    elif isinstance(action, Type):
        mark_label(image, (4, banner_y), f"{prefix}type “{action.content}”")
    else:
        mark_label(image, (4, banner_y), prefix + _words(action))


def _label_near(image: Image.Image, xy: Point, text: str) -> None:
    if text:
        offset = stroke_for(image) * 9
        mark_label(image, (xy[0] + offset, xy[1] + offset), text)


def _words(action: Action) -> str:
    if isinstance(action, (Hotkey, KeyDown, KeyUp)):
        verb = {Hotkey: "keys", KeyDown: "hold keys", KeyUp: "release keys"}[type(action)]
        return f"{verb} {'+'.join(action.keys)}"
    if isinstance(action, WheelScroll):
        direction = ("up" if action.amount > 0 else "down") if action.axis == "vertical" else (
            "right" if action.amount > 0 else "left")
        return f"scroll {direction} {abs(action.amount)}"
    if isinstance(action, Launch):
        return f"open {action.url}"
    if isinstance(action, LaunchApp):
        return f"launch {action.app}"
    if isinstance(action, (Finished, CallUser)):
        return f"{action.NAME}: {action.content}" if action.content else action.NAME
    if isinstance(action, Click):
        return "click at the cursor"
    return describe(action)


def annotated_step(
    image: Image.Image, step: Mapping[str, Any], surface: Surface | str,
) -> Image.Image:
    """The step's screenshot with its action drawn; unchanged (RGB) when there is none."""
    marks = ActionMarks.from_step(step, surface)
    return draw_action(image, marks) if marks else image.convert("RGB")


def fit(
    image: Image.Image, max_width: int, max_height: int | None = None,
    resample: Image.Resampling = Image.Resampling.LANCZOS,
) -> Image.Image:
    """Shrink to fit (never enlarge), keeping the aspect ratio (BILINEAR is faster)."""
    scale = min(1.0, max_width / image.width,
                (max_height / image.height) if max_height else 1.0)
    if scale >= 1.0:
        return image
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    return image.resize(size, resample, reducing_gap=2.0)


def caption(image: Image.Image, text: str, height: int | None = None) -> Image.Image:
    """The image with a dark caption strip below it (GIF frames)."""
    strip = height or max(24, image.width // 28)
    out = Image.new("RGB", (image.width, image.height + strip), LABEL_BG)
    out.paste(image.convert("RGB"), (0, 0))
    draw = ImageDraw.Draw(out)
    face = font(round(strip * 0.55))
    text = one_line(text, max(20, image.width // max(1, round(strip * 0.3))))
    draw.text((8, image.height + strip // 2), text, font=face, fill=LABEL_FG, anchor="lm")
    return out
