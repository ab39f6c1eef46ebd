"""Model settings from four places, in one order: flags > environment > config file > default.

The config file is TOML in the user config dir (`~/.config/venusctl/config.toml` on
Linux; `VENUSCTL_CONFIG` points elsewhere). Only the `[model]` and `[server]` tables
are read here; other tables belong to other parts of venusctl and are left alone.
Keys are checked, so a typo is a one-line usage error instead of a silently ignored
setting. Secrets never live in this file: the API key comes from the keyring or an
environment variable, and a key written here is refused.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import platformdirs

from venusctl.core.errors import UsageError

CONFIG_ENV = "VENUSCTL_CONFIG"
DEFAULT_REPO = "bartowski/UI-Venus-2-9B-GGUF"
DEFAULT_QUANT = "Q4_K_M"
API_KEY_ENV = "VENUSCTL_API_KEY"
KEYRING_SERVICE = "venusctl"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_SECRET_KEYS = {"api_key", "key", "token", "password", "secret"}


@dataclass(frozen=True)
class Setting:
    """One model setting: its option name, environment variable and place in the file."""

    name: str
    env: str
    section: str
    key: str
    kind: Callable[[Any], Any]


def _path(value: Any) -> Path:
    return Path(os.path.expandvars(str(value))).expanduser()


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"'{value}' is not true or false")


def _int(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError(f"'{value}' is not a whole number")
    return int(value)


def _float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError(f"'{value}' is not a number")
    return float(value)


def _choice(*options: str) -> Callable[[Any], str]:
    def read(value: Any) -> str:
        text = str(value).strip().lower()
        if text not in options:
            raise ValueError(f"'{value}' is not one of: {', '.join(options)}")
        return text

    return read


def _text(value: Any) -> str:
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise ValueError(f"'{value}' is not text")
    text = str(value).strip()
    if not text:
        raise ValueError("it is empty")
    return text


SETTINGS: tuple[Setting, ...] = (
    Setting("model", "VENUSCTL_MODEL", "model", "model", _text),
    Setting("mmproj", "VENUSCTL_MMPROJ", "model", "mmproj", _path),
    Setting("repo", "VENUSCTL_REPO", "model", "repo", _text),
    Setting("quant", "VENUSCTL_QUANT", "model", "quant", _text),
    Setting("n_ctx", "VENUSCTL_N_CTX", "model", "n_ctx", _int),
    Setting("threads", "VENUSCTL_THREADS", "model", "threads", _int),
    Setting("gpu_layers", "VENUSCTL_GPU_LAYERS", "model", "gpu_layers", _int),
    Setting("image_min_tokens", "VENUSCTL_IMAGE_MIN_TOKENS", "model", "image_min_tokens", _int),
    Setting("image_max_tokens", "VENUSCTL_IMAGE_MAX_TOKENS", "model", "image_max_tokens", _int),
    Setting("grammar", "VENUSCTL_GRAMMAR", "model", "grammar", _bool),
    Setting("interface", "VENUSCTL_INTERFACE", "model", "interface", _choice("authors", "lean")),
    Setting("prompts", "VENUSCTL_PROMPTS", "model", "prompts", _choice("authors", "builtin")),
    Setting("server", "VENUSCTL_SERVER", "server", "url", _text),
    Setting("server_model", "VENUSCTL_SERVER_MODEL", "server", "model", _text),
    Setting("api_key_env", "VENUSCTL_API_KEY_ENV", "server", "api_key_env", _text),
    Setting("server_timeout", "VENUSCTL_SERVER_TIMEOUT", "server", "timeout", _float),
    Setting("server_retries", "VENUSCTL_SERVER_RETRIES", "server", "retries", _int),
    Setting("server_grammar", "VENUSCTL_SERVER_GRAMMAR", "server", "grammar", _bool),
)
BY_NAME = {setting.name: setting for setting in SETTINGS}


@dataclass(frozen=True)
class ModelConfig:
    """The resolved model settings; `sources` says where each value came from."""

    model: str | None = None
    mmproj: Path | None = None
    repo: str = DEFAULT_REPO
    quant: str = DEFAULT_QUANT
    n_ctx: int | None = None
    threads: int | None = None
    gpu_layers: int | None = None
    image_min_tokens: int | None = None
    image_max_tokens: int | None = None
    grammar: bool | None = None
    interface: str | None = None
    prompts: str | None = None
    server: str | None = None
    server_model: str | None = None
    api_key_env: str | None = None
    server_timeout: float = 120.0
    server_retries: int = 3
    server_grammar: bool = False
    sources: Mapping[str, str] = field(default_factory=dict)

    def source(self, name: str) -> str:
        return self.sources.get(name, "default")


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the config file lives (it need not exist)."""
    env = os.environ if environ is None else environ
    if env.get(CONFIG_ENV):
        return _path(env[CONFIG_ENV])
    return platformdirs.user_config_path("venusctl") / "config.toml"


def read_config_file(path: Path) -> dict[str, Any]:
    """The file's `[model]`/`[server]` values by setting name; a missing file is empty."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise UsageError(f"cannot read config file {path}: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"config file {path} is not valid TOML: {exc}") from None
    values: dict[str, Any] = {}
    for section in ("model", "server"):
        table = raw.get(section, {})
        if not isinstance(table, dict):
            raise UsageError(f"config file {path}: '{section}' must be a table ([{section}])")
        values.update(_read_table(path, section, table))
    return values


def _read_table(path: Path, section: str, table: dict[str, Any]) -> dict[str, Any]:
    known = {s.key: s for s in SETTINGS if s.section == section}
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key.lower() in _SECRET_KEYS:
            raise UsageError(
                f"config file {path}: [{section}] {key}: keep secrets out of the config file; "
                f"put the API key in the keyring or in an environment variable"
            )
        setting = known.get(key)
        if setting is None:
            raise UsageError(
                f"config file {path}: [{section}] has no setting '{key}' "
                f"(known: {', '.join(sorted(known))})"
            )
        values[setting.name] = _convert(setting, value, f"config file {path}: [{section}] {key}")
    return values


def _convert(setting: Setting, value: Any, where: str) -> Any:
    try:
        return setting.kind(value)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{where}: {exc}") from None


def resolve(
    flags: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    file_values: Mapping[str, Any] | None = None,
) -> ModelConfig:
    """Merge the four sources; `flags` holds only options given on the command line.

    `environ` defaults to the process environment and `file_values` to the config
    file, so callers normally pass only the flags.
    """
    env = os.environ if environ is None else environ
    if file_values is None:
        file_values = read_config_file(config_path(env))
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for setting in SETTINGS:
        found = _first(setting, flags, env, file_values)
        if found is not None:
            values[setting.name], sources[setting.name] = found
    known = {f.name for f in fields(ModelConfig)}
    return ModelConfig(**{k: v for k, v in values.items() if k in known}, sources=sources)


def _first(
    setting: Setting,
    flags: Mapping[str, Any],
    env: Mapping[str, str],
    file_values: Mapping[str, Any],
) -> tuple[Any, str] | None:
    flag = flags.get(setting.name)
    if flag is not None:
        return _convert(setting, flag, f"--{setting.name.replace('_', '-')}"), "flag"
    text = env.get(setting.env)
    if text is not None and text.strip():
        return _convert(setting, text, f"environment variable {setting.env}"), f"env {setting.env}"
    if setting.name in file_values:
        return file_values[setting.name], "config file"
    return None
