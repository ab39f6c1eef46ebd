"""The built-in environments by name: what `venusctl sim NAME` starts and what a task
file's `environments: [{sim: NAME, options: {...}}]` may ask for.

A task file's built-in environment is run as `"$VENUSCTL_PYTHON" -m venusctl sim NAME
--OPTION VALUE…`, the same command a person types, so it announces itself and stops
like any other `start:` command (see venusctl/batch/environments.py).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from venusctl.core.errors import UsageError

_SIZE = re.compile(r"^\s*(\d{2,5})\s*[xX]\s*(\d{2,5})\s*$")


@dataclass(frozen=True)
class Builtin:
    """One built-in environment: its options (name -> kind) and what it exports."""

    name: str
    about: str
    exports: tuple[str, ...]
    options: Mapping[str, str]
    task_file_defaults: Mapping[str, Any] = field(default_factory=dict)
    timeout_s: float = 60.0


BUILTINS: dict[str, Builtin] = {
    "web": Builtin("web", "the shop web app", ("SHOP_URL",), {"port": "port"}),
    "desktop": Builtin("desktop", "the Venus Test App (Tk) on a private Xvfb display",
                       ("DISPLAY", "XDG_SESSION_TYPE", "TK_LOG"), {"size": "size"}),
    "phone": Builtin("phone", "the simulated Android phone behind the real adb server",
                     ("ANDROID_ADB_SERVER_PORT", "PHONE_SERIAL"),
                     {"size": "size", "realistic": "flag", "port": "port", "adb_port": "port"},
                     # a task file's phone gets a private adb server: the user's phones
                     # and server are left alone, and the batch sees only this phone
                     task_file_defaults={"adb_port": 0}, timeout_s=90.0),
}


def parse_size(text: str) -> tuple[int, int]:
    """'1080x2400' -> (1080, 2400); anything else is a ValueError saying what is wanted."""
    match = _SIZE.match(str(text))
    if not match:
        raise ValueError(f"size '{text}' is not WIDTHxHEIGHT in pixels, e.g. 1080x2400")
    return int(match.group(1)), int(match.group(2))


def lookup(name: Any, where: str) -> Builtin:
    builtin = BUILTINS.get(str(name).strip().lower()) if isinstance(name, str) else None
    if builtin is None:
        raise UsageError(f"{where}: unknown environment {name!r} (built in: "
                         f"{', '.join(BUILTINS)})")
    return builtin


def sim_command(name: Any, options: Any, where: str) -> tuple[Builtin, str]:
    """The built-in environment and the shell command that serves it, options checked."""
    builtin = lookup(name, where)
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise UsageError(f"{where}: 'options' must be a mapping, e.g. {{size: 1080x2400}}")
    unknown = sorted(set(options) - set(builtin.options))
    if unknown:
        known = ", ".join(sorted(builtin.options)) or "none"
        raise UsageError(f"{where}: unknown option {', '.join(map(str, unknown))} for "
                         f"'{builtin.name}' (known: {known})")
    args = ["sim", builtin.name]
    for key, value in {**builtin.task_file_defaults, **options}.items():
        args += _flag(key, builtin.options[key], value, where)
    return builtin, '"$VENUSCTL_PYTHON" -m venusctl ' + shlex.join(args)


def _flag(key: str, kind: str, value: Any, where: str) -> list[str]:
    flag = "--" + key.replace("_", "-")
    if kind == "flag":
        if not isinstance(value, bool):
            raise UsageError(f"{where}: option {key} must be true or false")
        return [flag] if value else []
    if kind == "port":
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 65535:
            raise UsageError(f"{where}: option {key} must be a port number (0 for any free one)")
        return [flag, str(value)]
    try:
        width, height = parse_size(value)
    except ValueError as exc:
        raise UsageError(f"{where}: option {key}: {exc}") from None
    return [flag, f"{width}x{height}"]
