"""Where a pixel of the screenshot is on the pointer's plane, exactly.

Three coordinate spaces meet on a desktop:

* the model's 0..999 grid, mapped by `venusctl.core.grid` onto the captured image;
* the captured image, in physical pixels (a Retina Mac captures 2x its points);
* the pointer, in the units the OS moves the mouse in, over the whole virtual
  desktop (a monitor right of the primary starts at x = its left edge).

`PointerMap` is the one place that converts image pixels to pointer coordinates
and back, from the monitor's rectangle (pointer units) and the image's size. Each
image pixel maps to the pointer position that covers its centre, so nothing drifts
at any scale, and results are clamped into the monitor.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from venusctl.core.grid import ScreenSize

Point = tuple[int, int]


@dataclass(frozen=True)
class Monitor:
    """One monitor as mss reports it: a rectangle of the virtual desktop in pointer units.

    `index` is mss's numbering (1 is the first monitor; 0, all of them together, is
    never chosen by the driver).
    """

    index: int
    left: int
    top: int
    width: int
    height: int
    primary: bool = False
    name: str | None = None

    @classmethod
    def from_mss(cls, index: int, info: dict[str, Any]) -> Monitor:
        name = info.get("name") or info.get("output")
        return cls(index, int(info["left"]), int(info["top"]), int(info["width"]),
                   int(info["height"]), bool(info.get("is_primary", False)),
                   str(name) if name else None)

    def as_dict(self) -> dict[str, Any]:
        return {"index": self.index, "left": self.left, "top": self.top, "width": self.width,
                "height": self.height, "primary": self.primary, "name": self.name}

    def region(self) -> dict[str, int]:
        """The rectangle in the form mss's `grab` takes."""
        return {"left": self.left, "top": self.top, "width": self.width, "height": self.height}

    def contains(self, x: int, y: int) -> bool:
        return self.left <= x < self.left + self.width and self.top <= y < self.top + self.height

    def describe(self) -> str:
        flags = " primary" if self.primary else ""
        label = f" {self.name}" if self.name else ""
        return f"{self.index}: {self.width}x{self.height}+{self.left}+{self.top}{flags}{label}"


@dataclass(frozen=True)
class PointerMap:
    """Image pixels of one monitor's capture <-> pointer coordinates of the desktop."""

    monitor: Monitor
    image: ScreenSize

    @property
    def scale_x(self) -> float:
        return self.image.width / self.monitor.width

    @property
    def scale_y(self) -> float:
        return self.image.height / self.monitor.height

    def to_pointer(self, x: int, y: int) -> Point:
        """The pointer position covering the centre of image pixel (x, y)."""
        px = self.monitor.left + math.floor((x + 0.5) / self.scale_x)
        py = self.monitor.top + math.floor((y + 0.5) / self.scale_y)
        return (_clamp(px, self.monitor.left, self.monitor.left + self.monitor.width - 1),
                _clamp(py, self.monitor.top, self.monitor.top + self.monitor.height - 1))

    def rect_to_image(self, left: int, top: int, width: int, height: int) -> tuple[
            int, int, int, int]:
        """A pointer-space rectangle as `(left, top, width, height)` in image pixels,
        cut to the monitor (zero-sized when it lies outside)."""
        m = self.monitor
        x0, y0 = max(left, m.left), max(top, m.top)
        x1, y1 = min(left + width, m.left + m.width), min(top + height, m.top + m.height)
        if x1 <= x0 or y1 <= y0:
            return (0, 0, 0, 0)
        ix0 = math.floor((x0 - m.left) * self.scale_x)
        iy0 = math.floor((y0 - m.top) * self.scale_y)
        ix1 = math.ceil((x1 - m.left) * self.scale_x)
        iy1 = math.ceil((y1 - m.top) * self.scale_y)
        return (ix0, iy0, ix1 - ix0, iy1 - iy0)


def avoid_corners(point: Point, corners: Iterable[Point], monitor: Monitor) -> Point:
    """Move a target off pyautogui's fail-safe corners by one pixel, into the monitor.

    The fail-safe stops the run when the pointer rests on a corner of the screen (the
    user's kill switch). A click the model aims at a corner would otherwise leave the
    pointer there and trip it on the next action.
    """
    if point not in set(corners):
        return point
    x, y = point
    centre_x = monitor.left + monitor.width / 2
    centre_y = monitor.top + monitor.height / 2
    x += 1 if x < centre_x else -1
    y += 1 if y < centre_y else -1
    return (x, y)


def choose_monitor(monitors: list[Monitor], wanted: int | None) -> Monitor:
    """The monitor `--monitor N` names (mss numbering), else the primary, else the first.

    Raises `LookupError` with the valid numbers when N does not exist.
    """
    if not monitors:
        raise LookupError("no monitor found")
    if wanted is None:
        return next((m for m in monitors if m.primary), monitors[0])
    for monitor in monitors:
        if monitor.index == wanted:
            return monitor
    numbers = ", ".join(str(m.index) for m in monitors)
    raise LookupError(f"there is no monitor {wanted}; monitors: {numbers}")


def _clamp(value: int, low: int, high: int) -> int:
    return min(max(value, low), high)
