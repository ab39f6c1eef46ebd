"""Finding the real components tests need, failing loudly (never skipping) without them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
"""The source checkout (tests run from one)."""

INSTALL_HINT = "run scripts/test.sh, which installs the test dependencies"


def require(program: str, *alternatives: str) -> str:
    """The path of a program the test needs; a missing one fails the test."""
    for name in (program, *alternatives):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(f"{program} is not installed; {INSTALL_HINT}", pytrace=False)


def chromium() -> str:
    return require("chromium", "chromium-browser", "google-chrome")
