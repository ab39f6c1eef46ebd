"""Shared by the environment scripts: find the checkout, announce, wait for SIGTERM.

An environment script prints `NAME=VALUE` lines, then `READY`, and keeps running
until venusctl stops it (SIGTERM to its process group); see venusctl/environments.py.
These scripts reuse the simulated phone, the shop app and the X helpers of the test
suite, so they run from a source checkout of venusctl.
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[3]
if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))


def announce(**variables: str) -> None:
    for name, value in variables.items():
        print(f"{name}={value}", flush=True)
    print("READY", flush=True)


def wait_for_stop() -> None:
    """Block until SIGTERM or SIGINT, so the caller's cleanup runs."""
    stopped = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopped.set())
    while not stopped.wait(0.5):
        pass
