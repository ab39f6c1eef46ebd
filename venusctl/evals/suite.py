"""`venusctl eval suite`: a task file run as a benchmark, scored by its checks.

A suite is a batch file (usually with `environments:` that start local apps) run to
the end whatever fails, then reported as a success rate with steps and time per
task. It is recorded in `RUNS_DIR/evals/suite-<id>/`: the batch's `results.jsonl`
(each line links the task's run record) and `suite.json` with the summary.

The built-in suite (`builtin/suite.yaml`, shipped in the package with its scripted
answers) runs on the simulated environments of `venusctl.sim`, so it needs no file,
device or model: `venusctl eval suite` with no argument.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from venusctl.batch.display import BatchDisplay
from venusctl.batch.runner import BatchOptions, BatchReport, run_batch
from venusctl.batch.taskfile import read_task_file
from venusctl.core.errors import UsageError
from venusctl.records.store import new_run_id


@dataclass
class SuiteReport:
    batch: BatchReport
    record_dir: Path
    summary: dict[str, Any]

    @property
    def exit_code(self) -> int:
        return self.batch.exit_code


def builtin_suite() -> Path:
    """The suite file shipped with venusctl (a real file beside its answers)."""
    path = Path(str(resources.files("venusctl.evals").joinpath("builtin", "suite.yaml")))
    if not path.is_file():
        raise UsageError(f"the built-in suite is missing from this installation ({path}); "
                         "reinstall venusctl")
    return path


def run_suite(options: BatchOptions, display: BatchDisplay | None = None) -> SuiteReport:
    """Run every task of the suite (never stopping at a failure) and write the record."""
    name = read_task_file(options.file).name  # a broken file leaves no record behind
    eval_id = "suite-" + new_run_id(name)
    folder = options.runs_dir / "evals" / eval_id
    started = time.time()
    batch = run_batch(replace(options, continue_on_error=True,
                              out=options.out or folder / "results.jsonl"), display)
    summary = suite_summary(batch)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {folder}: {exc.strerror or exc}") from None
    info = {"eval_id": eval_id, "kind": "suite", "suite": str(options.file),
            "name": batch.name, "started_at": started, "ended_at": time.time(),
            "results": str(batch.out), "interrupted": batch.interrupted, **summary}
    tmp = folder / "suite.json.tmp"
    tmp.write_text(json.dumps(info, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, folder / "suite.json")
    return SuiteReport(batch, folder, info)


def suite_summary(batch: BatchReport) -> dict[str, Any]:
    """Success rate, and steps and seconds per task (mean over the tasks that ran)."""
    ran = [r for r in batch.results if r.status != "skipped"]
    tasks = [{"id": r.id, "passed": r.passed, "status": r.status, "exit_code": r.exit_code,
              "steps": r.steps, "seconds": r.seconds, "tries": max(len(r.attempts), 1),
              "run_dir": r.run_dir} for r in batch.results]
    return {
        "tasks": len(batch.results),
        "passed": sum(r.passed for r in batch.results),
        "success_rate": round(batch.summary.rate, 4),
        "mean_steps": round(sum(r.steps for r in ran) / len(ran), 2) if ran else 0.0,
        "mean_seconds": round(sum(r.seconds for r in ran) / len(ran), 3) if ran else 0.0,
        "per_task": tasks,
    }
