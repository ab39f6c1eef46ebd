"""What `venusctl model pull | list | info` do, without the command line around it."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venusctl.core.errors import UsageError
from venusctl.model.files.gguf_header import read_info, summary
from venusctl.model.files.hub import (
    LocalModel,
    cached_models,
    download,
    find_cached,
    hub_cache_dir,
    parse_reference,
    remote_selection,
)
from venusctl.model.select import backend, sibling_projector
from venusctl.model.settings import ModelConfig, resolve

Say = Callable[[str], None]


def pull(reference: str | None, quant: str | None, say: Say) -> LocalModel:
    """Download a model and its projector (default: the configured repo and quant)."""
    config = resolve({})
    repo, quant = _repo_and_quant(reference, quant, config)
    selection = remote_selection(repo, quant, say)
    say(f"{repo}@{selection.revision[:10]}: {', '.join(f.path for f in selection.files)}")
    return download(selection, hub_cache_dir(), say)


def _repo_and_quant(reference: str | None, quant: str | None, config: ModelConfig) -> tuple[
    str, str
]:
    if reference is None:
        return config.repo, (quant or config.quant).upper()
    parsed = parse_reference(reference)
    if parsed is None:
        raise UsageError(f"'{reference}' is not a hub repo; write it as owner/name[:QUANT]")
    repo, named = parsed
    if named and quant and named != quant.upper():
        raise UsageError(f"{reference} names {named} but --quant says {quant.upper()}")
    return repo, (named or quant or config.quant).upper()


@dataclass(frozen=True)
class Listing:
    """The models on this machine and what `venusctl do` would use."""

    models: list[LocalModel]
    cache_dir: Path
    config: ModelConfig


def listing() -> Listing:
    config = resolve({})
    cache = hub_cache_dir()
    models = cached_models(cache)
    if config.model:
        path = Path(os.path.expandvars(config.model)).expanduser()
        if path.is_file() and all(m.model_path != path for m in models):
            models.append(LocalModel(path, config.mmproj or sibling_projector(path),
                                     size_bytes=path.stat().st_size))
    return Listing(models, cache, config)


def default_model(config: ModelConfig) -> tuple[str, str]:
    """What `venusctl do` would run without model flags, and which setting says so."""
    try:
        chosen = backend(config)
    except UsageError as exc:
        return str(exc), "conflict"
    if chosen == "server":
        return f"server {config.server}", config.source("server")
    if config.model:
        return config.model, config.source("model")
    return f"{config.repo}:{config.quant}", config.source("repo")


def info(target: str) -> list[dict[str, Any]]:
    """Facts about a GGUF file, or about a cached hub model's model and projector."""
    path = Path(os.path.expandvars(target)).expanduser()
    if path.exists():
        files = [path]
        projector = sibling_projector(path) if path.is_file() else None
        if projector is not None and projector != path and "mmproj" not in path.name.lower():
            files.append(projector)
        return [summary(read_info(f)) for f in files]
    parsed = parse_reference(target)
    if parsed is None:
        raise UsageError(f"no such file: {target}")
    repo, quant = parsed
    config = resolve({})
    found = find_cached(repo, quant or config.quant, hub_cache_dir())
    if found is None:
        raise UsageError(f"{repo}:{quant or config.quant} is not downloaded; run "
                         f"`venusctl model pull {repo} --quant {quant or config.quant}`")
    files = [found.model_path] + ([found.mmproj_path] if found.mmproj_path else [])
    return [summary(read_info(f)) for f in files]
