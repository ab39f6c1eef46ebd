"""Batch results: one JSON line per task, written as each task ends.

Lines are appended and fsync'ed at once, so an interrupted batch leaves every
finished task on disk and `--resume` can pick up where it stopped. Each line links
the run records of the task's attempts (`run_dir`, `attempts[].run_dir`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venusctl.core.errors import UsageError


@dataclass
class Attempt:
    """One try at a task: its run record and how it ended."""

    number: int
    status: str
    exit_code: int
    passed: bool
    answer: str = ""
    steps: int = 0
    seconds: float = 0.0
    run_id: str | None = None
    run_dir: str | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    servers: dict[str, int] = field(default_factory=dict)
    replayed: int = 0  # steps answered from the trajectory cache

    def as_dict(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass
class TaskResult:
    """A task's final result: its last attempt, and every attempt before it."""

    id: str
    task: str
    driver: str
    slot: str | None
    passed: bool
    status: str
    exit_code: int
    answer: str = ""
    steps: int = 0
    seconds: float = 0.0
    run_id: str | None = None
    run_dir: str | None = None
    checks: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    resumed: bool = False
    finished_at: float = field(default_factory=time.time)
    replayed: int = 0  # steps of the last attempt answered from the trajectory cache

    @classmethod
    def from_attempts(cls, spec_id: str, task: str, driver: str, slot: str | None,
                      attempts: list[Attempt]) -> TaskResult:
        last = attempts[-1]
        return cls(spec_id, task, driver, slot, last.passed, last.status, last.exit_code,
                   last.answer, last.steps, round(sum(a.seconds for a in attempts), 3),
                   last.run_id, last.run_dir, last.checks, last.error,
                   [a.as_dict() for a in attempts], replayed=last.replayed)

    @classmethod
    def skipped(cls, spec_id: str, task: str, driver: str, why: str) -> TaskResult:
        return cls(spec_id, task, driver, None, False, "skipped", 1, error=why)

    def as_dict(self) -> dict[str, Any]:
        return dict(vars(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskResult:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


class ResultsWriter:
    """Appends result lines; safe to call from several worker threads."""

    def __init__(self, path: Path, carried: list[TaskResult]) -> None:
        self.path = path
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("w", encoding="utf-8") as out:
                for result in carried:
                    out.write(_line(result))
        except OSError as exc:
            raise UsageError(f"cannot write results to {path}: {exc.strerror or exc}") from None

    def write(self, result: TaskResult) -> None:
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(_line(result))
            out.flush()
            os.fsync(out.fileno())


def _line(result: TaskResult) -> str:
    return json.dumps(result.as_dict(), ensure_ascii=False, default=str) + "\n"


def read_results(path: Path) -> dict[str, TaskResult]:
    """The last result of each task id in a results file (for `--resume`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"--resume: no results file {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--resume: cannot read {path}: {exc}") from None
    found: dict[str, TaskResult] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            found[str(data["id"])] = TaskResult.from_dict(data)
        except (json.JSONDecodeError, KeyError, TypeError):
            if number == len(text.splitlines()):
                continue  # the last line of a killed batch may be cut short
            raise UsageError(f"--resume: {path}:{number} is not a result line") from None
    return found


@dataclass(frozen=True)
class Summary:
    """Totals for the end of a batch or a suite."""

    total: int
    passed: int
    failed: int
    skipped: int
    resumed: int
    seconds: float
    steps: int

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"total": self.total, "passed": self.passed, "failed": self.failed,
                "skipped": self.skipped, "resumed": self.resumed,
                "success_rate": round(self.rate, 4), "seconds": round(self.seconds, 3),
                "steps": self.steps}


def summarise(results: list[TaskResult], wall_s: float) -> Summary:
    skipped = sum(r.status == "skipped" for r in results)
    passed = sum(r.passed for r in results)
    return Summary(len(results), passed, len(results) - passed - skipped, skipped,
                   sum(r.resumed for r in results), wall_s,
                   sum(r.steps for r in results if not r.resumed))
