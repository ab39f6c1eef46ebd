"""The cache folder: one file per entry, owned by the user, written atomically.

The folder is created 0700 and each entry 0600; an entry is written to a temporary
file in the same folder, flushed, and renamed over the old one, so a reader sees
the old entry or the new one, never half of one. An entry owned by someone else,
or writable by others, is not used (anyone who could change it could make venusctl
click what they like; the guard would still judge every click, but the cache
should not be the way in).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from venusctl.cache.entry import EntryError, Trajectory, read_entry
from venusctl.cache.key import TrajectoryKey
from venusctl.core.errors import UsageError
from venusctl.core.text import first_line

SUFFIX = ".json"
MAX_ENTRY_BYTES = 16 * 1024 * 1024


class CacheUnusable(Exception):
    """The cache cannot be used for this run; the message is the warning line."""


@dataclass(frozen=True)
class Listed:
    """One file of the folder, read back: its trajectory, or why it cannot be used."""

    path: Path
    trajectory: Trajectory | None
    problem: str | None = None

    @property
    def id(self) -> str:
        return self.path.name.removesuffix(SUFFIX)


class TrajectoryStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def path_for(self, key: TrajectoryKey) -> Path:
        return self.folder / f"{key.id}{SUFFIX}"

    # ------------------------------------------------------------------ reading
    def load(self, key: TrajectoryKey) -> Trajectory | None:
        """The entry for `key`; None when there is none; `CacheUnusable` when there is
        one (or a folder) that cannot be trusted or read."""
        self._check_folder()
        path = self.path_for(key)
        trajectory = self.read(path)
        if trajectory is None:
            return None
        if trajectory.key != key:
            raise CacheUnusable(f"trajectory cache entry {path} belongs to another task "
                                "(its key does not match its name)")
        return trajectory

    def read(self, path: Path) -> Trajectory | None:
        try:
            info = path.lstat()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CacheUnusable(f"cannot read trajectory cache entry {path}: "
                                f"{first_line(exc.strerror or exc)}") from None
        _check_owned(path, info)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise CacheUnusable(f"trajectory cache entry {path} is damaged (not UTF-8)") from None
        except OSError as exc:
            raise CacheUnusable(f"cannot read trajectory cache entry {path}: "
                                f"{first_line(exc.strerror or exc)}") from None
        try:
            return read_entry(text)
        except EntryError as exc:
            raise CacheUnusable(f"trajectory cache entry {path} {exc}") from None

    def _check_folder(self) -> None:
        try:
            info = self.folder.stat()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise CacheUnusable(f"cannot read the trajectory cache folder {self.folder}: "
                                f"{first_line(exc.strerror or exc)}") from None
        if not stat.S_ISDIR(info.st_mode):
            raise CacheUnusable(f"the trajectory cache folder {self.folder} is not a folder")
        if not os.access(self.folder, os.R_OK | os.X_OK):
            raise CacheUnusable(f"cannot read the trajectory cache folder {self.folder}: "
                                "permission denied")

    def entries(self) -> list[Listed]:
        """Every entry file, newest first; unusable ones say why."""
        self._check_folder()
        if not self.folder.exists():
            return []
        try:
            paths = [p for p in self.folder.iterdir() if p.name.endswith(SUFFIX)]
        except OSError as exc:
            raise CacheUnusable(f"cannot read the trajectory cache folder {self.folder}: "
                                f"{first_line(exc.strerror or exc)}") from None
        listed = []
        for path in paths:
            try:
                found = self.read(path)
            except CacheUnusable as exc:
                listed.append(Listed(path, None, str(exc)))
                continue
            if found is not None:
                listed.append(Listed(path, found))
        listed.sort(key=lambda e: (e.trajectory.created_at if e.trajectory else 0.0),
                    reverse=True)
        return listed

    def find(self, ref: str) -> Path:
        """An entry file by id or unique id prefix (a usage error otherwise)."""
        ref = ref.strip().removesuffix(SUFFIX)
        if not ref or not all(c in "0123456789abcdef" for c in ref.lower()):
            raise UsageError(f"'{ref[:40]}' is not a cache entry id (see `venusctl cache list`)")
        matches = [p for p in self._files() if p.name.startswith(ref.lower())]
        if not matches:
            raise UsageError(f"no cache entry '{ref}' in {self.folder}")
        if len(matches) > 1:
            raise UsageError(f"'{ref}' matches {len(matches)} cache entries; give more of the id")
        return matches[0]

    def _files(self) -> list[Path]:
        try:
            self._check_folder()
            if not self.folder.exists():
                return []
            return [p for p in self.folder.iterdir() if p.name.endswith(SUFFIX)]
        except (CacheUnusable, OSError) as exc:
            raise UsageError(str(exc)) from None

    # ------------------------------------------------------------------ writing
    def save(self, trajectory: Trajectory) -> Path:
        """Write (or replace) the entry atomically; `CacheUnusable` when it cannot be."""
        path = self.path_for(trajectory.key)
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            _write_atomically(path, trajectory.to_json().encode("utf-8"))
        except OSError as exc:
            raise CacheUnusable(f"cannot write trajectory cache entry {path}: "
                                f"{first_line(exc.strerror or exc)}") from None
        return path

    def remove(self, path: Path) -> None:
        try:
            path.unlink()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise UsageError(f"cannot remove {path}: {first_line(exc.strerror or exc)}") from None

    def clear(self) -> int:
        """Remove every entry (and stray temporary files); the number of entries removed."""
        removed = 0
        for path in self._files():
            self.remove(path)
            removed += 1
        with contextlib.suppress(OSError):
            for stray in self.folder.glob(".*.tmp"):
                stray.unlink()
        return removed


def _check_owned(path: Path, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise CacheUnusable(f"trajectory cache entry {path} is not a plain file")
    if info.st_size > MAX_ENTRY_BYTES:
        raise CacheUnusable(f"trajectory cache entry {path} is too large to be an entry")
    getuid = getattr(os, "getuid", None)
    if getuid is not None and info.st_uid != getuid():
        raise CacheUnusable(f"trajectory cache entry {path} belongs to another user")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise CacheUnusable(f"trajectory cache entry {path} is writable by other users "
                            "(chmod 600 it, or clear it)")


def _write_atomically(path: Path, data: bytes) -> None:
    # mkstemp creates the file 0600, readable and writable by this user only
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp",
                                             dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):  # the rename itself reaches the disk
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
