"""What the simulated environments need from the system, and the errors they raise.

A missing program is the most common reason an environment cannot start on a fresh
machine, so the error names the package that provides it; a port someone else holds
is the second. Both are `DeviceError`s: the CLI turns them into one line and exit 5.
"""

from __future__ import annotations

import importlib.util
import shutil

from venusctl.core.errors import DeviceError

APT = {"Xvfb": "xvfb", "adb": "adb"}


class SimUnavailable(DeviceError):
    """An environment cannot start or stopped working (missing tool, busy port, crash)."""


def require(program: str) -> str:
    """The path of a system program, or an error that says how to install it."""
    found = shutil.which(program)
    if found is None:
        package = APT.get(program, program.lower())
        raise SimUnavailable(f"{program} is not installed; install it with: "
                             f"sudo apt install {package}")
    return found


def require_tk() -> None:
    """The Tk app runs on this Python; Debian ships Tk for Python separately."""
    if any(importlib.util.find_spec(name) is None for name in ("tkinter", "_tkinter")):
        raise SimUnavailable("Tk for Python is not installed; install it with: "
                             "sudo apt install python3-tk")


def busy(port: int, what: str, flag: str = "--port") -> SimUnavailable:
    return SimUnavailable(f"port {port} is busy; {what} needs a free one (choose another "
                          f"with {flag}, or 0 for any)")
