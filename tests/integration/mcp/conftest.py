"""The MCP tests' keyring: a file backend inside the test's own folder."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.keyring_env import file_keyring_backend


@pytest.fixture
def file_keyring() -> Iterator[object]:
    yield from file_keyring_backend()
