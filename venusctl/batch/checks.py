"""Programmatic success checks, run on the surface after the agent has stopped.

The model saying `Finished` is a claim; a check is evidence: the browser's URL, text
in the page's DOM, the phone's UI hierarchy or the desktop's active window, a file on
disk, or any shell command that exits 0. Checks run while the task's driver is still
open, so they see the state the agent left behind.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venusctl.batch.shown_text import read_active_window
from venusctl.batch.taskfile import Check
from venusctl.core.actions import Surface
from venusctl.core.errors import VenusError
from venusctl.drivers.base import Driver, ScreenContext
from venusctl.drivers.capabilities import Capability, able

SHELL_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class CheckResult:
    kind: str
    value: str
    passed: bool
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "value": self.value, "passed": self.passed,
                "detail": self.detail}


@dataclass(frozen=True)
class CheckContext:
    """What the checks may look at: the open driver, the final answer, an environment."""

    driver: Driver | None
    answer: str
    env: Mapping[str, str]
    cwd: Path


def run_checks(checks: tuple[Check, ...], context: CheckContext) -> list[CheckResult]:
    """Every check, in order; one failing does not hide the others."""
    return [run_check(check, context) for check in checks]


def run_check(check: Check, context: CheckContext) -> CheckResult:
    try:
        passed, detail = _KINDS[check.kind](check.value, context)
    except VenusError as exc:
        passed, detail = False, str(exc)
    except Exception as exc:  # a surface that broke while being checked
        passed, detail = False, f"{type(exc).__name__}: {exc}"
    return CheckResult(check.kind, check.value, passed, detail)


def _url_matches(pattern: str, context: CheckContext) -> tuple[bool, str]:
    if context.driver is None:
        return False, "the browser is gone"
    url = screen_context(context.driver).url or ""
    return re.search(pattern, url) is not None, f"url {url}"


def _answer_matches(pattern: str, context: CheckContext) -> tuple[bool, str]:
    found = re.search(pattern, context.answer) is not None
    return found, f"answer {context.answer[:200]!r}"


def _text_present(text: str, context: CheckContext) -> tuple[bool, str]:
    if context.driver is None:
        return False, "the surface is gone"
    content = surface_text(context.driver)
    found = _contains(content, text)
    detail = f"{'found' if found else 'not found'} in {len(content)} characters"
    if found or context.driver.surface is not Surface.DESKTOP:
        return found, detail
    # drawn text AT-SPI cannot see (Tk, xterm, a canvas): read the window's pixels
    shown = read_active_window(context.driver)
    found = _contains(shown, text)
    return found, (f"{detail} of window text; {'found' if found else 'not found'} in "
                   f"{len(shown)} characters read by OCR")


def _contains(content: str, text: str) -> bool:
    return _flat(text).casefold() in _flat(content).casefold()


def _file_exists(path: str, context: CheckContext) -> tuple[bool, str]:
    target = Path(path).expanduser()
    if not target.is_absolute():
        target = context.cwd / target
    return target.exists(), str(target)


def _shell(command: str, context: CheckContext) -> tuple[bool, str]:
    try:
        done = subprocess.run(command, shell=True, cwd=context.cwd, env=dict(context.env),
                              capture_output=True, text=True, timeout=SHELL_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {SHELL_TIMEOUT_S:g} s"
    output = " ".join((done.stdout + done.stderr).split())[-300:]
    return done.returncode == 0, f"exit {done.returncode}" + (f": {output}" if output else "")


_KINDS = {
    "url_matches": _url_matches,
    "answer_matches": _answer_matches,
    "text_present": _text_present,
    "file_exists": _file_exists,
    "shell": _shell,
}


def screen_context(driver: Driver) -> ScreenContext:
    """The app or page the surface shows now, without taking a screenshot."""
    return driver.context()


def surface_text(driver: Driver) -> str:
    """All text the surface shows, as its driver reads it (`surface_text()`: the page's
    rendered text and source on the web, every label of the UI hierarchy on a phone,
    the active window's title and accessible text on the desktop)."""
    reader = able(driver, Capability.SURFACE_TEXT)
    if reader is None:
        raise VenusError(f"text_present cannot read the {driver.name} surface")
    return reader.surface_text()


def _flat(text: str) -> str:
    return " ".join(text.split())
