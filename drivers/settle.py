"""Waiting for a screen to stop changing, instead of sleeping a fixed time.

After an action, a page may navigate, a list may scroll on, a dialog may fade in.
A fixed `sleep(2.5)` is both too long for a button that reacts at once and too short
for a slow load. Instead we compare successive frames and stop as soon as two in a
row match, with a cap so an endless animation cannot stall the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PIL import Image, ImageChops, ImageStat

THUMB = (96, 96)
TOLERANCE = 1.0  # mean absolute difference (0..255) below which frames count as equal


def fingerprint(image: Image.Image) -> Image.Image:
    """A small greyscale copy: cheap to compare, blind to a blinking caret."""
    return image.convert("L").resize(THUMB, Image.Resampling.BILINEAR)


def frames_match(a: Image.Image, b: Image.Image, tolerance: float = TOLERANCE) -> bool:
    """True when two fingerprints differ by less than `tolerance` on average."""
    if a.size != b.size:
        return False
    diff = ImageChops.difference(a, b)
    return ImageStat.Stat(diff).mean[0] < tolerance


def wait_until_stable(
    grab: Callable[[], Image.Image],
    cap_s: float,
    interval_s: float = 0.05,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> float:
    """Grab frames until two successive ones match or `cap_s` passes; return the wait."""
    start = clock()
    previous = fingerprint(grab())
    while clock() - start < cap_s:
        sleep(interval_s)
        current = fingerprint(grab())
        if frames_match(previous, current):
            break
        previous = current
    return clock() - start
