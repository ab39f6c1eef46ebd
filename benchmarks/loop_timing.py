"""Shared by the loop benchmarks: the record observer, timing its own writes.

The loop times every phase but its record (a step is written after its timings are
final), so the benchmarks measure that phase here.
"""

from __future__ import annotations

import statistics
import time

from venusctl.records.store import Recorder, StepRecord
from venusctl.run.observers import RecordObserver


class TimedRecord(RecordObserver):
    """The record observer, timing its own writes (the loop's record phase)."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__(recorder)
        self.records: list[StepRecord] = []

    def step_finished(self, record: StepRecord) -> None:
        started = time.perf_counter()
        super().step_finished(record)
        record.timings["record"] = time.perf_counter() - started
        self.records.append(record)


def print_reading(records: list[StepRecord]) -> None:
    """The guard phase's OCR on the steps that read something: every step that presses
    (a click, a tap) and every hover over a target the driver could not name."""
    read = [r.timings["ocr"] * 1000 for r in records if r.timings.get("ocr")]
    if read:
        print(f"  ocr on the {len(read)} steps that read the target: median "
              f"{statistics.median(read):.1f} ms, longest {max(read):.1f} ms")
    else:
        print("  ocr: no step read its target (Tesseract missing?)")
