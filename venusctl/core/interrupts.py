"""Ctrl-C and SIGTERM held back while a call cannot be cut short safely.

Playwright's synchronous API runs its event loop in a greenlet; a KeyboardInterrupt
raised while the main thread is inside that loop leaves the connection waiting for
an answer it already dropped, and every later call (closing the browser included)
waits forever (microsoft/playwright-python#1150; measured here: 20 of 20 runs hung
when SIGINT landed inside `page.screenshot()`). So a driver wraps each of its calls
into such a library in `deferred()`: a signal that arrives meanwhile is remembered
and raised the moment the call returns, and the run still ends with its record
closed and the browser shut.

A second signal during the same call is the person insisting: it is raised at once
as `Forced`, and whoever owned the call must treat the library as wedged (never call
into it again). A terminal prompt inside a deferred call (a confirmation asked from
a browser callback) opens `allowed()`, so Ctrl-C at the prompt still works.

Signal handlers belong to the main thread: elsewhere both blocks do nothing, and a
handler that is not Python's own (ignored, or the system default) is left alone.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)

Handler = Callable[[int, FrameType | None], Any]


class Forced(KeyboardInterrupt):
    """A second signal during a deferred call: raised inside it, the call is abandoned."""


class _State:
    """What the main thread's deferral holds: how deep, the handlers it replaced, and
    the signal it is keeping (the first one that arrived)."""

    def __init__(self) -> None:
        self.depth = 0
        self.saved: dict[int, Handler] = {}
        self.pending: int | None = None


_state = _State()


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _remember(signum: int, frame: FrameType | None) -> None:
    if _state.pending is not None:
        _state.pending = None  # the call is abandoned: nothing is left to deliver after it
        raise Forced
    _state.pending = signum


def _install() -> None:
    for signum in SIGNALS:
        current = signal.getsignal(signum)
        if callable(current) and current is not _remember:
            _state.saved[signum] = current
            signal.signal(signum, _remember)


def _restore() -> None:
    for signum, handler in _state.saved.items():
        signal.signal(signum, handler)
    _state.saved.clear()


def _deliver() -> None:
    """Hand a kept signal to the handler it was meant for (Python's raises KeyboardInterrupt)."""
    signum, _state.pending = _state.pending, None
    if signum is not None:
        handler = signal.getsignal(signum)
        if callable(handler):
            handler(signum, None)


@contextmanager
def deferred() -> Iterator[None]:
    """Keep Ctrl-C and SIGTERM until the block ends, then deliver the first of them."""
    if not _main_thread():
        yield
        return
    if _state.depth == 0:
        _install()
    _state.depth += 1
    try:
        yield
    finally:
        _state.depth -= 1
        if _state.depth == 0:
            _restore()
            _deliver()


@contextmanager
def allowed() -> Iterator[None]:
    """Inside a deferred block, let signals through again (a prompt waiting for a person)."""
    if not _main_thread() or _state.depth == 0:
        yield
        return
    _restore()
    try:
        _deliver()
        yield
    finally:
        _install()
