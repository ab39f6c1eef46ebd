"""`venusctl batch`: many tasks, several surfaces at once, results a script can read.

The orchestrator only: it reads the task file, starts the file's environments,
checks every task before the first runs, builds the pool of surfaces, and hands
tasks to worker threads (each task waits only for a slot that can run it). Each
task is one `run_task` (see `venusctl.batch.task`); results are appended as tasks
end (`venusctl.batch.results`); progress and the final table are `venusctl.batch.display`.

Exit code: 0 only when every task passed (its run ended with the expected code and
every check held), 130 when interrupted, 1 otherwise.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from venusctl.batch.display import BatchDisplay
from venusctl.batch.environments import environments
from venusctl.batch.models import ModelSource
from venusctl.batch.pool import PoolOptions, Slot, SlotPool, build_slots
from venusctl.batch.results import (
    ResultsWriter,
    Summary,
    TaskResult,
    read_results,
    summarise,
)
from venusctl.batch.task import Shared, run_one
from venusctl.batch.taskfile import TaskFile, TaskSpec, read_task_file, resolve_tasks
from venusctl.cache import CacheOptions
from venusctl.core.errors import ExitCode, UsageError
from venusctl.records.store import new_run_id
from venusctl.run.build import ModelOptions
from venusctl.safety.setup import (
    approved_categories,
    make_policy_guard,
    read_safety_config,
    resolve_policy,
)

OnResult = Callable[[TaskResult], None]


@dataclass
class BatchOptions:
    file: Path
    runs_dir: Path
    concurrency: int = 1
    retry: int = 0
    continue_on_error: bool = False
    resume: Path | None = None
    out: Path | None = None
    pool: PoolOptions = field(default_factory=PoolOptions)
    model: ModelOptions = field(default_factory=ModelOptions)
    servers: tuple[str, ...] = ()
    assume_yes: bool = False
    cache: CacheOptions = field(default_factory=CacheOptions)  # off unless asked for


@dataclass
class BatchReport:
    name: str
    results: list[TaskResult]
    summary: Summary
    out: Path
    interrupted: bool = False

    @property
    def exit_code(self) -> int:
        if self.interrupted:
            return int(ExitCode.INTERRUPTED)
        ok = self.results and all(r.passed for r in self.results)
        return int(ExitCode.FINISHED if ok else ExitCode.FAILED)


def run_batch(options: BatchOptions, display: BatchDisplay | None = None,
              on_result: OnResult | None = None) -> BatchReport:
    """Run every task of the file; return when all have ended (or the batch stopped)."""
    if options.concurrency < 1 or options.retry < 0:
        raise UsageError("--concurrency must be at least 1 and --retry at least 0")
    display = display or BatchDisplay()
    raw = read_task_file(options.file)
    carried = read_results(options.resume) if options.resume else {}
    batch_id = "batch-" + new_run_id(raw.name)
    out = options.out or options.runs_dir / "batches" / f"{batch_id}.jsonl"
    cwd = options.file.resolve().parent
    with environments(raw.environments, cwd, out.parent / f"{batch_id}-env") as exported, \
            _exported(exported):
        tasks = resolve_tasks(raw, {**os.environ, **exported})
        models = ModelSource(options.model, options.servers)
        try:
            return _run(tasks, options, display, on_result, carried, out, models,
                        Shared(options.runs_dir, models, cwd, variables=dict(exported),
                               retry=options.retry, assume_yes=options.assume_yes,
                               batch_id=batch_id, observers=display.observers,
                               cache=options.cache))
        finally:
            models.close()


def _run(tasks: TaskFile, options: BatchOptions, display: BatchDisplay,
         on_result: OnResult | None, carried: Mapping[str, TaskResult], out: Path,
         models: ModelSource, shared: Shared) -> BatchReport:
    kept = [replace(carried[t.id], resumed=True) for t in tasks.tasks
            if t.id in carried and carried[t.id].passed]
    todo = [t for t in tasks.tasks if t.id not in {r.id for r in kept}]
    check_tasks(todo, models, options.assume_yes)
    pool_options = replace(options.pool, concurrency=options.concurrency)
    pool = SlotPool(build_slots(tuple(todo), pool_options))
    writer = ResultsWriter(out, kept)
    started = time.monotonic()
    collected: dict[str, TaskResult] = {r.id: r for r in kept}

    def finish(result: TaskResult) -> None:
        collected[result.id] = result
        writer.write(result)
        display.task_finished(result)
        if on_result is not None:
            on_result(result)

    shared.started = display.task_started
    display.begin(len(tasks.tasks), len(kept))
    try:
        interrupted = _schedule(todo, pool, shared, options, finish)
    finally:
        display.close()
    results = [collected[t.id] for t in tasks.tasks if t.id in collected]
    return BatchReport(tasks.name, results, summarise(results, time.monotonic() - started),
                       out, interrupted)


def check_tasks(tasks: list[TaskSpec], models: ModelSource, assume_yes: bool) -> None:
    """Everything that can be wrong with a task before anything runs: its policy, its
    pre-approved categories, `confirm: never` without `--yes`, its answers file."""
    config = read_safety_config()
    for spec in tasks:
        where = f"task '{spec.id}'"
        options = spec.safety(config)
        try:
            policy = resolve_policy(options)
            make_policy_guard(policy, spec.confirm, assume_yes)
            approved_categories(policy, options)
        except UsageError as exc:
            text = str(exc).replace("add --yes", "pass --yes to venusctl batch")
            raise UsageError(f"{where}: {text}") from None
        if models.uses_answers(spec) and spec.answers and not spec.answers.is_file():
            raise UsageError(f"{where}: answers file not found: {spec.answers}")


# ------------------------------------------------------------------ scheduling


class _Queue:
    """Pending tasks; `take` gives the first one a free slot can run."""

    def __init__(self, tasks: list[TaskSpec], pool: SlotPool) -> None:
        self.pending = list(tasks)
        self.pool = pool
        self.halted = False
        self._cond = threading.Condition()

    def take(self) -> tuple[TaskSpec, Slot] | None:
        with self._cond:
            while not self.halted and self.pending:
                for spec in self.pending:
                    slot = self.pool.try_take(spec)
                    if slot is not None:
                        self.pending.remove(spec)
                        return spec, slot
                self._cond.wait(0.5)
            return None

    def done(self, slot: Slot) -> None:
        self.pool.give_back(slot)
        with self._cond:
            self._cond.notify_all()

    def halt(self) -> list[TaskSpec]:
        with self._cond:
            self.halted = True
            left, self.pending = self.pending, []
            self._cond.notify_all()
            return left


def _schedule(todo: list[TaskSpec], pool: SlotPool, shared: Shared, options: BatchOptions,
              finish: OnResult) -> bool:
    """Run the tasks on worker threads; True when interrupted."""
    runnable = [t for t in todo if pool.can_run(t)]
    for spec in todo:
        if spec not in runnable:
            finish(_no_surface(spec))
    queue = _Queue(runnable, pool)

    def work(ended: threading.Event) -> None:
        try:
            while (taken := queue.take()) is not None:
                result = _run_taken(*taken, queue, shared)
                finish(result)
                if not (result.passed or options.continue_on_error or shared.stop.is_set()):
                    for left in queue.halt():
                        finish(TaskResult.skipped(left.id, left.task, left.driver,
                                                  f"not run: task '{result.id}' failed "
                                                  "(--continue-on-error runs every task)"))
        finally:
            try:
                shared.browsers.close_mine()  # before the end is reported: nothing outlives it
            finally:
                ended.set()

    count = max(1, min(options.concurrency, len(pool.slots), len(runnable)))
    ended = [threading.Event() for _ in range(count)]
    for index, event in enumerate(ended):
        threading.Thread(target=work, args=(event,), name=f"batch-{index + 1}",
                         daemon=True).start()
    return _wait(ended, queue, shared)


def _run_taken(spec: TaskSpec, slot: Slot, queue: _Queue, shared: Shared) -> TaskResult:
    try:
        return run_one(spec, slot, shared)
    finally:
        queue.done(slot)


def _wait(ended: list[threading.Event], queue: _Queue, shared: Shared) -> bool:
    """Wait for the workers; on Ctrl-C, stop them at their next step. True if interrupted.

    Workers report their end through events: a `Thread.join` that Ctrl-C interrupts
    can leave a thread looking dead while it still runs (CPython before 3.12).
    """
    try:
        for event in ended:
            while not event.wait(0.2):
                pass
    except KeyboardInterrupt:
        shared.stop.set()
        queue.halt()
        for event in ended:
            event.wait()
        return True
    return False


def _no_surface(spec: TaskSpec) -> TaskResult:
    what = {"android": "no phone", "web": "no browser", "desktop": "no desktop"}[spec.driver]
    pinned = f" {spec.device}" if spec.device else ""
    return TaskResult(spec.id, spec.task, spec.driver, None, False, "device_error",
                      int(ExitCode.UNAVAILABLE),
                      error=f"{what}{pinned} is available for this task (see --phone)")


@contextmanager
def _exported(variables: Mapping[str, str]) -> Iterator[None]:
    """Put the environments' variables into this process's environment for the
    batch (drivers read DISPLAY and the adb server from it); restore it afterwards."""
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
