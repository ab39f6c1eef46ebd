"""Android integration tests: Debian's adb server plus the simulated phone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.phone_fixtures import adb_server, phone_config, phone_env  # noqa: F401
from venusctl.drivers.android.driver import AndroidDriver, AndroidOptions
from venusctl.sim.phone.app import Widget
from venusctl.sim.phone.env import PhoneEnv


@pytest.fixture
def driver(phone_env: PhoneEnv, tmp_path: Path) -> Iterator[AndroidDriver]:  # noqa: F811
    opened = AndroidDriver(AndroidOptions(cache_dir=tmp_path / "cache", aliases_file=None))
    yield opened
    opened.close()


def centre(widget: Widget) -> tuple[int, int]:
    left, top, right, bottom = widget.box
    return ((left + right) // 2, (top + bottom) // 2)
