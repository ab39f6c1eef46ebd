"""From flags, environment and config file to one open `Model`.

Which backend: a server (`--server`, `VENUSCTL_SERVER`, `[server] url`) or a local
GGUF (`--model`, `VENUSCTL_MODEL`, `[model] model`, else the default repo). When both
are set, the one from the stronger source wins (flag > environment > config file);
both at the same level is a usage error rather than a guess.

A local model is a path (a GGUF file, or a folder holding one) or a hub reference
`owner/name[:QUANT]` looked up in the hub cache. The default model is downloaded on
first use only after the person agrees at the terminal, or with `--yes`.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from venusctl.core.actions import Surface
from venusctl.core.errors import ModelError, UsageError
from venusctl.interface.profile import InterfaceProfile, choose_mode, profile_for
from venusctl.model.base import Model
from venusctl.model.files.hub import (
    HubUnreachable,
    LocalModel,
    Selection,
    download,
    find_cached,
    hub_cache_dir,
    human_size,
    is_projector,
    parse_reference,
    quant_of,
    remote_selection,
)
from venusctl.model.settings import (
    API_KEY_ENV,
    KEYRING_SERVICE,
    ModelConfig,
    described,
    resolve,
    where,
)

log = logging.getLogger(__name__)

Consent = Callable[[Selection], bool]
Say = Callable[[str], None]
_RANK = {"flag": 0, "env": 1, "config file": 2}


def open_model(
    flags: Mapping[str, Any],
    surface: Surface,
    assume_yes: bool = False,
    consent: Consent | None = None,
    profile: InterfaceProfile | None = None,
) -> Model:
    """The model the settings name, opened and ready to answer.

    `profile` supplies the image budget the flags leave open (default: the surface's
    profile in the interface mode `interface_choice` picks for these settings).
    """
    config = resolve(flags)
    log.debug("model settings: %s", described(config) or "all defaults")
    profile = profile or profile_for(surface.value, interface_choice(flags)[0])
    if backend(config) == "server":
        return open_server(config, surface, profile)
    local = local_model(config, assume_yes, consent or terminal_consent, _say)
    return open_llama(local, config, surface, profile)


def interface_choice(flags: Mapping[str, Any]) -> tuple[str, str]:
    """The interface mode (authors or lean) these settings get, and why.

    `authors` for a server or a local model on a GPU, `lean` on a CPU-only local model;
    `--interface` (or VENUSCTL_INTERFACE, `[model] interface`) decides when given.
    """
    config = resolve(flags)
    kind = backend(config)
    on_gpu = kind == "local" and config.interface is None and local_on_gpu(config.gpu_layers)
    return choose_mode(config.interface, kind, on_gpu)


def local_on_gpu(gpu_layers: int | None) -> bool:
    """Whether a local model would run on a GPU: the build can offload, it sees a GPU
    device, and layers are offloaded (all of them by default, as the backend decides)."""
    try:
        from venusctl.model.llama.backend import backend_info, resolve_gpu_layers

        info = backend_info()
    except (ImportError, OSError):
        return False
    return resolve_gpu_layers(gpu_layers, info) != 0 and info.gpu_offload and bool(info.gpus)


def backend(config: ModelConfig) -> str:
    """'server' or 'local', by the strength of the source that names each."""
    if config.server is None:
        return "local"
    if config.model is None:
        return "server"
    model_rank = _rank(config.source("model"))
    server_rank = _rank(config.source("server"))
    if model_rank == server_rank:
        raise UsageError(
            f"both a local model ({where(config, 'model')}) and a server "
            f"({where(config, 'server')}) are set; choose one"
        )
    return "server" if server_rank < model_rank else "local"


def _rank(source: str) -> int:
    return _RANK.get(source.split(" ")[0] if source.startswith("env") else source, 3)


# ---------------------------------------------------------------- local files


def local_model(
    config: ModelConfig, assume_yes: bool, consent: Consent, say: Say
) -> LocalModel:
    """The text model and projector to load, downloading the default only with consent."""
    if config.model is None:
        found = _from_hub(config.repo, config.quant, assume_yes, consent, say)
    else:
        found = _from_reference(config, assume_yes, consent, say)
    mmproj = config.mmproj or found.mmproj_path
    if mmproj is None:
        raise UsageError(f"no projector (mmproj GGUF) found for {found.model_path}; "
                         f"pass --mmproj PATH")
    if not mmproj.is_file():
        raise UsageError(f"projector not found: {mmproj} (from {where(config, 'mmproj')})")
    return LocalModel(found.model_path, mmproj, found.repo, found.quant, found.revision,
                      found.size_bytes)


def _from_reference(
    config: ModelConfig, assume_yes: bool, consent: Consent, say: Say
) -> LocalModel:
    text = config.model or ""
    path = Path(os.path.expandvars(text)).expanduser()
    if path.is_file():
        return LocalModel(path, sibling_projector(path), quant=quant_of(path.name))
    if path.is_dir():
        return _from_folder(path)
    reference = parse_reference(text)
    if reference is None:
        if text.lower().endswith(".gguf") or os.sep in text:
            raise UsageError(f"no such model file: {path} (from {where(config, 'model')})")
        raise UsageError(f"model '{text}' (from {where(config, 'model')}) is neither a file "
                         f"nor a hub repo (owner/name[:QUANT])")
    repo, quant = reference
    return _from_hub(repo, quant or config.quant, assume_yes, consent, say)


def _from_folder(folder: Path) -> LocalModel:
    models = [p for p in sorted(folder.glob("*.gguf"))
              if not is_projector(p.name) and not _later_part(p.name)]
    if len(models) != 1:
        names = ", ".join(p.name for p in models) or "none"
        raise UsageError(f"{folder} should hold one text model GGUF (found: {names}); "
                         f"pass --model FILE")
    return LocalModel(models[0], sibling_projector(models[0]), quant=quant_of(models[0].name))


def _later_part(name: str) -> bool:
    """True for parts 2..n of a split GGUF (llama.cpp opens part 1 and finds the rest)."""
    match = re.search(r"-(\d{5})-of-\d{5}\.gguf$", name)
    return bool(match) and match.group(1) != "00001"


def sibling_projector(model: Path) -> Path | None:
    """The projector next to a text model: the only `*mmproj*.gguf` there, or the f16 one."""
    found = sorted(p for p in model.parent.glob("*.gguf") if is_projector(p.name))
    if len(found) > 1:
        preferred = [p for p in found if quant_of(p.name) == "F16"]
        found = preferred or found
    return found[0] if found else None


def _from_hub(
    repo: str, quant: str, assume_yes: bool, consent: Consent, say: Say
) -> LocalModel:
    cache = hub_cache_dir()
    cached = find_cached(repo, quant, cache)
    if cached is not None:
        return cached
    pull_hint = f"run `venusctl model pull {repo} --quant {quant}`"
    try:
        selection = remote_selection(repo, quant, say)
    except HubUnreachable as exc:
        raise ModelError(f"no local model {repo}:{quant} and {exc}; {pull_hint} when online, "
                         f"or pass --model PATH or --server URL") from None
    if not assume_yes and not consent(selection):
        raise ModelError(f"no local model {repo}:{quant} "
                         f"({human_size(selection.total_bytes)} to download); {pull_hint}, "
                         f"pass --yes to download it now, or pass --model PATH or --server URL")
    return download(selection, cache, say)


def terminal_consent(selection: Selection) -> bool:
    """Ask at the terminal before a multi-gigabyte download; without one, say no."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    names = ", ".join(f.path for f in selection.files)
    sys.stderr.write(
        f"venusctl needs a model: download {selection.repo} ({names}, "
        f"{human_size(selection.total_bytes)}) into {hub_cache_dir()}? [y/N] "
    )
    sys.stderr.flush()
    try:
        answer = input()
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _say(text: str) -> None:
    sys.stderr.write(f"venusctl: {text}\n")
    sys.stderr.flush()


# ---------------------------------------------------------------- backends


def open_llama(local: LocalModel, config: ModelConfig, surface: Surface,
               profile: InterfaceProfile | None = None) -> Model:
    """The in-process llama.cpp backend; the image budget comes from the flags, else from
    the interface profile; other unset options keep the backend's own defaults."""
    from venusctl.model.llama.backend import LlamaModel, LlamaSettings

    options = {
        name: getattr(config, name)
        for name in ("n_ctx", "threads", "gpu_layers", "image_min_tokens",
                     "image_max_tokens", "grammar")
        if getattr(config, name) is not None
    }
    if profile is not None and config.image_max_tokens is None:
        options["image_max_tokens"] = profile.image_max_tokens
    settings = LlamaSettings(model_path=local.model_path, mmproj_path=local.mmproj_path,
                             **options)
    return LlamaModel(settings, surface)


def open_server(config: ModelConfig, surface: Surface | None = None,
                profile: InterfaceProfile | None = None) -> Model:
    """An OpenAI-compatible server; `--image-max-tokens` (else the profile's budget)
    shrinks screenshots before they are sent, the server's processor does the rest."""
    from venusctl.model.server import ServerModel, ServerSettings

    url = config.server or ""
    budget = config.image_max_tokens
    if budget is None and profile is not None:
        budget = profile.image_max_tokens
    return ServerModel(surface=surface, settings=ServerSettings(
        url=url,
        model=config.server_model,
        api_key=api_key(url, config.api_key_env),
        timeout_s=config.server_timeout,
        retries=config.server_retries,
        grammar=config.server_grammar,
        image_max_tokens=budget,
    ))


def api_key(url: str, env_name: str | None) -> str | None:
    """The server's key: the variable `--api-key-env` names, else VENUSCTL_API_KEY, else
    the keyring entry (service 'venusctl', user = the server URL as given)."""
    if env_name:
        value = os.environ.get(env_name)
        if not value:
            raise UsageError(f"--api-key-env {env_name}: that environment variable is not set")
        return value.strip()
    if os.environ.get(API_KEY_ENV):
        return os.environ[API_KEY_ENV].strip()
    return _keyring_key(url)


def _keyring_key(url: str) -> str | None:
    from venusctl.model.server import base_url

    try:
        import keyring
        from keyring.errors import KeyringError
    except ImportError:
        return None
    for user in dict.fromkeys((url.strip(), base_url(url))):
        try:
            value = keyring.get_password(KEYRING_SERVICE, user)
        except (KeyringError, RuntimeError, OSError) as exc:
            log.debug("keyring unavailable: %s", type(exc).__name__)
            return None
        if value:
            return value
    return None
