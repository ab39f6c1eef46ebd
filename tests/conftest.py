"""Shared test setup: markers by folder, and a private runs folder per test."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Give the commands the tests start the default Ctrl-C and hang-up.

    A suite started in the background without job control (`cmd &` in a script, or under
    `nohup`) inherits SIGINT or SIGHUP as ignored, and every process it starts would too:
    the tests that interrupt a run would then wait on a run that cannot be interrupted.
    A handler set here is reset to the default in each child that execs."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGHUP) is signal.SIG_IGN:
        signal.signal(signal.SIGHUP, lambda number, frame: None)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """`-m unit` selects nothing under tests/integration: leave those modules unimported
    (they import Playwright, the model server and the rest: seconds in every worker)."""
    if config.getoption("markexpr") == "unit" and "integration" in collection_path.parts:
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        parts = Path(str(item.fspath)).parts
        if "unit" in parts:
            item.add_marker(pytest.mark.unit)
        elif "integration" in parts:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep every test's runs, config, keyring and trajectory cache out of the user's
    real folders."""
    monkeypatch.setenv("VENUSCTL_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("VENUSCTL_SESSIONS_DIR", str(tmp_path / "sessions"))
    # No test may reach the real Hugging Face hub or read the user's model cache: the
    # hub is a closed loopback port unless a test serves its own fake hub, and the hub
    # cache follows XDG_CACHE_HOME above.
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.delenv("HF_HOME", raising=False)
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    # The trajectory cache lives in this test's XDG_DATA_HOME, on by default as for a
    # user; a developer's own cache settings never reach a test.
    monkeypatch.delenv("VENUSCTL_CACHE", raising=False)
    monkeypatch.delenv("VENUSCTL_CACHE_DIR", raising=False)
