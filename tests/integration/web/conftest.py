"""Real Chromium through Playwright against the local shop app."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.tools import chromium
from venusctl.drivers.web.driver import WebDriver, WebOptions
from venusctl.sim.web import ShopServer


@pytest.fixture
def shop() -> Iterator[ShopServer]:
    with ShopServer() as server:
        yield server


@pytest.fixture
def browser_path() -> str:
    return chromium()


@pytest.fixture
def web(shop: ShopServer, browser_path: str) -> Iterator[WebDriver]:
    driver = WebDriver(WebOptions(url=shop.url + "/", browser_path=browser_path))
    try:
        yield driver
    finally:
        driver.close()
