"""pytest fixtures for the simulated phone; import them into a conftest.py:

    from tests.support.phone_fixtures import adb_server, phone_env, phone_config  # noqa: F401

`phone_env` yields a `PhoneEnv` (serial, port, adb_port, phone, state, log) with
ANDROID_ADB_SERVER_PORT pointing at the test's adb server. Override `phone_config`
(or parametrize it indirectly) to change the phone, e.g. screen text for injection tests.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support import tools
from venusctl.sim.phone.env import AdbServer, PhoneEnv
from venusctl.sim.phone.phone import PhoneConfig


@pytest.fixture(scope="session")
def adb_server() -> Iterator[AdbServer]:
    tools.require("adb")
    server = AdbServer().start()
    yield server
    server.stop()


@pytest.fixture
def phone_config(request: pytest.FixtureRequest) -> PhoneConfig:
    """The default phone; `@pytest.mark.parametrize("phone_config", [PhoneConfig(...)],
    indirect=True)` gives a test another one."""
    param = getattr(request, "param", None)
    return param if isinstance(param, PhoneConfig) else PhoneConfig()


@pytest.fixture
def phone_env(adb_server: AdbServer, phone_config: PhoneConfig,
              monkeypatch: pytest.MonkeyPatch) -> Iterator[PhoneEnv]:
    for name, value in adb_server.environ().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("ANDROID_SERIAL", raising=False)
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    with PhoneEnv(phone_config, server=adb_server) as env:
        yield env
