"""Where a run's time went, as an inline SVG chart for the HTML report.

One stacked bar per step, one colour per phase (observe, model, act, settle, …),
and a totals bar on top, so a person sees at a glance whether the model, the
device or the waiting dominated. The geometry is computed here and drawn by
`templates/timeline.svg.j2` (autoescaped: phase names come from the record); no plotting
library, no external resources, so the report stays one self-contained file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from venusctl.present.render import render
from venusctl.records.store import StepRecord

PHASES = ("observe", "model", "parse", "place", "describe", "guard", "confirm", "act", "settle")
COLOURS = {
    "observe": "#4e79a7", "model": "#e15759", "parse": "#b07aa1", "place": "#9c755f",
    "describe": "#76b7b2", "guard": "#edc948", "confirm": "#f28e2b", "act": "#59a14f",
    "settle": "#bab0ac",
}
OTHER_COLOUR = "#d3d3d3"

ROW_H = 18
GAP = 6
LABEL_W = 70
BAR_W = 640
VALUE_W = 70


@dataclass(frozen=True)
class StepTimes:
    step: int
    phases: dict[str, float]

    @property
    def total(self) -> float:
        return sum(self.phases.values())


def step_times(steps: Iterable[StepRecord]) -> list[StepTimes]:
    """Each recorded step's phase timings, ignoring values that are not numbers."""
    out = []
    for step in steps:
        phases = {
            str(k): float(v) for k, v in step.timings.items()
            if isinstance(v, (int, float)) and v >= 0
        }
        out.append(StepTimes(step.step, phases))
    return out


def totals(times: list[StepTimes]) -> dict[str, float]:
    """Seconds per phase over the whole run, in the loop's phase order."""
    summed: dict[str, float] = {}
    for item in times:
        for phase, seconds in item.phases.items():
            summed[phase] = summed.get(phase, 0.0) + seconds
    return dict(sorted(summed.items(), key=lambda kv: _order(kv[0])))


def _order(phase: str) -> int:
    return PHASES.index(phase) if phase in PHASES else len(PHASES)


def colour(phase: str) -> str:
    return COLOURS.get(phase, OTHER_COLOUR)


@dataclass(frozen=True)
class Bar:
    """One stacked bar of the chart, in SVG units; `rects` are (x, width, phase, seconds)."""

    label: str
    y: int
    bold: bool
    rects: tuple[tuple[float, float, str, float], ...]
    total: float
    end: float


@dataclass(frozen=True)
class Swatch:
    """One legend entry: a colour square and the phase's share of the whole run."""

    x: int
    y: int
    phase: str
    seconds: float
    share: float


def svg(steps: Iterable[StepRecord]) -> str:
    """The chart as an `<svg>` element (empty string when no step has timings)."""
    times = step_times(steps)
    summed = totals(times)
    grand = sum(summed.values())
    if grand <= 0:
        return ""
    longest = max(item.total for item in times) or grand
    bars = [_bar(0, "all", summed, grand, grand, bold=True)]
    bars += [_bar(i + 1, f"step {item.step}", item.phases, item.total, longest)
             for i, item in enumerate(times)]
    legend_y = (len(times) + 1) * (ROW_H + GAP) + GAP
    height = legend_y + 22 * ((len(summed) + 3) // 4) + GAP
    return render("timeline.svg.j2", bars=bars, legend=_legend(summed, grand, legend_y),
                  width=LABEL_W + BAR_W + VALUE_W, height=height, row_h=ROW_H,
                  label_w=LABEL_W, colour=colour, seconds=_seconds)


def _bar(row: int, label: str, phases: Mapping[str, float], total: float, scale: float,
         bold: bool = False) -> Bar:
    """One stacked bar; the first row (all steps) is scaled to the full width."""
    rects, x = [], float(LABEL_W)
    for phase, seconds in sorted(phases.items(), key=lambda kv: _order(kv[0])):
        w = BAR_W * seconds / scale if scale > 0 else 0.0
        if w > 0:
            rects.append((x, w, phase, seconds))
            x += w
    return Bar(label, row * (ROW_H + GAP), bold, tuple(rects), total, x)


def _legend(summed: Mapping[str, float], grand: float, y: int) -> list[Swatch]:
    return [Swatch(LABEL_W + (i % 4) * (BAR_W // 4), y + (i // 4) * 22, phase, seconds,
                   100.0 * seconds / grand)
            for i, (phase, seconds) in enumerate(summed.items())]


def _seconds(value: float) -> str:
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"
