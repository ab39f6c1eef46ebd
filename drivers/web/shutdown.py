"""Closing a browser this process started, in bounded time.

Closing asks Playwright's driver (a Node process, our child) to close the context and
the browser and waits for its answers. A browser or driver that stopped answering
would keep the command from ever exiting after its record was closed, so a watchdog
ends Playwright's driver when closing takes longer than `CLOSE_LIMIT_S`: the pipe to
it breaks, every call still waiting fails at once, and Chromium, which Playwright
drives over a pipe from that process, exits with it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

log = logging.getLogger(__name__)

CLOSE_LIMIT_S = 15.0
DRIVER_MARK = b"run-driver"  # Playwright starts its Node driver as `node cli.js run-driver`


def _children(pid: int) -> Iterator[int]:
    """Our child processes, read from /proc (Linux; elsewhere there are none to find)."""
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            stat = entry.read_text()
        except OSError:  # it exited while we looked
            continue
        # the fields after the command name (which may hold spaces) start at the last ')'
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and fields[1] == str(pid):
            yield int(entry.parent.name)


def playwright_drivers() -> list[int]:
    """The process ids of the Playwright drivers this process started."""
    found = []
    for child in _children(os.getpid()):
        try:
            command = (Path("/proc") / str(child) / "cmdline").read_bytes()
        except OSError:
            continue
        if DRIVER_MARK in command.split(b"\0"):
            found.append(child)
    return found


def end_playwright_drivers() -> int:
    """Kill this process's Playwright drivers; returns how many there were."""
    drivers = playwright_drivers()
    for pid in drivers:
        with contextlib.suppress(ProcessLookupError):  # it exited meanwhile
            os.kill(pid, signal.SIGKILL)
    return len(drivers)


class CloseWatchdog:
    """While open, ends Playwright's driver if the block outlasts `limit_s`."""

    def __init__(self, limit_s: float = CLOSE_LIMIT_S) -> None:
        self.limit_s = limit_s
        self._timer = threading.Timer(limit_s, self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        ended = end_playwright_drivers()
        log.warning("closing the browser took over %g s; ended %d Playwright driver(s)",
                    self.limit_s, ended)

    def __enter__(self) -> CloseWatchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
