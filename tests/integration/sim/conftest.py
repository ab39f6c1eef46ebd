"""`venusctl sim …` run as a person runs it: in the background, until a signal."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.support.cli import VENUSCTL
from tests.support.phone_fixtures import adb_server  # noqa: F401 - a fixture

READY_TIMEOUT_S = 120


@dataclass
class Served:
    """A `venusctl sim` process in its own session (its id is its process group)."""

    process: subprocess.Popen[str]
    variables: dict[str, str] = field(default_factory=dict)
    lines: queue.Queue[str | None] = field(default_factory=queue.Queue)

    def wait_ready(self) -> dict[str, str]:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.1))
            except queue.Empty:
                raise AssertionError("no READY line in time") from None
            if line is None:
                raise AssertionError(f"exited {self.process.wait()} before READY: "
                                     f"{self.process.stderr.read() if self.process.stderr else ''}")
            if line == "READY":
                return self.variables
            name, _, value = line.partition("=")
            self.variables[name] = value

    def stop(self, sig: int = signal.SIGINT, group: bool = True) -> tuple[int, str]:
        """Ctrl-C (SIGINT to the whole group, as a terminal sends it) or a plain `kill`;
        the exit code and stderr."""
        if group:
            os.killpg(self.process.pid, sig)
        else:
            self.process.send_signal(sig)
        code = self.process.wait(60)
        return code, self.process.stderr.read() if self.process.stderr else ""


def start_sim(*args: str, env: dict[str, str] | None = None) -> Served:
    process = subprocess.Popen([VENUSCTL, "sim", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                               env={**os.environ, **(env or {})}, start_new_session=True)
    served = Served(process)

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            served.lines.put(line.strip())
        served.lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return served


@pytest.fixture
def sim() -> Iterator[list[Served]]:
    """Started sims; any still running at the end are killed with their group."""
    started: list[Served] = []
    yield started
    for served in started:
        if served.process.poll() is None:
            os.killpg(served.process.pid, signal.SIGKILL)
            served.process.wait(30)


def group_is_gone(pgid: int) -> bool:
    """No process is left in the group (a helper such as Xvfb or adb would be)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def port_is_closed(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0
