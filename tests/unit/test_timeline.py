"""The time chart: per-phase totals and bars proportional to seconds."""

from __future__ import annotations

import re

from venusctl.present import timeline
from venusctl.records.store import StepRecord

STEPS = [
    StepRecord(1, 0.0, timings={"observe": 0.5, "model": 2.0, "act": 0.5}),
    StepRecord(2, 0.0, timings={"observe": 0.5, "model": 1.0, "bogus": "x"}),  # type: ignore[dict-item]
]


def test_totals_in_loop_order():
    totals = timeline.totals(timeline.step_times(STEPS))
    assert list(totals) == ["observe", "model", "act"]
    assert totals == {"observe": 1.0, "model": 3.0, "act": 0.5}


def test_bars_are_proportional_and_titled():
    svg = timeline.svg(STEPS)
    assert svg.startswith("<svg") and "model: 3.000 s" in svg
    widths = {t: float(w) for w, t in re.findall(
        r'width="([\d.]+)" height="\d+" fill="[^"]+"><title>all · (\w+)', svg)}
    assert abs(widths["model"] / widths["observe"] - 3.0) < 0.01
    assert "model 3.00 s (67 %)" in svg


def test_no_timings_no_chart():
    assert timeline.svg([StepRecord(1, 0.0, timings={})]) == ""
    assert timeline.svg([]) == ""
