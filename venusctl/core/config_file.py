"""The one reader of venusctl's config file (TOML in the user config dir).

`~/.config/venusctl/config.toml` on Linux, or wherever `VENUSCTL_CONFIG` points.
Each part of venusctl owns its tables (`[model]`, `[server]`, `[cache]`, `[safety]`)
and asks for them here; keys are checked against what the owner declares, so a typo
is a one-line usage error instead of a silently ignored setting.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import platformdirs

from venusctl.core.errors import UsageError

CONFIG_ENV = "VENUSCTL_CONFIG"


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the config file lives (it need not exist)."""
    env = os.environ if environ is None else environ
    if env.get(CONFIG_ENV):
        return expand(env[CONFIG_ENV])
    return platformdirs.user_config_path("venusctl") / "config.toml"


def expand(value: Any) -> Path:
    """A path as people write them in settings: `~` and `$VARS` expanded."""
    return Path(os.path.expandvars(str(value))).expanduser()


def read_document(path: Path) -> dict[str, Any]:
    """The whole file parsed; a missing file is empty, a broken one a usage error."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"config file {path} is not valid TOML: {exc}") from None


def table_of(path: Path, document: Mapping[str, Any], section: str) -> dict[str, Any]:
    """The `[section]` table of a parsed file (empty when absent), unchecked."""
    table = document.get(section, {})
    if not isinstance(table, dict):
        raise UsageError(f"config file {path}: '{section}' must be a table ([{section}])")
    return dict(table)


def read_table(path: Path, section: str, known: Iterable[str]) -> dict[str, Any]:
    """The `[section]` table with its keys checked against `known`."""
    table = table_of(path, read_document(path), section)
    names = tuple(known)
    unknown = sorted(set(table) - set(names))
    if unknown:
        raise UsageError(f"config file {path}: [{section}] has no setting "
                         f"{', '.join(unknown)} (known: {', '.join(names)})")
    return table


def relative_to_file(path: Path, value: str) -> str:
    """A path written in the config file, relative to the file's folder."""
    return str((path.parent / Path(value).expanduser()).resolve())
