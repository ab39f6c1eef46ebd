"""Phone screenshots: two capture paths, measured, with automatic fallback.

`screencap -p` makes the phone encode a PNG, which takes 0.5-2 s on real phones.
Plain `screencap` streams the raw frame (a small header, then pixels) and the host
decodes it, which is usually much faster over USB but moves more bytes (slower
over Wi-Fi). The first capture times both and keeps the faster; a path that fails
later falls back to the other. Screens are sized in input coordinates: `wm size`
(its override when set), turned to match the frame's orientation, because on some
phones the captured frame and the touch space differ in resolution.
"""

from __future__ import annotations

import io
import logging
import re
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image, UnidentifiedImageError

from venusctl.core.errors import ActionFailed, DeviceError
from venusctl.core.grid import ScreenSize

log = logging.getLogger(__name__)

PATHS = ("raw", "png")

# Android's PixelFormat codes -> (bytes per pixel, PIL mode, PIL raw mode)
RAW_FORMATS: dict[int, tuple[int, str, str]] = {
    1: (4, "RGBA", "RGBA"),  # RGBA_8888
    2: (4, "RGB", "RGBX"),  # RGBX_8888
    3: (3, "RGB", "RGB"),  # RGB_888
    4: (2, "RGB", "BGR;16"),  # RGB_565
    5: (4, "RGBA", "BGRA"),  # BGRA_8888
}


class CaptureError(Exception):
    """One capture path produced something that is not a frame."""


def decode_raw(data: bytes) -> Image.Image:
    """A raw `screencap` frame as an RGB image.

    The header is width, height, format (u32 each) plus, from Android 8, a colour
    space; which one is told by the length. Rows may be padded to a stride.
    """
    if len(data) < 12:
        raise CaptureError(f"raw frame too short ({len(data)} bytes)")
    width, height, pixel_format = struct.unpack_from("<III", data)
    if pixel_format not in RAW_FORMATS:
        raise CaptureError(f"unknown raw pixel format {pixel_format}")
    bpp, mode, rawmode = RAW_FORMATS[pixel_format]
    if not (0 < width <= 16384 and 0 < height <= 16384):
        raise CaptureError(f"implausible raw frame size {width}x{height}")
    row = width * bpp
    for header in (16, 12):
        body = len(data) - header
        if body >= row * height and body % height == 0 and body // height - row < 256 * bpp:
            stride = body // height
            break
    else:
        raise CaptureError(f"raw frame of {len(data)} bytes does not fit {width}x{height}")
    image = Image.frombuffer(mode, (width, height), data[header:], "raw", rawmode, stride, 1)
    return image.convert("RGB") if image.mode != "RGB" else image


def decode_png(data: bytes) -> Image.Image:
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError) as exc:
        raise CaptureError(f"screencap -p gave no image: {exc}") from None
    return image.convert("RGB") if image.mode != "RGB" else image


def parse_wm_size(text: str) -> tuple[int, int] | None:
    """`wm size` output; an override (`wm size 720x1280`) wins over the physical size."""
    for label in ("Override size", "Physical size"):
        match = re.search(label + r":\s*(\d+)x(\d+)", text)
        if match:
            return int(match.group(1)), int(match.group(2))
    return None


def parse_density(text: str) -> int | None:
    for label in ("Override density", "Physical density"):
        match = re.search(label + r":\s*(\d+)", text)
        if match:
            return int(match.group(1))
    return None


def orient(input_size: tuple[int, int], frame: tuple[int, int]) -> ScreenSize:
    """The touch space turned like the frame (landscape frame -> landscape size)."""
    short, long = sorted(input_size)
    if frame[0] > frame[1]:
        return ScreenSize(long, short)
    if frame[0] < frame[1]:
        return ScreenSize(short, long)
    return ScreenSize(*input_size)


def encode(image: Image.Image, image_format: str, quality: int = 85) -> tuple[bytes, str]:
    """The bytes and MIME type the model and the record get."""
    buffer = io.BytesIO()
    if image_format == "png":
        image.save(buffer, format="PNG", compress_level=1)
        return buffer.getvalue(), "image/png"
    image.save(buffer, format="JPEG", quality=quality)
    return buffer.getvalue(), "image/jpeg"


@dataclass
class Frame:
    """One capture: the decoded image, and the phone's own PNG when that path made it."""

    image: Image.Image
    png: bytes | None = None
    path: str = "raw"


@dataclass
class Capturer:
    """Grabs frames through the faster path, measured on first use."""

    binary: Callable[[str], bytes]
    path: str | None = None  # "raw", "png", or None to measure
    timings: dict[str, float] = field(default_factory=dict)

    def grab(self) -> Frame:
        if self.path is None:
            return self._measure()
        try:
            return self._grab(self.path)
        except CaptureError as exc:
            other = "png" if self.path == "raw" else "raw"
            log.info("screenshot path %s failed (%s); switching to %s", self.path, exc, other)
            self.path = other
            try:
                return self._grab(other)
            except CaptureError as second:
                raise DeviceError(f"the phone gives no screenshots: {exc}; {second}") from None

    def _grab(self, path: str) -> Frame:
        try:
            if path == "raw":
                return Frame(decode_raw(self.binary("screencap")), None, "raw")
            data = self.binary("screencap -p")
        except ActionFailed as exc:
            raise CaptureError(str(exc)) from None
        return Frame(decode_png(data), data, "png")

    def _measure(self) -> Frame:
        """Time each path once (decoded frame in hand) and keep the faster."""
        frames: dict[str, Frame] = {}
        errors: dict[str, str] = {}
        for path in PATHS:
            start = time.perf_counter()
            try:
                frames[path] = self._grab(path)
            except CaptureError as exc:
                errors[path] = str(exc)
                continue
            self.timings[path] = time.perf_counter() - start
        if not frames:
            raise DeviceError(f"the phone gives no screenshots: {'; '.join(errors.values())}")
        self.path = min(frames, key=lambda p: self.timings[p])
        log.info("screenshot paths measured: %s; using %s",
                 ", ".join(f"{p} {t * 1000:.0f} ms" for p, t in self.timings.items()), self.path)
        return frames[self.path]
