"""What every simulated environment offers, and how one is served until Ctrl-C.

An environment is built with its options (nothing starts), `start()`ed (returns
itself, ready to use) and `stop()`ped (nothing left running: processes, ports,
temporary files); `with Env(...) as env:` does both. `variables()` are the names a
task or a shell needs to reach it (`SHOP_URL`, `DISPLAY`, `ANDROID_ADB_SERVER_PORT`).

`serve()` is the announce protocol of task files' `environments:` and of `venusctl
sim`: `NAME=VALUE` lines, then `READY`, on stdout; a line for a person on stderr;
then it runs until SIGINT or SIGTERM and stops the environment.
"""

from __future__ import annotations

import signal
import sys
import threading
from abc import ABC, abstractmethod
from types import FrameType
from typing import ClassVar, TextIO, TypeVar

from venusctl.sim.tools import SimUnavailable

E = TypeVar("E", bound="Environment")
READY = "READY"
POLL_S = 0.5


class Environment(ABC):
    """A local app venusctl can operate, owned by whoever started it."""

    kind: ClassVar[str]

    @abstractmethod
    def start(self: E) -> E:
        """Bring it up and return it; on failure, leave nothing behind and raise."""

    @abstractmethod
    def stop(self) -> None:
        """End everything `start()` began; safe to call twice or after a failed start."""

    @abstractmethod
    def variables(self) -> dict[str, str]:
        """What tasks need to reach it, as environment variables."""

    @abstractmethod
    def summary(self) -> str:
        """One line for a person: what runs where, and how to try it."""

    def problem(self) -> str | None:
        """Why it stopped working on its own (a helper process died), else None."""
        return None

    def __enter__(self: E) -> E:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve(environment: Environment, out: TextIO | None = None,
          err: TextIO | None = None) -> None:
    """Start, announce, run until SIGINT/SIGTERM, stop. A helper that dies on its own
    ends the wait with `SimUnavailable`, after the rest is stopped."""
    out, err = out or sys.stdout, err or sys.stderr
    stopped = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopped.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with environment:
            announce(environment.variables(), out)
            err.write(f"venusctl: {environment.summary()}; Ctrl-C stops it\n")
            err.flush()
            while not stopped.wait(POLL_S):
                problem = environment.problem()
                if problem and not stopped.wait(POLL_S):  # a signal to the group ends
                    raise SimUnavailable(problem)         # the helpers too: not a crash
        err.write(f"venusctl: stopped the {environment.kind} environment\n")
        err.flush()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def announce(variables: dict[str, str], out: TextIO) -> None:
    """`NAME=VALUE` lines then `READY`: what `environments:` in a task file reads."""
    for name, value in variables.items():
        out.write(f"{name}={value}\n")
    out.write(READY + "\n")
    out.flush()
