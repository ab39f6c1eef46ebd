"""Kept sessions against real Chromium: TodoMVC from npm and the local shop app."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.todomvc import serve, todomvc_app
from tests.support.tools import chromium
from venusctl.sim.web import ShopServer


@pytest.fixture(scope="session")
def todomvc_folder(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory
                   ) -> Path:
    cache = pytestconfig.cache
    folder = cache.mkdir("todomvc") if cache is not None else tmp_path_factory.mktemp("todo")
    return todomvc_app(folder)


@pytest.fixture
def todomvc(todomvc_folder: Path) -> Iterator[str]:
    with serve(todomvc_folder) as url:
        yield url


@pytest.fixture
def shop() -> Iterator[ShopServer]:
    with ShopServer() as server:
        yield server


@pytest.fixture
def browser_path() -> str:
    return chromium()
