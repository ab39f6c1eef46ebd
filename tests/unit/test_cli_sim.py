"""`venusctl sim`: flags become the environment's options; bad values are usage errors."""

from __future__ import annotations

import pytest

from venusctl.cli import run_cli
from venusctl.sim.base import Environment


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[Environment]:
    """The environments the command would serve (nothing is started)."""
    seen: list[Environment] = []
    monkeypatch.setattr("venusctl.sim.base.serve", seen.append)
    return seen


def test_phone_flags_reach_the_phone_config(served, monkeypatch):
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "6001")
    assert run_cli(["sim", "phone", "--size", "720x1600", "--realistic", "--port", "40123"]) == 0
    (env,) = served
    assert env.config.size == (720, 1600) and env.config.density == 320
    assert env.config.input_s == (0.3, 1.0) and env.config.dump_s == (1.0, 3.0)
    assert not env.config.adb_keyboard
    assert (env.port_wanted, env.adb_port_wanted) == (40123, 6001)


def test_phone_defaults_to_a_modern_phone_on_adbs_own_server(served, monkeypatch):
    monkeypatch.delenv("ANDROID_ADB_SERVER_PORT", raising=False)
    assert run_cli(["sim", "phone"]) == 0
    (env,) = served
    assert env.config.size == (1080, 2400) and env.config.density == 480
    assert env.config.input_s == (0.0, 0.0) and env.config.adb_keyboard
    assert env.adb_port_wanted == 5037


def test_web_and_desktop_options(served, tmp_path):
    assert run_cli(["sim", "web", "--port", "8123"]) == 0
    assert run_cli(["sim", "desktop", "--size", "1920x1080", "--log", str(tmp_path / "l")]) == 0
    web, desktop = served
    assert web.port == 8123 and web.httpd is None  # built, not started
    assert desktop.size == (1920, 1080) and desktop.log == tmp_path / "l"


@pytest.mark.parametrize(("argv", "message"), [
    (["sim", "phone", "--size", "big"], "--size: size 'big' is not WIDTHxHEIGHT"),
    (["sim", "phone", "--port", "5555"], "port 5555 is in 5554-5585"),
    (["sim", "desktop", "--size", "640x480"], "must be at least 900x660"),
    (["sim", "web", "--port", "70000"], "Invalid value for '--port'"),
    (["sim", "tablet"], "No such command 'tablet'"),
])
def test_bad_input_is_one_line_and_exit_2(served, capsys, argv, message):
    assert run_cli(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and not served


def test_a_bad_adb_port_in_the_environment_is_a_usage_error(served, monkeypatch, capsys):
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "adb")
    assert run_cli(["sim", "phone"]) == 2
    assert "ANDROID_ADB_SERVER_PORT='adb' is not a port number" in capsys.readouterr().err
