"""Which interface a run speaks: mode (authors or lean), profile, prompt texts, and why.

Settled once per run, before the model opens (the image budget is part of it), from
`--interface` / `--prompts` (or VENUSCTL_INTERFACE, VENUSCTL_PROMPTS, `[model]
interface`, `[model] prompts`) and, when the mode is not chosen, from where the model
runs: the authors' profile on a server or a GPU, `lean` on a CPU-only local model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from venusctl.interface.profile import InterfaceProfile, choose_mode, profile_for
from venusctl.model.base import Model
from venusctl.model.settings import ModelConfig, resolve


@dataclass(frozen=True)
class RunInterface:
    """The resolved interface of one run, and the words that explain it."""

    profile: InterfaceProfile
    reason: str
    prompts: str

    def record(self) -> dict[str, str]:
        """What run.json keeps (and the first progress line shows)."""
        return {"interface": self.profile.mode, "interface_reason": self.reason,
                "prompts": self.prompts}


def resolve_interface(flags: Mapping[str, Any], surface: str, model: Model | None = None,
                      scripted: bool = False) -> RunInterface:
    """The interface for a run on `surface`; `model` when one is already open."""
    config = resolve(flags)
    if model is not None:
        kind, on_gpu = _kind_of(model, config)
        mode, reason = choose_mode(config.interface, kind, on_gpu)
    elif scripted:
        mode, reason = choose_mode(config.interface, "scripted", False)
    else:
        from venusctl.model.select import interface_choice

        mode, reason = interface_choice(flags)
    return RunInterface(profile_for(surface, mode), reason, prompt_source(config.prompts))


def prompt_source(chosen: str | None) -> str:
    """`authors` when chosen or when the authors' texts are pulled, else `builtin`."""
    if chosen is not None:
        return chosen
    from venusctl.interface.authors_prompts import pulled

    return "authors" if pulled() else "builtin"


def _kind_of(model: Model, config: ModelConfig) -> tuple[str, bool]:
    """(backend kind, on a GPU) of an open model: the kind from its declared name, the
    GPU from the layers the settings that opened it offload."""
    if model.name.startswith("server:"):
        return "server", False
    if model.name.startswith("llama.cpp"):
        from venusctl.model.select import local_on_gpu

        return "local", local_on_gpu(config.gpu_layers)
    return "scripted", False
