"""The screen's UI hierarchy (`uiautomator dump`), fetched while the model thinks.

A dump takes 1-3 s on a real phone and fails while the screen animates. The
screen is still from the moment it is observed until the next action, which is
exactly when the model decides, so the dump starts in the background right after
the observation and is waited for only when someone needs it (the guard asking
what is under a point). A failed dump is tried once more; after that the screen
counts as unreadable (`None`), and the caller says so rather than guess. An action
makes the pending dump stale: its result is dropped, whenever it arrives.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from venusctl.drivers.android.ui import Node

log = logging.getLogger(__name__)

Dump = Callable[[], "list[Node] | None"]
"""One attempt: the nodes, or None when the phone could not dump the screen."""
ATTEMPTS = 2


class UiDumps:
    """At most one dump per screen, started early; `generation` counts screens."""

    def __init__(self, dump: Dump) -> None:
        self._dump = dump
        self._lock = threading.Lock()
        self._job: _Job | None = None
        self._last: _Job | None = None  # the latest job started, stale or not
        self.attempts = 0
        """Dump attempts so far (for tests and the benchmark)."""

    def start(self) -> None:
        """Begin dumping the current screen in the background, unless already begun."""
        with self._lock:
            if self._job is None:
                self._job = self._last = _Job(self._run, after=self._last)

    def nodes(self) -> list[Node] | None:
        """The current screen's nodes, waiting for the dump if it is still running."""
        self.start()
        with self._lock:
            job = self._job
        assert job is not None
        return job.result()

    def ready(self) -> list[Node] | None:
        """The nodes if the dump has already finished, without waiting."""
        with self._lock:
            job = self._job
        return job.value if job is not None and job.done.is_set() else None

    def stale(self) -> None:
        """The screen is about to change (an action, a settle): forget this dump."""
        with self._lock:
            self._job = None

    def _run(self) -> list[Node] | None:
        for attempt in range(ATTEMPTS):
            self.attempts += 1
            nodes = self._dump()
            if nodes is not None:
                return nodes
            log.debug("uiautomator dump failed (attempt %d of %d)", attempt + 1, ATTEMPTS)
        return None


class _Job:
    """One background dump; its exception (a phone gone) is re-raised to whoever waits.

    It starts only after the previous job ended: a phone refuses a second
    `uiautomator` while one is still running."""

    def __init__(self, work: Callable[[], list[Node] | None], after: _Job | None) -> None:
        self.value: list[Node] | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()
        self._work = work
        self._after = after
        threading.Thread(target=self._run, daemon=True, name="venusctl-uidump").start()

    def _run(self) -> None:
        try:
            if self._after is not None:
                self._after.done.wait()
                self._after = None
            self.value = self._work()
        except BaseException as exc:  # handed to the thread that waits for the result
            self.error = exc
        finally:
            self.done.set()

    def result(self) -> list[Node] | None:
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value
