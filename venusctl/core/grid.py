"""From the model's 0..999 grid to pixels on the screen an action runs on.

One explicit contract per screenshot: the model saw an image of `width x height`
screen units (device pixels on a phone, captured pixels on a desktop, CSS pixels of
the viewport in a browser) and answered on a 0..999 grid. The UI-Venus authors map
back with `x * W / 1000` on mobile and browser and `x * W / 999` on the desktop; we
follow them per surface, round halves up, and clamp into the screen so a 999 never
lands off the edge. Resizing the image before it reaches the model does not change
this mapping.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from venusctl.core.actions import POINT_FIELDS, Action, Point, Sequence, Surface

DIVISOR = {Surface.MOBILE: 1000, Surface.BROWSER: 1000, Surface.DESKTOP: 999}


@dataclass(frozen=True)
class ScreenSize:
    """The size of the screen in the units its driver acts in."""

    width: int
    height: int

    def __str__(self) -> str:
        return f"{self.width}x{self.height}"


def to_pixel(point: Point, size: ScreenSize, surface: Surface) -> Point:
    """One grid point to a pixel inside the screen."""
    divisor = DIVISOR[surface]
    x = math.floor(point[0] * size.width / divisor + 0.5)
    y = math.floor(point[1] * size.height / divisor + 0.5)
    return (min(max(x, 0), size.width - 1), min(max(y, 0), size.height - 1))


def to_grid(pixel: Point, size: ScreenSize, surface: Surface) -> Point:
    """The inverse mapping, used by tests, reports and `venusctl ground`."""
    divisor = DIVISOR[surface]
    x = math.floor(pixel[0] * divisor / size.width + 0.5)
    y = math.floor(pixel[1] * divisor / size.height + 0.5)
    return (min(max(x, 0), 999), min(max(y, 0), 999))


def to_pixels(action: Action, size: ScreenSize, surface: Surface) -> Action:
    """The same action with every coordinate placed on the screen in pixels."""
    if isinstance(action, Sequence):
        return Sequence(tuple(to_pixels(child, size, surface) for child in action.actions))
    changes = {}
    for field in dataclasses.fields(action):
        value = getattr(action, field.name)
        if field.name in POINT_FIELDS and value is not None:
            changes[field.name] = to_pixel(value, size, surface)
    return dataclasses.replace(action, **changes) if changes else action
