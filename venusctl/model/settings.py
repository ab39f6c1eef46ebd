"""The model settings, declared once, from four places: flags > environment > config file > default.

`ModelSettings` is the one list: each field says its flag, environment variable and
place in the config file (`[model]` and `[server]` tables), and its type checks the
value wherever it came from. The command line builds its model flags from it
(`venusctl.cli.options`), and `resolve` reads the other places through pydantic-settings
sources that remember which place set each value (`source`), for error messages,
`venusctl doctor` and `venusctl model list`. A new model setting is one field here.

Keys of the config file are checked, so a typo is a one-line usage error instead of a
silently ignored setting. Secrets never live in that file: the API key comes from the
keyring or an environment variable, and a key written there is refused.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Optional

from pydantic import BaseModel, BeforeValidator, ConfigDict, PrivateAttr
from pydantic.fields import FieldInfo
from pydantic_settings import PydanticBaseSettingsSource

from venusctl.core.config_file import config_path, expand, read_document, table_of
from venusctl.core.errors import UsageError
from venusctl.core.options import Declared, check_value, option, settings_of

DEFAULT_REPO = "bartowski/UI-Venus-2-9B-GGUF"
DEFAULT_QUANT = "Q4_K_M"
API_KEY_ENV = "VENUSCTL_API_KEY"
KEYRING_SERVICE = "venusctl"
PANEL = "Model"

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_SECRET_KEYS = {"api_key", "key", "token", "password", "secret"}

__all__ = ["API_KEY_ENV", "DEFAULT_QUANT", "DEFAULT_REPO", "KEYRING_SERVICE", "ModelConfig",
           "ModelSettings", "config_path", "read_config_file", "resolve"]


def _path(value: Any) -> Path:
    return expand(value)


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


def _kind(convert: Callable[[Any], Any]) -> BeforeValidator:
    """Our converter runs first, so its words are the error people see."""
    return BeforeValidator(lambda value: value if value is None else convert(value))


Text = Annotated[Optional[str], _kind(_text)]  # noqa: UP045 - pydantic reads it on 3.10
FilePath = Annotated[Optional[Path], _kind(_path)]  # noqa: UP045
Count = Annotated[Optional[int], _kind(_int)]  # noqa: UP045
Seconds = Annotated[float, _kind(_float)]
Switch = Annotated[Optional[bool], _kind(_bool)]  # noqa: UP045
Interface = Annotated[Optional[str], _kind(_choice("authors", "lean"))]  # noqa: UP045
Prompts = Annotated[Optional[str], _kind(_choice("authors", "builtin"))]  # noqa: UP045


class ModelSettings(BaseModel):
    """Which model answers and how it runs; `source(name)` says where a value came from.

    Built by `resolve` from the places settings come from; `ModelSettings(...)` by
    hand is the given values over the defaults, nothing read (what tests want).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: Text = option(
        flag="--model", short="-m", env="VENUSCTL_MODEL", file="model.model", panel=PANEL,
        help="Local GGUF file or folder, or a hub repo owner/name[:QUANT] "
             "(env VENUSCTL_MODEL; default: the UI-Venus-2-9B repo).")
    mmproj: FilePath = option(
        flag="--mmproj", env="VENUSCTL_MMPROJ", file="model.mmproj", panel=PANEL,
        help="Projector GGUF (default: the mmproj file next to the model).")
    repo: Annotated[str, _kind(_text)] = option(
        DEFAULT_REPO, env="VENUSCTL_REPO", file="model.repo",
        help="The hub repo of the default model.")
    quant: Annotated[str, _kind(_text)] = option(
        DEFAULT_QUANT, env="VENUSCTL_QUANT", file="model.quant",
        help="The quantization of the default model.")
    n_ctx: Count = option(
        flag="--n-ctx", least=512, env="VENUSCTL_N_CTX", file="model.n_ctx", panel=PANEL,
        help="Context size in tokens (default: sized from text, image and answer).")
    threads: Count = option(
        flag="--threads", least=1, env="VENUSCTL_THREADS", file="model.threads", panel=PANEL,
        help="CPU threads.")
    gpu_layers: Count = option(
        flag="--gpu-layers", least=-1, env="VENUSCTL_GPU_LAYERS", file="model.gpu_layers",
        panel=PANEL,
        help="Layers to offload to the GPU (-1: all, the default where the build has a GPU "
             "backend; 0: CPU only).")
    image_min_tokens: Count = option(
        flag="--image-min-tokens", least=1, env="VENUSCTL_IMAGE_MIN_TOKENS",
        file="model.image_min_tokens", panel=PANEL,
        help="Fewest tokens per screenshot (small images are scaled up).")
    image_max_tokens: Count = option(
        flag="--image-max-tokens", least=1, env="VENUSCTL_IMAGE_MAX_TOKENS",
        file="model.image_max_tokens", panel=PANEL,
        help="Most tokens per screenshot (the main speed/accuracy dial).")
    grammar: Switch = option(
        flag="--no-grammar", switch_off=True, env="VENUSCTL_GRAMMAR", file="model.grammar",
        panel=PANEL,
        help="Local model: sample freely instead of constraining answers to valid actions.")
    interface: Interface = option(
        flag="--interface", env="VENUSCTL_INTERFACE", file="model.interface", panel=PANEL,
        help="authors: speak exactly the model authors' interface (unresized PNG "
             "screenshots, earlier screenshots resent); lean: the same prompts with "
             "screenshots capped at 1280 tokens and none resent. Default: authors on a GPU "
             "or a server, lean on a CPU-only local model (env VENUSCTL_INTERFACE).")
    prompts: Prompts = option(
        flag="--prompts", env="VENUSCTL_PROMPTS", file="model.prompts", panel=PANEL,
        help="authors: the model authors' own prompt texts (fetch them once with "
             "`venusctl prompts pull`); builtin: venusctl's. Default: authors when pulled, "
             "else builtin (env VENUSCTL_PROMPTS).")
    server: Text = option(
        flag="--server", env="VENUSCTL_SERVER", file="server.url", panel=PANEL,
        help="OpenAI-compatible server URL, e.g. http://127.0.0.1:8080/v1 (llama-server, "
             "vLLM, LM Studio, Ollama; env VENUSCTL_SERVER).")
    server_model: Text = option(
        flag="--server-model", env="VENUSCTL_SERVER_MODEL", file="server.model", panel=PANEL,
        help="The model name the server knows (default: the one it serves).")
    api_key_env: Text = option(
        flag="--api-key-env", env="VENUSCTL_API_KEY_ENV", file="server.api_key_env",
        panel=PANEL,
        help="Environment variable holding the server's API key (default: VENUSCTL_API_KEY, "
             "else the keyring entry 'venusctl' / server URL).")
    server_timeout: Seconds = option(
        120.0, env="VENUSCTL_SERVER_TIMEOUT", file="server.timeout",
        help="Seconds to wait for the server's answer.")
    server_retries: Annotated[int, _kind(_int)] = option(
        3, env="VENUSCTL_SERVER_RETRIES", file="server.retries",
        help="Retries of a refused or timed-out request.")
    server_grammar: Annotated[bool, _kind(_bool)] = option(
        False, env="VENUSCTL_SERVER_GRAMMAR", file="server.grammar",
        help="Send the surface's GBNF grammar to the server.")

    _sources: dict[str, str] = PrivateAttr(default_factory=dict)

    @property
    def sources(self) -> Mapping[str, str]:
        return dict(self._sources)

    def source(self, name: str) -> str:
        """'flag', 'env VENUSCTL_…', 'config file' or 'default'."""
        return self._sources.get(name, "default")

    def given(self) -> dict[str, tuple[Any, str]]:
        """The values not left at their default, with where each came from."""
        return {name: (getattr(self, name), origin) for name, origin in self._sources.items()}


ModelConfig = ModelSettings  # the resolved settings, under the name callers know


@functools.cache
def declarations(group: type[BaseModel] = ModelSettings) -> dict[str, Declared]:
    """Each setting's declaration, by name."""
    return {name: spec for name, _, spec in settings_of(group)}


def sections(group: type[BaseModel] = ModelSettings) -> tuple[str, ...]:
    """The config-file tables a group reads (`model`, `server`)."""
    return tuple(dict.fromkeys(s.section for s in declarations(group).values() if s.file))


class _Source(PydanticBaseSettingsSource):
    """A place settings come from (a pydantic-settings source); each value is checked
    with the words of its place, so a bad one is named where the person wrote it."""

    label = ""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self.values().get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return self.values()

    def values(self) -> dict[str, Any]:
        raise NotImplementedError

    def origin(self, name: str) -> str:
        return self.label


class FlagSource(_Source):
    """Options given on the command line (or by a program, as `ModelOptions`)."""

    label = "flag"

    def __init__(self, settings_cls: type[BaseModel], flags: Mapping[str, Any]) -> None:
        super().__init__(settings_cls)
        self.flags = {k: v for k, v in flags.items() if v is not None}

    def values(self) -> dict[str, Any]:
        return {name: check_value(self.settings_cls, name, value,
                                  declarations(self.settings_cls)[name].flag
                                  or "--" + name.replace("_", "-"))
                for name, value in self.flags.items()}


class EnvironmentSource(_Source):
    """`VENUSCTL_*` variables; an empty one counts as unset."""

    def __init__(self, settings_cls: type[BaseModel],
                 environ: Mapping[str, str] | None = None) -> None:
        super().__init__(settings_cls)
        self.environ = os.environ if environ is None else environ

    def values(self) -> dict[str, Any]:
        found = {}
        for name, spec in declarations(self.settings_cls).items():
            text = self.environ.get(spec.env or "")
            if text is not None and text.strip():
                found[name] = check_value(self.settings_cls, name, text,
                                          f"environment variable {spec.env}")
        return found

    def origin(self, name: str) -> str:
        return f"env {declarations(self.settings_cls)[name].env}"


class ConfigFileSource(_Source):
    """The `[model]` and `[server]` tables of the config file (`venusctl.core.config_file`)."""

    label = "config file"

    def __init__(self, settings_cls: type[BaseModel],
                 file_values: Mapping[str, Any] | None = None,
                 environ: Mapping[str, str] | None = None) -> None:
        super().__init__(settings_cls)
        self.file_values = file_values
        self.environ = environ

    def values(self) -> dict[str, Any]:
        if self.file_values is None:
            self.file_values = read_config_file(config_path(self.environ), self.settings_cls)
        return dict(self.file_values)


def read_config_file(path: Path, group: type[BaseModel] = ModelSettings) -> dict[str, Any]:
    """The file's `[model]`/`[server]` values by setting name; a missing file is empty."""
    document = read_document(path)
    values: dict[str, Any] = {}
    for section in sections(group):
        values.update(_read_table(path, section, table_of(path, document, section), group))
    return values


def _read_table(path: Path, section: str, table: dict[str, Any],
                group: type[BaseModel]) -> dict[str, Any]:
    known = {spec.key: name for name, spec in declarations(group).items()
             if spec.file and spec.section == section}
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key.lower() in _SECRET_KEYS:
            raise UsageError(
                f"config file {path}: [{section}] {key}: keep secrets out of the config file; "
                f"put the API key in the keyring or in an environment variable"
            )
        name = known.get(key)
        if name is None:
            raise UsageError(
                f"config file {path}: [{section}] has no setting '{key}' "
                f"(known: {', '.join(sorted(known))})"
            )
        values[name] = check_value(group, name, value,
                                   f"config file {path}: [{section}] {key}")
    return values


def resolve(
    flags: Mapping[str, Any],
    environ: Mapping[str, str] | None = None,
    file_values: Mapping[str, Any] | None = None,
    group: type[ModelSettings] = ModelSettings,
) -> ModelSettings:
    """Merge the four places; `flags` holds only options given on the command line.

    `environ` defaults to the process environment and `file_values` to the config
    file, so callers normally pass only the flags. The first place that has a value
    sets it, and the settings remember which one.
    """
    places: tuple[_Source, ...] = (
        FlagSource(group, flags),
        EnvironmentSource(group, environ),
        ConfigFileSource(group, file_values, environ),
    )
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for place in places:
        for name, value in place.values().items():
            if name not in values:
                values[name], origins[name] = value, place.origin(name)
    settings = group.model_construct(**values)  # every value checked by its place
    settings._sources = origins
    return settings


def described(settings: ModelSettings) -> str:
    """The settings not left at their default and where each came from, on one line
    (`venusctl doctor`, and the debug log of `-v`)."""
    return ", ".join(f"{name} {value} ({where(settings, name)})"
                     for name, (value, _) in settings.given().items())


def where(settings: ModelSettings, name: str) -> str:
    """The place a setting came from, as the person would write it."""
    source = settings.source(name)
    spec = declarations(type(settings))[name]
    if source == "flag":
        return spec.flag or "--" + name.replace("_", "-")
    if source == "config file":
        return f"the config file's [{spec.section}] {spec.key}"
    return source.removeprefix("env ")
