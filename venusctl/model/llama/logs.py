"""llama.cpp's and the vision library's log lines, sent to our logger.

llama-cpp-python 0.3.36 prints ggml's log to stderr with wrong level names (warnings
show even when quiet, real errors can be hidden), and the vision library prints on
its own. Both are routed here instead: every line goes to the `venusctl.llama`
logger at debug level (`-v` shows it), and the last warnings and errors are kept so
that a load failure can say *why* in one line.
"""

from __future__ import annotations

import ctypes
import logging
import re
import threading
from collections import deque

log = logging.getLogger("venusctl.llama")

# ggml_log_level: NONE 0, DEBUG 1, INFO 2, WARN 3, ERROR 4, CONT 5
_WARN = 3
_ERROR = 4
_CONT = 5


class _Tap:
    """Collects complete lines from the C callbacks (which may arrive in pieces)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.partial = ""
        self.level = 0
        self.problems: deque[str] = deque(maxlen=20)
        self.notes: deque[str] = deque(maxlen=20)
        """Lines worth keeping whatever their level (see NOTE)."""

    def feed(self, level: int, text: str) -> None:
        with self.lock:
            if level != _CONT:
                self.level = level
            self.partial += text
            while "\n" in self.partial:
                line, self.partial = self.partial.split("\n", 1)
                self._emit(line.rstrip())

    def _emit(self, line: str) -> None:
        if not line:
            return
        if self.level in (_WARN, _ERROR):
            self.problems.append(line)
        elif NOTE.search(line):
            self.notes.append(line)
        log.debug("%s", line)


NOTE = re.compile(r"offloaded (\d+)/(\d+) layers")
"""llama.cpp's info line saying how many layers went to the GPU."""

_tap = _Tap()
_installed: list[object] = []  # keeps the C callbacks alive


def install() -> None:
    """Route the logs once per process (the callbacks are process-wide in C)."""
    if _installed:
        return
    import llama_cpp
    import llama_cpp.mtmd_cpp as mtmd

    @llama_cpp.llama_log_callback
    def callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        _tap.feed(int(level), text.decode("utf-8", errors="replace") if text else "")

    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
    mtmd.mtmd_log_set(callback, ctypes.c_void_p(0))
    mtmd.mtmd_helper_log_set(callback, ctypes.c_void_p(0))
    _installed.append(callback)


def mark() -> int:
    """A bookmark: `problems_since(mark())` gives only what a call logged."""
    with _tap.lock:
        _tap.problems.append("\0mark")
        _tap.notes.append("\0mark")
        return len(_tap.problems)


def offloaded_layers(_bookmark: int) -> tuple[int, int] | None:
    """(offloaded, total) from the last 'offloaded N/M layers' line since `mark()`."""
    with _tap.lock:
        notes = list(_tap.notes)
    for line in reversed(notes):
        if line == "\0mark":
            return None
        found = NOTE.search(line)
        if found:
            return int(found.group(1)), int(found.group(2))
    return None


def problems_since(_bookmark: int) -> list[str]:
    """Warnings and errors logged after the last `mark()`."""
    with _tap.lock:
        items = list(_tap.problems)
    for index in range(len(items) - 1, -1, -1):
        if items[index] == "\0mark":
            return [line for line in items[index + 1:] if line != "\0mark"]
    return [line for line in items if line != "\0mark"]


def last_problem(bookmark: int, default: str) -> str:
    """The most telling line llama.cpp logged since `bookmark`, for an error message."""
    lines = problems_since(bookmark)
    errors = [line for line in lines if "error" in line.lower() or "failed" in line.lower()]
    chosen = (errors or lines or [default])[-1]
    return chosen.split(": ", 1)[-1] if chosen.count(": ") else chosen
