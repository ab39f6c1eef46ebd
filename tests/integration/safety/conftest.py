"""Safety against real surfaces: Chromium pages, the simulated phone, a file keyring."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.keyring_env import file_keyring_backend
from tests.support.phone_fixtures import adb_server, phone_config, phone_env  # noqa: F401
from tests.support.safety_site import SafetySite


@pytest.fixture
def site() -> Iterator[SafetySite]:
    with SafetySite() as server:
        yield server


@pytest.fixture
def file_keyring() -> Iterator[Path]:
    yield from file_keyring_backend()
