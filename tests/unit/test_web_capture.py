"""A lost screenshot request is asked again soon, a refused one after a pause, and the
tries add up to the 15 s a slow page always had (drivers/web/capture.py)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from venusctl.core.errors import DeviceError
from venusctl.drivers.web.capture import TRIES_MS, capture


class _Page:
    """Answers each `screenshot` from a script: bytes, or an exception to raise."""

    def __init__(self, *script: bytes | Exception) -> None:
        self.script = list(script)
        self.calls: list[dict[str, Any]] = []
        self.paused: list[int] = []

    def screenshot(self, **options: Any) -> bytes:
        self.calls.append(options)
        step = self.script.pop(0)
        if isinstance(step, Exception):
            raise step
        return step

    def wait_for_timeout(self, ms: int) -> None:
        self.paused.append(ms)


def _never_gone(_exc: BaseException) -> None:
    return None


def test_a_capture_the_browser_never_answers_is_asked_again_with_a_short_first_limit():
    page = _Page(PlaywrightTimeout("Timeout 1000ms exceeded."), b"png")
    assert capture(page, {"type": "png"}, _never_gone) == b"png"
    assert [c["timeout"] for c in page.calls] == [TRIES_MS[0], TRIES_MS[1]]
    assert all(c["type"] == "png" for c in page.calls) and page.paused == []


def test_the_tries_grow_and_give_a_slow_page_fifteen_seconds_in_all():
    assert list(TRIES_MS) == sorted(TRIES_MS) and sum(TRIES_MS) == 15000
    page = _Page(*[PlaywrightTimeout("slow")] * len(TRIES_MS))
    with pytest.raises(PlaywrightTimeout):
        capture(page, {}, _never_gone)
    assert [c["timeout"] for c in page.calls] == list(TRIES_MS)


def test_a_refused_capture_is_retried_after_a_pause():
    page = _Page(RuntimeError("Unable to capture screenshot"), b"jpg")
    assert capture(page, {"type": "jpeg", "quality": 80}, _never_gone) == b"jpg"
    assert page.paused == [150] and page.calls[1]["quality"] == 80


def test_a_browser_that_has_gone_is_not_asked_again():
    def gone(exc: BaseException) -> None:
        raise DeviceError(f"the browser is gone: {exc}")

    page = _Page(RuntimeError("Target page, context or browser has been closed"), b"never")
    with pytest.raises(DeviceError, match="the browser is gone"):
        capture(page, {}, gone)
    assert len(page.calls) == 1
