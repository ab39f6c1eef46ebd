"""A worker's browsers without a browser: which tasks share one, when it is started
again, what is closed between tasks, and that no other thread may use it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import venusctl.batch.browsers as batch_browsers
from venusctl.batch.browsers import BatchBrowsers, WorkerBrowsers, browser_key
from venusctl.core.errors import DeviceError
from venusctl.drivers.factory import DriverOptions


class FakeContext:
    def __init__(self, browser: FakeBrowser) -> None:
        self.browser = browser

    def close(self) -> None:
        self.browser.contexts.remove(self)


class FakeBrowser:
    def __init__(self, how: str, where: str) -> None:
        self.how, self.where = how, where
        self.contexts: list[FakeContext] = []
        self.connected = True
        self.answers = True
        self.closed = False

    def is_connected(self) -> bool:
        return self.connected

    def new_browser_cdp_session(self) -> FakeBrowser:
        if not self.answers:
            raise RuntimeError("Target page, context or browser has been closed")
        return self

    def detach(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True


class FakeChromium:
    executable_path = "/nowhere/bundled-chrome"

    def __init__(self) -> None:
        self.started: list[FakeBrowser] = []
        self.launch_options: list[dict] = []

    def _new(self, how: str, where: str) -> FakeBrowser:
        self.started.append(FakeBrowser(how, where))
        return self.started[-1]

    def launch(self, **options) -> FakeBrowser:
        self.launch_options.append(options)
        return self._new("launch", options.get("executable_path", ""))

    def connect(self, url: str, timeout: float) -> FakeBrowser:
        return self._new("connect", url)

    def connect_over_cdp(self, url: str, timeout: float) -> FakeBrowser:
        return self._new("cdp", url)


@pytest.fixture
def chromium(monkeypatch) -> FakeChromium:
    fake = FakeChromium()
    monkeypatch.setattr(WorkerBrowsers, "_chromium", lambda self: fake)
    monkeypatch.setattr("venusctl.drivers.web.driver.find_browser",
                        lambda explicit, bundled: explicit)
    return fake


def web(**fields) -> DriverOptions:
    return DriverOptions(driver="web", browser_path="/usr/bin/chromium", **fields)


def test_web_tasks_share_by_where_the_browser_runs_and_profiles_never_share():
    assert browser_key(web()) == ("launch", "/usr/bin/chromium", True)
    assert browser_key(web(headless=False)) == ("launch", "/usr/bin/chromium", False)
    assert browser_key(web(browser_server="ws://grid/pw"))[:2] == ("connect", "ws://grid/pw")
    assert browser_key(web(cdp_url="http://h:9222"))[:2] == ("cdp", "http://h:9222")
    assert browser_key(web(profile=Path("/tmp/p"))) is None
    assert browser_key(DriverOptions(driver="android")) is None


def test_one_launch_serves_every_task_and_leftover_contexts_are_closed(chromium):
    mine = WorkerBrowsers()
    key = browser_key(web())
    first = mine.browser(key)
    first.contexts.append(FakeContext(first))  # a context a failed task left open
    assert mine.browser(key) is first and first.contexts == []
    assert len(chromium.started) == 1
    # Ctrl-C must reach venusctl, which stops tasks at their next step: not the browser
    assert chromium.launch_options[0] | {"executable_path": None} == {
        "headless": True, "handle_sigint": False, "handle_sigterm": False,
        "handle_sighup": False, "executable_path": None}


def test_a_dead_browser_is_started_again_and_closing_ends_them_all(chromium):
    mine = WorkerBrowsers()
    key = browser_key(web())
    first = mine.browser(key)
    first.connected = False
    second = mine.browser(key)
    assert second is not first and first.closed
    second.answers = False  # Playwright has not noticed yet; a round trip did
    mine.mark_dead(key)
    third = mine.browser(key)
    assert third is not second
    remote = mine.browser(browser_key(web(cdp_url="http://h:9222")))
    assert remote.how == "cdp" and len(chromium.started) == 4
    mine.close()
    assert third.closed and remote.closed  # a remote one: our connection only


def test_a_remote_browsers_own_contexts_are_left_alone(chromium):
    mine = WorkerBrowsers()
    key = browser_key(web(browser_server="ws://grid/pw"))
    remote = mine.browser(key)
    theirs = FakeContext(remote)
    remote.contexts.append(theirs)
    assert mine.browser(key) is remote and remote.contexts == [theirs]


def test_only_the_thread_that_started_a_browser_may_use_it(chromium):
    mine = WorkerBrowsers()
    mine.browser(browser_key(web()))
    errors: list[BaseException] = []

    def other() -> None:
        try:
            mine.browser(browser_key(web()))
        except RuntimeError as exc:
            errors.append(exc)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert errors and "thread" in str(errors[0])


def test_a_browser_that_died_between_tasks_is_replaced_before_the_task_fails(
        chromium, monkeypatch):
    opened: list[FakeBrowser] = []

    def context_driver(options, browser):
        if browser is chromium.started[0]:
            browser.answers = False
            raise DeviceError("the browser closed or crashed: Target closed")
        opened.append(browser)
        return object()

    monkeypatch.setattr(batch_browsers, "_context_driver", context_driver)
    browsers = BatchBrowsers()
    task = browsers.open(web())
    assert opened == [chromium.started[1]] and task.browser is chromium.started[1]
    assert not task.browser_lost()
    task.browser.answers = False
    assert task.browser_lost()
    browsers.close_mine()


def test_a_failure_of_the_page_itself_is_not_retried(chromium, monkeypatch):
    def context_driver(options, browser):
        raise DeviceError("could not open http://127.0.0.1:9/: connection refused")

    monkeypatch.setattr(batch_browsers, "_context_driver", context_driver)
    browsers = BatchBrowsers()
    with pytest.raises(DeviceError, match="connection refused"):
        browsers.open(web())
    assert len(chromium.started) == 1
    browsers.close_mine()
