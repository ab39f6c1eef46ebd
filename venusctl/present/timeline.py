"""Where a run's time went, as an inline SVG chart for the HTML report.

One stacked bar per step, one colour per phase (observe, model, act, settle, …),
and a totals bar on top, so a person sees at a glance whether the model, the
device or the waiting dominated. Pure string building: no plotting library, no
external resources, so the report stays one self-contained file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import escape
from typing import Any

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


def step_times(steps: Iterable[Mapping[str, Any]]) -> list[StepTimes]:
    """Each recorded step's phase timings, ignoring values that are not numbers."""
    out = []
    for step in steps:
        timings = step.get("timings") or {}
        phases = {
            str(k): float(v) for k, v in timings.items()
            if isinstance(v, (int, float)) and v >= 0
        }
        out.append(StepTimes(int(step.get("step", len(out) + 1)), phases))
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


def svg(steps: Iterable[Mapping[str, Any]]) -> str:
    """The chart as an `<svg>` element (empty string when no step has timings)."""
    times = step_times(steps)
    summed = totals(times)
    grand = sum(summed.values())
    if grand <= 0:
        return ""
    longest = max(item.total for item in times) or grand
    rows = [_bar(0, "all", summed, grand, grand, bold=True)]
    rows += [
        _bar(i + 1, f"step {item.step}", item.phases, item.total, longest)
        for i, item in enumerate(times)
    ]
    legend_y = (len(times) + 1) * (ROW_H + GAP) + GAP
    legend = _legend(summed, grand, legend_y)
    height = legend_y + 22 * ((len(summed) + 3) // 4) + GAP
    width = LABEL_W + BAR_W + VALUE_W
    return (
        f'<svg class="timeline" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12">'
        f"<title>Time per step and phase</title>{''.join(rows)}{legend}</svg>"
    )


def _bar(
    row: int, label: str, phases: Mapping[str, float], total: float, scale: float,
    bold: bool = False,
) -> str:
    """One stacked bar; the first row (all steps) is scaled to the full width."""
    y = row * (ROW_H + GAP)
    weight = ' font-weight="bold"' if bold else ""
    parts = [f'<text x="{LABEL_W - 6}" y="{y + ROW_H - 5}" text-anchor="end"{weight}>'
             f"{escape(label)}</text>"]
    x = float(LABEL_W)
    for phase, seconds in sorted(phases.items(), key=lambda kv: _order(kv[0])):
        w = BAR_W * seconds / scale if scale > 0 else 0.0
        if w <= 0:
            continue
        parts.append(
            f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{ROW_H}" '
            f'fill="{colour(phase)}"><title>{escape(label)} · {escape(phase)}: '
            f"{seconds:.3f} s</title></rect>"
        )
        x += w
    parts.append(f'<text x="{x + 6:.1f}" y="{y + ROW_H - 5}">{_seconds(total)}</text>')
    return "".join(parts)


def _legend(summed: Mapping[str, float], grand: float, y: int) -> str:
    items = []
    for i, (phase, seconds) in enumerate(summed.items()):
        col, line = i % 4, i // 4
        x = LABEL_W + col * (BAR_W // 4)
        yy = y + line * 22
        share = 100.0 * seconds / grand
        items.append(
            f'<rect x="{x}" y="{yy}" width="12" height="12" fill="{colour(phase)}"/>'
            f'<text x="{x + 16}" y="{yy + 11}">{escape(phase)} {_seconds(seconds)} '
            f"({share:.0f} %)</text>"
        )
    return "".join(items)


def _seconds(value: float) -> str:
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"
