"""Shared by the loop benchmarks: the record observer, timing its own writes.

The loop times every phase but its record (a step is written after its timings are
final), so the benchmarks measure that phase here.
"""

from __future__ import annotations

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
