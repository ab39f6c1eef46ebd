"""The picture a person sees before confirming: the target, marked, cut out of the screen.

A terminal cannot show the screenshot, so the confirmation prints the path of a
crop saved in the run folder (`confirm-NNN.png`), with the action drawn where it
will land and the target element boxed. The screen it is cut from is the one the
model saw, with password fields already blurred.
"""

from __future__ import annotations

import logging
from pathlib import Path

from venusctl.core.actions import Action, points_of
from venusctl.core.pictures import ActionMarks, crop_around, draw_action, encode, fit
from venusctl.drivers.base import Element, Screen
from venusctl.records.store import write_whole

log = logging.getLogger(__name__)

CROP_SIZE = (720, 480)


def save_crop(
    screen: Screen, placed: Action, element: Element | None, run_dir: Path, step: int,
) -> Path | None:
    """Write the marked crop for `step`; None when it could not be made (never fatal)."""
    try:
        image = draw_action(screen.image, ActionMarks(placed, screen.size,
                                                      element.bounds if element else None))
        sx, sy = image.width / screen.size.width, image.height / screen.size.height
        centre = _centre(placed, element)
        if centre is None:
            picture = fit(image, CROP_SIZE[0] * 2, CROP_SIZE[1] * 2)
        else:
            picture = crop_around(image, (round(centre[0] * sx), round(centre[1] * sy)),
                                  CROP_SIZE)
        path = run_dir / f"confirm-{step:03d}.png"
        write_whole(path, encode(picture, "png"))  # a full disk leaves no half picture
        return path
    except (OSError, ValueError) as exc:
        log.warning("could not save the confirmation picture: %s", exc)
        return None


def _centre(placed: Action, element: Element | None) -> tuple[int, int] | None:
    points = points_of(placed)
    if points:
        return points[0]
    if element is not None and element.bounds:
        left, top, width, height = element.bounds
        return (left + width // 2, top + height // 2)
    return None
