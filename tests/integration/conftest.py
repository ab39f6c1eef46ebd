"""Fixtures every integration folder uses: the local shop app and a Chromium to open it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.tools import chromium
from venusctl.sim.web import ShopServer


@pytest.fixture
def shop() -> Iterator[ShopServer]:
    with ShopServer() as server:
        yield server


@pytest.fixture
def browser_path() -> str:
    return chromium()
