"""Kept sessions against real Chromium: TodoMVC from npm and the local shop app."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.tools import chromium
from tests.support.web_todomvc import serve_todomvc
from venusctl.sim.web import ShopServer


@pytest.fixture
def todomvc() -> Iterator[str]:
    with serve_todomvc() as url:
        yield url


@pytest.fixture
def shop() -> Iterator[ShopServer]:
    with ShopServer() as server:
        yield server


@pytest.fixture
def browser_path() -> str:
    return chromium()
