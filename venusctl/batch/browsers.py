"""The browsers of a batch: started once per worker, a fresh context for every task.

Starting Playwright's driver process and a Chromium for every web task cost more
than a task replayed from the trajectory cache takes to run. So each worker thread
of a batch keeps the browser it started (or its connection to a browser server or
a DevTools endpoint) for all the web tasks it runs, and every task gets a new
browser context in it: cookies, local and session storage, the HTTP cache,
permissions and service workers belong to a context, and closing the context after
the task's checks discards them, so no task sees what another left. Before a task
gets its context, any context an earlier task failed to close is closed too.

Playwright's sync API is bound to the thread that started it, so a browser is
never handed from one worker to another: with `-j N` there are at most N local
browsers, each started once. A browser that died (it crashed, or was killed) is
noticed before the next task and started again; the task that lost it ends as a
device error that says so. Each worker closes its browsers when it ends, after
Ctrl-C too: Chromium is launched without Playwright's own signal handlers, so
Ctrl-C stops the tasks at their next step (their records end "interrupted")
instead of killing the browser under them; should venusctl itself die, Playwright's
driver process sees its pipe close and takes its browsers with it.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any

from venusctl.core.errors import DeviceError, UsageError
from venusctl.core.text import first_line
from venusctl.drivers.base import Driver
from venusctl.drivers.factory import DriverOptions, open_driver, web_options

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_MS = 20000
LOST_NOTE = ("the batch's browser stopped during this task (it crashed or was killed); "
             "the next task starts a new one")

Key = tuple[str, str, bool]  # (how: launch | connect | cdp, executable or endpoint, headless)


def browser_key(options: DriverOptions) -> Key | None:
    """Where a web task's browser runs, or None when it cannot be shared (a profile
    folder belongs to one browser at a time; a kept session is its own browser)."""
    if options.driver != "web" or options.profile is not None or options.session:
        return None
    if options.browser_server:
        return ("connect", options.browser_server, options.headless)
    if options.cdp_url:
        return ("cdp", options.cdp_url, options.headless)
    return ("launch", options.browser_path or "", options.headless)


@dataclass
class WorkerBrowsers:
    """The browsers one worker thread started or connected to, by where they run."""

    owner: int = field(default_factory=threading.get_ident)
    _manager: Any = None
    _playwright: Any = None
    _browsers: dict[Key, Any] = field(default_factory=dict)
    _dead: set[Key] = field(default_factory=set)  # found dead; Playwright may not know yet

    def browser(self, key: Key) -> Any:
        """The live browser for `key`, started (again) when needed."""
        self._check_thread()
        browser = self._browsers.get(key)
        if browser is not None and (key in self._dead or not _connected(browser)):
            log.info("the batch's browser %s stopped; starting a new one", key[1] or "chromium")
            self._forget(key)
        if key not in self._browsers:
            self._browsers[key] = self._start(key)
        elif key[0] == "launch":  # every context of a browser we launched is ours
            _close_contexts(self._browsers[key], ())
        return self._browsers[key]

    def mark_dead(self, key: Key) -> None:
        """The browser for `key` did not answer: the next task starts a new one."""
        self._dead.add(key)

    def _start(self, key: Key) -> Any:
        how, where, headless = key
        try:
            chromium = self._chromium()
            if how == "connect":
                return chromium.connect(where, timeout=CONNECT_TIMEOUT_MS)
            if how == "cdp":
                return chromium.connect_over_cdp(where, timeout=CONNECT_TIMEOUT_MS)
            return chromium.launch(**_launch_options(where, headless, chromium.executable_path))
        except (UsageError, DeviceError):
            raise
        except Exception as exc:
            what = f"connect to the browser at {where}" if how != "launch" else "start the browser"
            raise DeviceError(f"could not {what}: {first_line(exc)}") from None

    def _chromium(self) -> Any:
        """Playwright's Chromium, Playwright started in this thread on first use."""
        if self._playwright is None:
            from playwright.sync_api import sync_playwright

            manager = sync_playwright()
            self._playwright = manager.start()
            self._manager = manager
        return self._playwright.chromium

    def _forget(self, key: Key) -> None:
        self._dead.discard(key)
        browser = self._browsers.pop(key)
        try:
            browser.close()
        except Exception as exc:  # it is already gone
            log.debug("closing a dead browser: %s", exc)

    def close(self) -> None:
        """Close every browser (a remote one: only the connection) and stop Playwright."""
        self._check_thread()
        for key in list(self._browsers):
            self._forget(key)
        if self._manager is not None:
            manager, self._manager, self._playwright = self._manager, None, None
            try:
                manager.__exit__(None, None, None)
            except Exception as exc:
                log.debug("stopping playwright: %s", exc)

    def _check_thread(self) -> None:
        if threading.get_ident() != self.owner:
            raise RuntimeError("a worker's browsers are used only by the thread that started "
                               "them (Playwright's sync API is bound to it)")


def _launch_options(executable: str, headless: bool, bundled: str | None) -> dict[str, Any]:
    from venusctl.drivers.web.driver import find_browser

    options: dict[str, Any] = {"headless": headless, "handle_sigint": False,
                               "handle_sigterm": False, "handle_sighup": False}
    found = find_browser(executable or None, bundled)
    if found:
        options["executable_path"] = found
    return options


def _connected(browser: Any) -> bool:
    try:
        return bool(browser.is_connected())
    except Exception:
        return False


def _answers(browser: Any) -> bool:
    """A round trip to the browser: Playwright learns that a browser died only when
    it next reads from it, so `is_connected` alone can still say yes."""
    if not _connected(browser):
        return False
    try:
        browser.new_browser_cdp_session().detach()
    except Exception:
        return False
    return True


def _contexts(browser: Any) -> list[Any]:
    try:
        return list(browser.contexts)
    except Exception:  # gone: the next call says so
        return []


def _close_contexts(browser: Any, keep: list[Any] | tuple[Any, ...]) -> None:
    """Close the browser's contexts but those in `keep`: what a task left open (its
    driver failed half-way, or its context would not close), so the next task starts
    in a browser that holds nothing of anyone else's."""
    for context in _contexts(browser):
        if not any(context is kept for kept in keep):
            try:
                context.close()
            except Exception as exc:
                log.debug("closing a leftover context: %s", exc)


@dataclass
class Opened:
    """A task's driver, and the shared browser its context lives in (if any)."""

    driver: Driver
    browser: Any = None
    key: Key | None = None
    owner: WorkerBrowsers | None = None

    def browser_lost(self) -> bool:
        """True when the shared browser no longer answers (it died during this task);
        the worker then starts a new one for the next task."""
        if self.browser is None or _answers(self.browser):
            return False
        if self.owner is not None and self.key is not None:
            self.owner.mark_dead(self.key)
        return True


def _context_driver(options: DriverOptions, browser: Any) -> Driver:
    """A web driver in a new context of `browser`; on failure, that context is closed."""
    from venusctl.drivers.web.driver import WebDriver

    before = _contexts(browser)
    try:
        return WebDriver(web_options(options), browser=browser)
    except BaseException as exc:
        _close_contexts(browser, before)
        if isinstance(exc, (UsageError, DeviceError)) or not isinstance(exc, Exception):
            raise
        if not _connected(browser):
            raise DeviceError(f"the batch's browser stopped: {first_line(exc)}") from None
        raise DeviceError(f"could not open a browser context: {first_line(exc)}") from None


class BatchBrowsers:
    """Every worker's browsers; each thread sees only its own."""

    def __init__(self) -> None:
        self._local = threading.local()

    def _mine(self) -> WorkerBrowsers:
        mine = getattr(self._local, "browsers", None)
        if mine is None:
            mine = self._local.browsers = WorkerBrowsers()
        return mine

    def open(self, options: DriverOptions) -> Opened:
        """The task's driver: on web, a new context in this worker's browser (started on
        first use, again after it died); any other surface opened as usual."""
        key = browser_key(options)
        if key is None:
            return Opened(open_driver(options))
        mine = self._mine()
        for last_try in (False, True):
            browser = mine.browser(key)
            try:
                return Opened(_context_driver(options, browser), browser, key, mine)
            except (UsageError, DeviceError) as exc:
                if last_try or isinstance(exc, UsageError) or _answers(browser):
                    raise
                mine.mark_dead(key)  # it died since the last task: start it again, once
        raise AssertionError("unreachable")

    def close_mine(self) -> None:
        """Close this worker's browsers (each worker calls it as it ends)."""
        mine = getattr(self._local, "browsers", None)
        if mine is not None:
            self._local.browsers = None
            mine.close()
