"""Where to let go of a mouse button that is still held when a run ends.

A button held across steps (`MouseDown`) is let go when the run stops, however it
stops. Letting go where the pointer happens to be can finish what the guard refused:
the pointer rests on the Delete button the `MouseUp` was gated on, so the release
clicks it; or it rests on Trash, so the release drops the file there. So the button
is let go at a neutral place instead: outside the window the press happened in (its
widget then sees the pointer leave and does not fire, its in-app drag lands nowhere),
preferably where no window is at all, and under a small window of the driver's own
that takes no drops (`Windows.shield`). The whole judgement lives here, as plain
geometry, so it is unit-tested without a display.
"""

from __future__ import annotations

from collections.abc import Iterable

Box = tuple[int, int, int, int]  # left, top, width, height
Point = tuple[int, int]

INSET = 24  # pixels from the monitor's edges (and its fail-safe corners)
COLUMNS, ROWS = 12, 8


def contains(box: Box, point: Point) -> bool:
    left, top, width, height = box
    return left <= point[0] < left + width and top <= point[1] < top + height


def topmost(boxes: list[Box], point: Point) -> Box | None:
    """The box on top at `point` (`boxes` run from bottom to top)."""
    return next((box for box in reversed(boxes) if contains(box, point)), None)


def candidates(monitor: Box) -> list[Point]:
    """A grid of points over the monitor, kept off its edges and corners."""
    left, top, width, height = monitor
    xs = [left + INSET + (width - 2 * INSET) * i // (COLUMNS - 1) for i in range(COLUMNS)]
    ys = [top + INSET + (height - 2 * INSET) * j // (ROWS - 1) for j in range(ROWS)]
    return [(x, y) for y in ys for x in xs]


def neutral_point(monitor: Box, boxes: list[Box], pressed: Iterable[Point]) -> Point:
    """Where letting go triggers nothing: off the windows under `pressed` points.

    Best is bare desktop (no window there); next, any place outside the pressed
    windows (the driver's shield covers it); failing both (a full-screen window), the
    point farthest from where the button went down.
    """
    pressed = list(pressed)
    avoid = [box for box in (topmost(boxes, p) for p in pressed) if box is not None]
    points = candidates(monitor)
    outside = [p for p in points if not any(contains(box, p) for box in avoid)]
    bare = [p for p in outside if topmost(boxes, p) is None]
    pool = bare or outside or points
    return max(pool, key=lambda p: min((_distance(p, q) for q in pressed), default=0))


def _distance(a: Point, b: Point) -> int:
    return (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2
