"""Real Chromium and the local shop app for the MCP server's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.keyring_env import file_keyring_backend
from tests.support.tools import chromium
from venusctl.sim.web import ShopServer


@pytest.fixture
def shop() -> Iterator[ShopServer]:
    with ShopServer() as server:
        yield server


@pytest.fixture
def browser_path() -> str:
    return chromium()


@pytest.fixture
def file_keyring() -> Iterator[object]:
    yield from file_keyring_backend()
