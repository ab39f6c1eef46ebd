"""Kept sessions against real Chromium: TodoMVC from npm and the local shop app."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.web_todomvc import serve_todomvc


@pytest.fixture
def todomvc() -> Iterator[str]:
    with serve_todomvc() as url:
        yield url
