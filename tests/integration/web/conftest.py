"""Real Chromium through Playwright against the local shop app."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from venusctl.drivers.web.driver import WebDriver, WebOptions
from venusctl.sim.web import ShopServer


@pytest.fixture
def web(shop: ShopServer, browser_path: str) -> Iterator[WebDriver]:
    driver = WebDriver(WebOptions(url=shop.url + "/", browser_path=browser_path))
    try:
        yield driver
    finally:
        driver.close()
