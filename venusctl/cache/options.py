"""How a run uses the trajectory cache: the mode, the folder, the match threshold.

Modes: `on` replays and records, `read` only replays, `write` only records (every
step is asked, and the entry is refreshed from the run), `off` does neither.
Settings come from the first place that has them: flag > environment
(`VENUSCTL_CACHE`, `VENUSCTL_CACHE_DIR`) > the config file's `[cache]` table >
default (on, under the user data dir). A batch task's own `cache:` can only take
away: reading or writing happens when every place that speaks allows it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from platformdirs import user_data_path

from venusctl.core.errors import UsageError

MODE_ENV = "VENUSCTL_CACHE"
DIR_ENV = "VENUSCTL_CACHE_DIR"
CONFIG_KEYS = ("mode", "dir", "max_distance")
DEFAULT_MAX_DISTANCE = 4
"""Bits of the 256-bit perceptual hash two screens may differ in and still count as the
same screen. Measured on the shop app: a re-rendered page differs in 0, a field holding
'Bob' instead of 'Ada' in 6, a typed name against an empty field in 14 or more."""
HASH_BITS = 256


class CacheMode(str, Enum):
    ON = "on"
    OFF = "off"
    READ = "read"
    WRITE = "write"

    @property
    def reads(self) -> bool:
        return self in (CacheMode.ON, CacheMode.READ)

    @property
    def writes(self) -> bool:
        return self in (CacheMode.ON, CacheMode.WRITE)

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, value: Any, where: str = "--cache") -> CacheMode:
        """A mode from text (`on`, `off`, `read`, `write`; true/false as on/off)."""
        if isinstance(value, CacheMode):
            return value
        if isinstance(value, bool):
            return cls.ON if value else cls.OFF
        text = str(value).strip().lower()
        text = {"true": "on", "yes": "on", "1": "on", "false": "off", "no": "off",
                "0": "off"}.get(text, text)
        try:
            return cls(text)
        except ValueError:
            raise UsageError(f"{where} must be on, off, read or write, not '{value}'") from None

    def narrowed(self, other: CacheMode) -> CacheMode:
        """What both modes allow: reading if both read, writing if both write."""
        reads, writes = self.reads and other.reads, self.writes and other.writes
        if reads and writes:
            return CacheMode.ON
        return CacheMode.READ if reads else (CacheMode.WRITE if writes else CacheMode.OFF)


@dataclass(frozen=True)
class CacheOptions:
    """One run's cache settings (a library caller's default is off)."""

    mode: CacheMode = CacheMode.OFF
    folder: Path | None = None
    max_distance: int = DEFAULT_MAX_DISTANCE

    @property
    def active(self) -> bool:
        return self.mode is not CacheMode.OFF

    def where(self) -> Path:
        return self.folder or default_cache_dir()


def default_cache_dir() -> Path:
    """`VENUSCTL_CACHE_DIR`, else `trajectories` under the user data dir."""
    env = os.environ.get(DIR_ENV)
    if env and env.strip():
        return Path(env).expanduser()
    return user_data_path("venusctl") / "trajectories"


def resolve_cache(mode: str | None = None, folder: Path | None = None,
                  config: dict[str, Any] | None = None) -> CacheOptions:
    """The settings of a run: flag > environment > config file > default (on)."""
    table = read_cache_config() if config is None else config
    chosen: Any = mode
    where = "--cache"
    if chosen is None and os.environ.get(MODE_ENV, "").strip():
        chosen, where = os.environ[MODE_ENV], f"environment variable {MODE_ENV}"
    if chosen is None and "mode" in table:
        chosen, where = table["mode"], "the config file's [cache] mode"
    parsed = CacheMode.parse("on" if chosen is None else chosen, where)
    place = folder
    if place is None and not os.environ.get(DIR_ENV, "").strip() and table.get("dir"):
        place = Path(str(table["dir"])).expanduser()
    return CacheOptions(parsed, place, int(table.get("max_distance", DEFAULT_MAX_DISTANCE)))


def read_cache_config() -> dict[str, Any]:
    """The config file's `[cache]` table, checked (unknown keys are a usage error)."""
    from venusctl.core.config_file import config_path, read_table, relative_to_file

    path = config_path()
    table = read_table(path, "cache", CONFIG_KEYS)
    if "mode" in table:
        CacheMode.parse(table["mode"], f"config file {path}: [cache] mode")
    if "dir" in table and not isinstance(table["dir"], str):
        raise UsageError(f"config file {path}: [cache] dir must be a path")
    if table.get("dir"):
        table["dir"] = relative_to_file(path, table["dir"])
    distance = table.get("max_distance", DEFAULT_MAX_DISTANCE)
    if isinstance(distance, bool) or not isinstance(distance, int) or not (
            0 <= distance < HASH_BITS):
        raise UsageError(f"config file {path}: [cache] max_distance must be a whole number "
                         f"from 0 to {HASH_BITS - 1}")
    return table
