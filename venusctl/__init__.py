"""venusctl: a local command-line GUI agent driven by the UI-Venus-2 model.

The package is a set of small modules joined by plain values: drivers observe and
act, the model answers, the action language parses, the guard decides, the recorder
keeps everything. `venusctl.cli` wires them together for people and scripts;
`venusctl.api` for programs, and its names are importable from here
(`from venusctl import Agent, RunRequest`), loaded on first use so that the
command line starts without them.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    api = importlib.import_module("venusctl.api")
    if name in api.__all__:
        return getattr(api, name)
    raise AttributeError(f"module 'venusctl' has no attribute '{name}'")


def __dir__() -> list[str]:
    api = importlib.import_module("venusctl.api")
    return sorted([*globals(), *api.__all__])
