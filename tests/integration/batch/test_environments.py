"""Environments: started in the background, their exports read, their process group ended."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from venusctl.batch.environments import environments
from venusctl.batch.taskfile import EnvironmentSpec
from venusctl.core.errors import DeviceError


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_exports_reach_later_environments_and_everything_stops(tmp_path: Path):
    first = EnvironmentSpec("first", "sleep 300 & echo $! > child.pid; echo 'export A=\"one\"';"
                                     " echo B=two; echo READY; wait")
    second = EnvironmentSpec("second", 'echo C=$A-$B; echo PY=$VENUSCTL_PYTHON; echo UP; '
                                       'sleep 300', ready="UP")
    with environments((first, second), tmp_path, tmp_path / "logs") as variables:
        assert variables["A"] == "one" and variables["B"] == "two"
        assert variables["C"] == "one-two" and variables["PY"].endswith("python")
        child = int((tmp_path / "child.pid").read_text())
        assert alive(child)
    deadline = time.monotonic() + 5
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)  # the background child went with its group
    assert "B=two" in (tmp_path / "logs" / "env-first.log").read_text()


def test_an_environment_that_exits_early_says_why(tmp_path: Path):
    spec = EnvironmentSpec("broken", "echo starting; echo 'no such app' >&2; exit 3")
    with pytest.raises(DeviceError, match=r"'broken' exited with code 3 .*no such app"), \
            environments((spec,), tmp_path, tmp_path / "logs"):
        pass


def test_an_environment_that_never_gets_ready_times_out(tmp_path: Path):
    later = EnvironmentSpec("later", "echo READY; sleep 300")
    slow = EnvironmentSpec("slow", "sleep 300", timeout_s=0.5)
    started = time.monotonic()
    with pytest.raises(DeviceError, match=r"'slow' was not ready within 0\.5 s"), \
            environments((later, slow), tmp_path, tmp_path / "logs"):
        pass
    assert time.monotonic() - started < 15
