"""Point-in-box scoring, as the grounding benchmarks define it.

A prediction is correct when its point, mapped from the 0..999 grid to image
pixels, lies inside the ground-truth box, edges included. A negative sample (the
target is not on the screen) is correct only when the model answers `[-1,-1]`.
An answer with no readable point is wrong. Accuracy is reported overall, for text
and icon targets, and per platform and per application.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from venusctl.core.grid import ScreenSize
from venusctl.evals.dataset import Sample

Grid = tuple[int, int]


def grid_to_image(grid: Grid, size: ScreenSize, desktop: bool) -> tuple[float, float]:
    """The grid point in image pixels (desktop maps with /999, the others with /1000,
    as the model's authors do)."""
    divisor = 999 if desktop else 1000
    return grid[0] * size.width / divisor, grid[1] * size.height / divisor


def is_correct(sample: Sample, grid: Grid | None, size: ScreenSize, found_answer: bool = True
               ) -> bool:
    """`grid` None with `found_answer` means the model said `[-1,-1]`; an unreadable
    answer passes `found_answer=False` and is always wrong."""
    if not found_answer:
        return False
    if sample.box is None:
        return grid is None
    if grid is None:
        return False
    x, y = grid_to_image(grid, size, sample.desktop)
    x1, y1, x2, y2 = sample.box
    return x1 <= x <= x2 and y1 <= y <= y2


@dataclass
class Counts:
    correct: int = 0
    total: int = 0

    def add(self, correct: bool) -> None:
        self.total += 1
        self.correct += int(correct)

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"correct": self.correct, "total": self.total,
                "accuracy": round(self.accuracy, 4)}


@dataclass
class _Split:
    """Overall, text and icon counts for one slice of the data."""

    overall: Counts = field(default_factory=Counts)
    by_kind: dict[str, Counts] = field(default_factory=lambda: defaultdict(Counts))

    def add(self, sample: Sample, correct: bool) -> None:
        self.overall.add(correct)
        self.by_kind["negative" if sample.negative else sample.kind].add(correct)

    def as_dict(self) -> dict[str, Any]:
        return {"overall": self.overall.as_dict(),
                **{kind: counts.as_dict() for kind, counts in sorted(self.by_kind.items())}}


class Tally:
    """Running accuracy: overall, text/icon (and negatives), per platform and application."""

    def __init__(self) -> None:
        self.all = _Split()
        self.platforms: dict[str, _Split] = defaultdict(_Split)
        self.applications: dict[str, _Split] = defaultdict(_Split)
        self.unreadable = 0

    def add(self, sample: Sample, correct: bool, readable: bool = True) -> None:
        self.all.add(sample, correct)
        self.platforms[sample.platform].add(sample, correct)
        self.applications[sample.application].add(sample, correct)
        self.unreadable += int(not readable)

    @property
    def accuracy(self) -> float:
        return self.all.overall.accuracy

    def summary(self) -> dict[str, Any]:
        every = self.all.as_dict()
        return {
            "overall": every["overall"],
            "text": every.get("text", Counts().as_dict()),
            "icon": every.get("icon", Counts().as_dict()),
            **({"negative": every["negative"]} if "negative" in every else {}),
            "unreadable_answers": self.unreadable,
            "by_platform": {k: v.as_dict() for k, v in sorted(self.platforms.items())},
            "by_application": {k: v.as_dict() for k, v in sorted(self.applications.items())},
        }
