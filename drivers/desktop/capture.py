"""Screenshots of one monitor with mss, and the list of monitors.

mss grabs raw BGRA straight from the display server in a few milliseconds; the
frame becomes a PIL image without a copy through `frombuffer`, and is encoded once,
as the model will see it (JPEG by default: PNG costs about five times as long at
1920x1080, measured in `benchmarks/desktop_loop.py`).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from typing import Any

from PIL import Image

from venusctl.core.errors import DeviceError
from venusctl.core.text import first_line
from venusctl.drivers.desktop.geometry import Monitor

MIMES = {"jpeg": "image/jpeg", "png": "image/png"}


def _open_mss() -> Any:
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        raise DeviceError("no X display: set DISPLAY to capture the desktop")
    try:
        import mss

        factory = getattr(mss, "MSS", None) or mss.mss  # mss 10 renamed mss.mss to mss.MSS
        return factory()
    except Exception as exc:
        raise DeviceError(f"cannot capture the screen: {first_line(exc)}") from None


def list_monitors() -> list[Monitor]:
    """Every monitor mss sees, numbered as `--monitor` takes them (1, 2, …)."""
    grabber = _open_mss()
    try:
        return [Monitor.from_mss(i, info) for i, info in enumerate(grabber.monitors) if i > 0]
    finally:
        grabber.close()


class Capturer:
    """Grabs one monitor's region and encodes frames for the model."""

    def __init__(self, image_format: str = "jpeg", jpeg_quality: int = 80) -> None:
        if image_format not in MIMES:
            raise DeviceError(f"unknown image format '{image_format}' (jpeg or png)")
        self.image_format = image_format
        self.jpeg_quality = jpeg_quality
        self._mss = _open_mss()

    def monitors(self) -> list[Monitor]:
        return [Monitor.from_mss(i, info) for i, info in enumerate(self._mss.monitors) if i > 0]

    def grab(self, monitor: Monitor) -> Image.Image:
        """The monitor's pixels now, as an RGB image in physical pixels."""
        try:
            shot = self._mss.grab(monitor.region())
        except Exception as exc:
            raise DeviceError(f"cannot capture the screen: {first_line(exc)}") from None
        return Image.frombuffer("RGB", shot.size, shot.bgra, "raw", "BGRX", 0, 1)

    def encode(self, image: Image.Image) -> tuple[bytes, str]:
        """The image as the bytes and MIME type the model receives."""
        out = io.BytesIO()
        if self.image_format == "jpeg":
            image.save(out, "JPEG", quality=self.jpeg_quality)
        else:
            image.save(out, "PNG", compress_level=1)
        return out.getvalue(), MIMES[self.image_format]

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the display may already be gone
            self._mss.close()


