"""`venusctl doctor` run for real on this machine: an X display, adb, Chromium, a GGUF."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.tools import require

VENUSCTL = [str(Path(sys.executable).parent / "venusctl")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def display() -> Iterator[str]:
    """A private Xvfb display, chosen by the server itself (-displayfd)."""
    read, write = os.pipe()
    xvfb = subprocess.Popen([require("Xvfb"), "-displayfd", str(write), "-screen", "0",
                             "640x480x24", "-nolisten", "tcp"], pass_fds=(write,),
                            stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    try:
        yield f":{number}"
    finally:
        xvfb.terminate()
        xvfb.wait(10)


@pytest.fixture
def adb_port() -> Iterator[int]:
    """adb's server on a port of our own, killed afterwards (never the user's 5037)."""
    adb = require("adb")
    port = free_port()
    yield port
    subprocess.run([adb, "-P", str(port), "kill-server"], capture_output=True, timeout=20,
                   check=False)


def doctor(env_extra: dict[str, str], *args: str) -> tuple[int, dict]:
    env = {**os.environ, **env_extra}
    done = subprocess.run([*VENUSCTL, "doctor", "--json", *args], capture_output=True,
                          text=True, timeout=120, env=env, check=False)
    assert done.stderr == ""
    return done.returncode, json.loads(done.stdout)


def test_every_check_passes_on_a_ready_machine(display, adb_port, tiny_model):
    code, report = doctor({
        "DISPLAY": display, "ANDROID_ADB_SERVER_PORT": str(adb_port),
        "VENUSCTL_MODEL": str(tiny_model.model), "VENUSCTL_MMPROJ": str(tiny_model.mmproj),
    }, "--load")
    checks = {c["name"]: c for c in report["checks"]}
    assert list(checks) == ["android: adb", "desktop: display", "web: browser",
                            "model: settings", "model: files",
                            "model: loadable", "model: loads", "llama.cpp build", "prompts",
                            "secrets: keyring", "memory"]
    assert "VENUSCTL_MODEL" in checks["model: settings"]["detail"]  # where the model came from
    assert checks["prompts"]["status"] == "ok"
    assert "venusctl prompts pull" in checks["prompts"]["detail"]  # says how to get them
    assert checks["android: adb"]["status"] == "warn"  # adb answers; no phone is plugged in
    assert checks["desktop: display"]["status"] == "ok"
    assert checks["model: loadable"]["detail"].startswith("qwen35")
    assert checks["model: loads"]["status"] == "ok"
    assert "chromium" in checks["web: browser"]["detail"].lower()
    assert code == 0 and report["ok"] is True


def test_failures_come_with_fixes_and_exit_1(adb_port, tmp_path):
    env = {"DISPLAY": "", "ANDROID_ADB_SERVER_PORT": str(adb_port),
           "VENUSCTL_MODEL": str(tmp_path / "missing.gguf")}
    code, report = doctor(env, "--driver", "desktop")
    failed = {c["name"]: c for c in report["checks"] if c["status"] == "fail"}
    assert set(failed) == {"desktop: display", "model: files"}
    assert all(c["fix"] for c in failed.values())
    assert code == 1 and report["ok"] is False
