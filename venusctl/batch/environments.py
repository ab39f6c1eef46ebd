"""Local environments a task file needs (a web app, an X server, a simulated phone).

Each environment is a shell command started in the background, in its own process
group (`$VENUSCTL_PYTHON` names the Python venusctl runs on, for Python helpers).
It announces itself on stdout: lines `NAME=VALUE` (or `export NAME=VALUE`) become
variables for the tasks, and a line equal to the environment's `ready` marker
(default `READY`) says it can be used. Whatever it prints afterwards goes to a log
file beside the batch's results. Stopping sends SIGTERM to the whole group, then
SIGKILL if it lingers, so helper processes (Xvfb, adb) go too.

A built-in environment (`sim: web|desktop|phone` in the file) is the same thing: its
command is `"$VENUSCTL_PYTHON" -m venusctl sim NAME …` (venusctl/sim/catalog.py), which
serves one of `venusctl.sim`'s environments and announces it this way.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from venusctl.batch.taskfile import EnvironmentSpec
from venusctl.core.errors import DeviceError

_EXPORT = re.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
STOP_WAIT_S = 10.0


@dataclass
class RunningEnvironment:
    spec: EnvironmentSpec
    process: subprocess.Popen[str]
    variables: dict[str, str] = field(default_factory=dict)
    log_path: Path | None = None
    drain: threading.Thread | None = None

    def stop(self) -> None:
        """End the environment's whole process group; its last words reach the log."""
        if self.process.poll() is None:
            _signal_group(self.process, signal.SIGTERM)
            try:
                self.process.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                _signal_group(self.process, signal.SIGKILL)
                self.process.wait(STOP_WAIT_S)
        if self.drain is not None:
            self.drain.join(STOP_WAIT_S)


def start_environment(spec: EnvironmentSpec, cwd: Path, env: dict[str, str],
                      log_dir: Path) -> RunningEnvironment:
    """Start one environment and wait for its ready line; its exports are returned."""
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"env-{re.sub(r'[^A-Za-z0-9_.-]+', '-', spec.name)}.log"
    process = subprocess.Popen(
        spec.start, shell=True, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
        start_new_session=True,
    )
    running = RunningEnvironment(spec, process, log_path=log_path)
    log = log_path.open("w", encoding="utf-8")
    try:
        _read_until_ready(running, log)
    except BaseException:
        running.stop()
        log.close()
        raise
    running.drain = threading.Thread(target=_drain, args=(process.stdout, log), daemon=True)
    running.drain.start()
    return running


def _read_until_ready(running: RunningEnvironment, log: IO[str]) -> None:
    spec, stream = running.spec, running.process.stdout
    assert stream is not None
    lines: list[str] = []
    ready, ended = threading.Event(), threading.Event()

    def read() -> None:
        for line in stream:
            log.write(line)
            log.flush()
            text = line.strip()
            if text == spec.ready:
                ready.set()
                return
            lines.append(text)
            match = _EXPORT.match(text)
            if match:
                running.variables[match.group(1)] = _unquote(match.group(2))
        ended.set()

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + spec.timeout_s
    while not ready.wait(0.05):
        if ended.is_set():
            code = running.process.wait(STOP_WAIT_S)
            tail = " | ".join(lines[-3:]) or "no output"
            raise DeviceError(f"environment '{spec.name}' exited with code {code} before it "
                              f"was ready: {tail}")
        if time.monotonic() > deadline:
            raise DeviceError(f"environment '{spec.name}' was not ready within "
                              f"{spec.timeout_s:g} s (see {running.log_path})")


def _drain(stream: IO[str] | None, log: IO[str]) -> None:
    if stream is None:
        return
    try:
        for line in stream:
            log.write(line)
            log.flush()
    except (OSError, ValueError):
        pass
    finally:
        log.close()


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _signal_group(process: subprocess.Popen[str], sig: int) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


@contextmanager
def environments(specs: tuple[EnvironmentSpec, ...], cwd: Path, log_dir: Path
                 ) -> Iterator[dict[str, str]]:
    """Start every environment in order (each sees the exports of those before it);
    yield all their variables; stop them in reverse order, whatever happens."""
    started: list[RunningEnvironment] = []
    variables: dict[str, str] = {}
    try:
        for spec in specs:
            env = {**os.environ, "VENUSCTL_PYTHON": sys.executable, **variables}
            running = start_environment(spec, cwd, env, log_dir)
            started.append(running)
            variables.update(running.variables)
        yield variables
    finally:
        for running in reversed(started):
            running.stop()
