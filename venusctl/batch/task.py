"""One task of a batch on one slot: setup, the run, the checks, retries.

The run itself is `venusctl.run.build.run_task` with one `RunRequest`, exactly as
`venusctl do` makes it, so a batch task leaves the same record a person's run
does. Around it: the task's shell setup, its own driver (kept open past the run so
the checks see what the agent left; on the web, a fresh context in the worker's
browser, see `venusctl.batch.browsers`), the app it asks for, and the checks.
Nobody is at a terminal: confirmations and questions fail closed (exit 3).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venusctl.batch.browsers import LOST_NOTE, BatchBrowsers
from venusctl.batch.checks import CheckContext, run_checks, screen_context
from venusctl.batch.models import ModelSource, SpreadModel
from venusctl.batch.pool import Slot
from venusctl.batch.results import Attempt, TaskResult
from venusctl.batch.taskfile import TaskSpec
from venusctl.cache import CacheOptions, CacheRun
from venusctl.core.actions import LaunchApp
from venusctl.core.errors import DeviceError, ExitCode, VenusError
from venusctl.drivers.base import Driver
from venusctl.drivers.factory import surface_of
from venusctl.drivers.wrappers import LentDriver
from venusctl.loop.events import RunObserver, StepGate
from venusctl.records.store import Outcome, RunInfo, StepRecord
from venusctl.safety.confirm import NonInteractiveConfirmer

log = logging.getLogger(__name__)

SETUP_TIMEOUT_S = 300.0
APP_APPEAR_S = 15.0


@dataclass
class Shared:
    """What every task of a batch shares."""

    runs_dir: Path
    models: ModelSource
    cwd: Path
    stop: threading.Event = field(default_factory=threading.Event)
    variables: dict[str, str] = field(default_factory=dict)
    retry: int = 0
    assume_yes: bool = False
    batch_id: str = ""
    observers: Callable[[TaskSpec], list[RunObserver]] | None = None  # progress per task
    started: Callable[[TaskSpec, str, int], None] | None = None  # (task, slot, attempt)
    cache: CacheOptions = field(default_factory=CacheOptions)
    browsers: BatchBrowsers = field(default_factory=BatchBrowsers)  # each worker's own


class StopGate(StepGate):
    """Ends a run before its next step once the batch is told to stop (Ctrl-C)."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop

    def before_step(self, step: int) -> str | None:
        if self.stop.is_set():
            raise KeyboardInterrupt
        return None


class _RunCapture(RunObserver):
    """Learns the run's id and folder, to link them from the results."""

    def __init__(self) -> None:
        self.info: RunInfo | None = None
        self.steps = 0
        self.replayed = 0

    def run_started(self, info: RunInfo) -> None:
        self.info = info

    def step_finished(self, record: StepRecord) -> None:
        self.steps = record.step
        self.replayed += record.source == "replayed"


def run_one(spec: TaskSpec, slot: Slot, shared: Shared) -> TaskResult:
    """Run a task until it passes or its retries are used up."""
    attempts: list[Attempt] = []
    for number in range(1, shared.retry + 2):
        if shared.started is not None:
            shared.started(spec, slot.label, number)
        attempt = run_attempt(spec, slot, shared, number)
        attempts.append(attempt)
        if attempt.passed or shared.stop.is_set() or attempt.status in ("interrupted", "error"):
            break
    return TaskResult.from_attempts(spec.id, spec.task, spec.driver, slot.label, attempts)


def run_attempt(spec: TaskSpec, slot: Slot, shared: Shared, number: int) -> Attempt:
    started = time.monotonic()
    env = task_env(spec, slot, shared)
    try:
        run_shell(spec.setup.shell, env, shared.cwd)
        attempt = _on_surface(spec, slot, shared, env, number)
    except VenusError as exc:
        attempt = Attempt(number, exc.status, int(exc.exit_code), False, error=str(exc))
    except Exception as exc:  # a bug or a broken surface must not lose the task
        log.exception("task %s crashed", spec.id)
        attempt = Attempt(number, "crashed", int(ExitCode.FAILED), False,
                          error=f"{type(exc).__name__}: {exc}")
    attempt.seconds = round(time.monotonic() - started, 3)
    return attempt


def _on_surface(spec: TaskSpec, slot: Slot, shared: Shared, env: dict[str, str],
                number: int) -> Attempt:
    opened = shared.browsers.open(slot.options_for(spec))
    driver = opened.driver
    app: subprocess.Popen[bytes] | None = None
    try:
        app = launch_app(spec, driver, env, shared.cwd)
        capture = _RunCapture()
        model = shared.models.for_task(spec, surface_of(spec.driver))
        servers = model.used if isinstance(model, SpreadModel) else None
        cache = task_cache(spec, shared)
        outcome = _run(spec, shared, driver, model, capture, number, slot, cache)
        run_env = {**env, **_outcome_env(outcome, capture, driver)}
        checks = run_checks(spec.checks, CheckContext(driver, outcome.message, run_env,
                                                      shared.cwd))
    except DeviceError as exc:
        raise (DeviceError(f"{exc}; {LOST_NOTE}") if opened.browser_lost() else exc) from None
    finally:
        _close(driver, app)
    passed = int(outcome.exit_code) == spec.expect_exit and all(c.passed for c in checks)
    if passed and cache is not None:
        cache.commit(outcome)  # only a run whose checks held is worth repeating
    info = capture.info
    ended_well = int(outcome.exit_code) == 0
    error = None if ended_well else outcome.message
    if opened.browser_lost():
        error = f"{error}; {LOST_NOTE}" if error else LOST_NOTE
    return Attempt(
        number, outcome.status, int(outcome.exit_code), passed,
        outcome.message if ended_well else "", outcome.steps, run_id=info.run_id if info else None,
        run_dir=str(info.run_dir) if info else None, checks=[c.as_dict() for c in checks],
        error=error, servers=dict(servers or {}), replayed=capture.replayed)


def task_cache(spec: TaskSpec, shared: Shared) -> CacheRun | None:
    """The task's use of the trajectory cache: the batch's mode, narrowed by the task's
    own `cache:` (a task can turn reading or writing off, never on)."""
    options = shared.cache
    if spec.cache is not None:
        options = CacheOptions(options.mode.narrowed(spec.cache), options.folder,
                               options.max_distance)
    return CacheRun.start(options, spec.task, surface_of(spec.driver))


def _run(spec: TaskSpec, shared: Shared, driver: Driver, model: Any, capture: _RunCapture,
         number: int, slot: Slot, cache: CacheRun | None) -> Outcome:
    from venusctl.run.build import RunRequest, run_task

    request = RunRequest(
        task=spec.task, driver=slot.options_for(spec), model=shared.models.options,
        settings=spec.settings(),
        confirm=spec.confirm, assume_yes=shared.assume_yes, runs_dir=shared.runs_dir,
        output="quiet",
        safety=spec.safety(),
        extra_settings={"batch": shared.batch_id, "task_id": spec.id, "attempt": number,
                        "slot": slot.label},
        cache=cache.options if cache is not None else CacheOptions(),
    )
    observers = [capture, *(shared.observers(spec) if shared.observers else [])]
    return run_task(request, confirmer=NonInteractiveConfirmer(), observers=observers,
                    driver=LentDriver(driver), model=model, gate=StopGate(shared.stop),
                    cache=cache)


# ------------------------------------------------------------------ set-up


def task_env(spec: TaskSpec, slot: Slot, shared: Shared) -> dict[str, str]:
    """The environment of the task's shell commands and checks."""
    env = {**os.environ, **shared.variables, "VENUSCTL_TASK_ID": spec.id,
           "VENUSCTL_SLOT": slot.label, "VENUSCTL_PYTHON": sys.executable}
    if slot.serial:
        env["ANDROID_SERIAL"] = slot.serial
    if slot.server is not None:
        env["ANDROID_ADB_SERVER_HOST"] = slot.server.host
        env["ANDROID_ADB_SERVER_PORT"] = str(slot.server.port)
    if spec.url:
        env["VENUSCTL_START_URL"] = spec.url
    return {**env, **spec.env}


def run_shell(commands: tuple[str, ...], env: dict[str, str], cwd: Path) -> None:
    """Each set-up command must exit 0; the first that does not stops the task."""
    for command in commands:
        try:
            done = subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True,
                                  text=True, timeout=SETUP_TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise SetupFailed(f"set-up command timed out: {command[:80]}") from None
        if done.returncode != 0:
            tail = " ".join((done.stdout + done.stderr).split())[-200:]
            raise SetupFailed(f"set-up command exited {done.returncode}: {command[:80]}"
                              + (f" ({tail})" if tail else ""))


class SetupFailed(VenusError):
    exit_code = ExitCode.FAILED
    status = "setup_failed"


def launch_app(spec: TaskSpec, driver: Driver, env: dict[str, str], cwd: Path
               ) -> subprocess.Popen[bytes] | None:
    """Open the task's app: by its label on a phone; on the desktop, a shell command
    started for the task (its windows awaited) and ended with the task."""
    if not spec.setup.app:
        return None
    if spec.driver == "android":
        driver.perform(LaunchApp(spec.setup.app))
        driver.settle(3.0)
        return None
    before = driver.screenshot().digest
    process = subprocess.Popen(spec.setup.app, shell=True, cwd=cwd, env=env,
                               stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    deadline = time.monotonic() + APP_APPEAR_S
    while driver.screenshot().digest == before and time.monotonic() < deadline:
        if process.poll():  # a launcher that hands over and exits 0 is fine
            raise SetupFailed(f"{spec.setup.app} exited with code {process.returncode}")
        time.sleep(0.1)
    driver.settle(3.0)
    return process


def _outcome_env(outcome: Outcome, capture: _RunCapture, driver: Driver) -> dict[str, str]:
    env = {"VENUSCTL_STATUS": outcome.status, "VENUSCTL_EXIT_CODE": str(int(outcome.exit_code)),
           "VENUSCTL_ANSWER": outcome.message}
    if capture.info is not None:
        env["VENUSCTL_RUN_ID"] = capture.info.run_id
        env["VENUSCTL_RUN_DIR"] = str(capture.info.run_dir)
    try:
        url = screen_context(driver).url
    except Exception:  # the surface broke at the end; the checks will say so
        url = None
    if url:
        env["VENUSCTL_URL"] = url
    return env


def _close(driver: Driver, app: subprocess.Popen[bytes] | None) -> None:
    """Close the driver, and end the app the task started with everything it spawned."""
    if app is not None and app.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(app.pid, signal.SIGTERM)
        try:
            app.wait(5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(app.pid, signal.SIGKILL)
    driver.close()
