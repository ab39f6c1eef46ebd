"""A persistent browser profile (`--profile DIR`) that keeps logins but not what was typed.

A profile exists so that sign-ins survive between runs: cookies and site storage
stay. Chromium would also keep what the agent typed: form entries for autofill,
addresses, cards and passwords in "Web Data" and "Login Data", the open tabs with
their form contents in "Sessions", visited addresses (which can carry what a page
echoed) in "History", and responses in the disk cache. Before the browser starts,
its preferences turn autofill, the password manager and history off and the cache
goes to a folder of its own; when the browser has closed, the session files and
that cache are deleted.
"""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

PREFERENCES: dict[str, Any] = {
    "autofill": {"enabled": False, "profile_enabled": False, "credit_card_enabled": False},
    "credentials_enable_service": False,
    "credentials_enable_autosignin": False,
    "profile": {"password_manager_enabled": False},
    "history": {"saving_disabled": True},
    "savefile": {"default_directory": ""},
    "search": {"suggest_enabled": False},
}
SESSION_FILES = ("Sessions", "Current Session", "Current Tabs", "Last Session", "Last Tabs")


def _merged(base: dict[str, Any], wanted: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in wanted.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merged(out[key], value)
        else:
            out[key] = value
    return out


class ProfileGuard:
    """Prepares a profile folder before the browser starts and tidies it after."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.cache = Path(tempfile.mkdtemp(prefix="venusctl-cache-"))

    def prepare(self) -> list[str]:
        """Write the preferences; returns the browser arguments the profile needs."""
        prefs = self.folder / "Default" / "Preferences"
        prefs.parent.mkdir(parents=True, exist_ok=True)
        current: dict[str, Any] = {}
        try:
            current = json.loads(prefs.read_text(encoding="utf-8"))
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:  # unreadable: Chromium would reset it anyway
            log.debug("profile preferences unreadable, rewritten: %s", exc)
        prefs.write_text(json.dumps(_merged(current, PREFERENCES)), encoding="utf-8")
        return [f"--disk-cache-dir={self.cache}"]

    def tidy(self) -> None:
        """After the browser closed: no open tabs (with their form contents), no cache."""
        for name in SESSION_FILES:
            path = self.folder / "Default" / name
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            elif path.exists():
                path.unlink(missing_ok=True)
        shutil.rmtree(self.cache, ignore_errors=True)
