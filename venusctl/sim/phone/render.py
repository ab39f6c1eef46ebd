"""Drawing the simulated phone's widgets into frames, and the two screencap formats.

`screencap` (no `-p`) writes a raw frame: width, height, pixel format and, from
Android 8, a colour-space word, each a little-endian u32, then RGBA pixels.
`screencap -p` writes a PNG encoded on the phone.
"""

from __future__ import annotations

import io
import struct
import time
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from venusctl.sim.phone.app import ANIMATION_S, Widget

PIXEL_FORMAT_RGBA_8888 = 1
BACKGROUND = (250, 250, 250)
INK = (33, 33, 33)
ACCENT = (26, 115, 232)


@lru_cache(maxsize=8)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(size, 8))


def draw_frame(root: Widget, size: tuple[int, int], animating_until: float) -> Image.Image:
    """The screen as the user would see it, at logical size `size`."""
    image = Image.new("RGB", size, BACKGROUND)
    draw = ImageDraw.Draw(image)
    unit = max(size[1] // 48, 8)
    for widget in root.walk():
        _draw(draw, widget, unit)
    remaining = animating_until - time.monotonic()
    if remaining > 0:  # a transition still running: the new screen fades in from grey
        veil = Image.new("RGB", size, (128, 128, 128))
        image = Image.blend(image, veil, min(remaining / ANIMATION_S, 1.0))
    return image


def _draw(draw: ImageDraw.ImageDraw, widget: Widget, unit: int) -> None:
    box = widget.box
    style = widget.style
    label = widget.drawn or widget.text or widget.desc
    if style == "title":
        draw.text((box[0] + unit, box[1]), label, fill=INK, font=font(int(unit * 1.6)))
    elif style == "icon":
        draw.rounded_rectangle((box[0] + unit, box[1], box[2] - unit, box[3] - 2 * unit),
                               radius=unit, fill=_colour(widget.text))
        draw.text((box[0], box[3] - int(1.6 * unit)), label, fill=INK, font=font(unit))
    elif style in ("button", "card"):
        draw.rounded_rectangle(box, radius=unit // 2, fill=ACCENT if style == "button"
                               else (224, 224, 224))
        draw.text((box[0] + unit, box[1] + unit // 2), label,
                  fill=(255, 255, 255) if style == "button" else INK, font=font(int(unit * 1.2)))
    elif style == "field":
        draw.rectangle(box, outline=ACCENT if widget.focused else (150, 150, 150),
                       width=3 if widget.focused else 1)
        shown = widget.text or widget.hint
        draw.text((box[0] + unit // 2, box[1] + unit // 2), shown,
                  fill=INK if widget.text else (150, 150, 150), font=font(int(unit * 1.2)))
    elif style == "switch":
        fill = ACCENT if widget.checked else (189, 189, 189)
        draw.rounded_rectangle(box, radius=(box[3] - box[1]) // 2, fill=fill)
        knob = box[2] - (box[3] - box[1]) if widget.checked else box[0]
        draw.ellipse((knob, box[1], knob + box[3] - box[1], box[3]), fill=(255, 255, 255))
    elif style == "slider":
        middle = (box[1] + box[3]) // 2
        draw.line((box[0], middle, box[2], middle), fill=(189, 189, 189), width=4)
        x = box[0] + (box[2] - box[0]) * int(widget.text or 0) // 100
        draw.ellipse((x - unit // 2, middle - unit // 2, x + unit // 2, middle + unit // 2),
                     fill=ACCENT)
    elif style == "photo":
        zoom = 2 if widget.desc.endswith("200%") else 1
        inset = (box[2] - box[0]) // (4 * zoom)
        draw.rectangle(box, fill=(144, 202, 249))
        draw.ellipse((box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset),
                     fill=(30, 136, 229))
    elif style == "popup":
        draw.rectangle(box, fill=(255, 255, 255), outline=INK)
    elif style == "notice":
        draw.rectangle(box, fill=(255, 243, 224))
        draw.text((box[0] + unit // 2, box[1] + unit // 4), label, fill=(191, 54, 12),
                  font=font(unit))
    elif style == "row":
        draw.line((box[0], box[3] - 1, box[2], box[3] - 1), fill=(230, 230, 230))
    elif label:
        draw.text((box[0], box[1] + unit // 3), label, fill=INK, font=font(int(unit * 1.1)))


def _colour(label: str) -> tuple[int, int, int]:
    from venusctl.sim.phone.app import APPS

    return next((a.color for a in APPS if a.label == label), (120, 120, 120))


def raw_frame(image: Image.Image, sdk: int) -> bytes:
    """`screencap` output: the header (with colour space from API 26) and RGBA pixels."""
    rgba = image.convert("RGBA")
    header = struct.pack("<III", rgba.width, rgba.height, PIXEL_FORMAT_RGBA_8888)
    if sdk >= 26:
        header += struct.pack("<I", 0)
    return header + rgba.tobytes()


def png_frame(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()
