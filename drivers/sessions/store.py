"""Session records on disk: one JSON file per session, readable only by its owner.

The folder is `VENUSCTL_SESSIONS_DIR`, else the user state dir
(`~/.local/state/venusctl/sessions`). A record holds the endpoint with its token, so
files are written 0600 in a 0700 folder, atomically (a reader never sees half a
record). Creating a record is the lock that keeps two sessions from one name.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from venusctl.core.errors import UsageError

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
STARTING, RUNNING, SETTINGS, DEAD = "starting", "running", "settings", "dead"


@dataclass
class SessionRecord:
    """What a session is and how to reach it; `endpoint` carries the secret token."""

    name: str
    driver: str
    state: str = STARTING
    created_at: float = field(default_factory=time.time)
    last_used: float = field(default_factory=time.time)
    idle_timeout_s: float = 1800.0
    settings: dict[str, Any] = field(default_factory=dict)
    endpoint: str | None = None
    pid: int | None = None
    browser_pid: int | None = None
    profile_dir: str | None = None
    reason: str | None = None

    def public(self) -> dict[str, Any]:
        """Everything but the endpoint's token (for `session list --json`)."""
        data = asdict(self)
        data.pop("endpoint", None)
        data["port"] = port_of(self.endpoint)
        return data


def port_of(endpoint: str | None) -> int | None:
    match = re.match(r"ws://127\.0\.0\.1:(\d+)/", endpoint or "")
    return int(match.group(1)) if match else None


def sessions_dir() -> Path:
    env = os.environ.get("VENUSCTL_SESSIONS_DIR")
    if env:
        folder = Path(env).expanduser()
    else:
        import platformdirs

        folder = platformdirs.user_state_path("venusctl") / "sessions"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        folder.chmod(0o700)
    return folder


def check_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise UsageError(f"'{name[:60]}' is not a session name: use up to 40 letters, digits, "
                         "'.', '_' or '-', starting with a letter or digit")
    return name


def path_of(name: str) -> Path:
    return sessions_dir() / f"{check_name(name)}.json"


def claim(record: SessionRecord) -> bool:
    """Create the record if no session has the name; False when one does."""
    try:
        fd = os.open(path_of(record.name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(asdict(record), handle)
    return True


def save(record: SessionRecord) -> None:
    target = path_of(record.name)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(asdict(record), handle)
    os.replace(temporary, target)


def load(name: str) -> SessionRecord | None:
    try:
        data = json.loads(path_of(name).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return SessionRecord(name=name, driver="?", state=DEAD, reason="its record is unreadable")
    known = SessionRecord.__dataclass_fields__
    return SessionRecord(**{k: v for k, v in data.items() if k in known})


def remove(name: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        path_of(name).unlink()


def names() -> list[str]:
    return sorted(p.stem for p in sessions_dir().glob("*.json") if NAME.fullmatch(p.stem))


def log_path(name: str) -> Path:
    return sessions_dir() / f"{check_name(name)}.log"
