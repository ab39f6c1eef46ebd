"""A model opened on its first request.

Loading a local GGUF takes seconds to minutes and gigabytes of memory; a run whose
every step is answered from the trajectory cache never needs it. The files are
found (and a download agreed to) before the run starts, as usual; only the load
waits until the first question the cache cannot answer.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Mapping
from typing import Any

from venusctl.core.actions import Surface
from venusctl.interface.profile import InterfaceProfile, profile_for
from venusctl.model.base import Completion, Message, Model, OnText, SamplingOptions


class DeferredModel:
    """Stands in for a model until it is first asked; then it is that model."""

    def __init__(self, opener: Callable[[], Model], name: str,
                 supports_grammar: bool = False) -> None:
        self._opener = opener
        self._inner: Model | None = None
        self._lock = threading.Lock()
        self._surface: Any = None
        self.name = name
        self.supports_grammar = supports_grammar

    @property
    def loaded(self) -> bool:
        return self._inner is not None

    @property
    def surface(self) -> Any:
        return self._surface

    @surface.setter
    def surface(self, value: Any) -> None:
        """A shared model's grammar follows the task asking (see `model_pool`)."""
        self._surface = value
        if self._inner is not None:
            self._inner.surface = value

    def model(self) -> Model:
        with self._lock:
            if self._inner is None:
                self._inner = self._opener()
                if self._surface is not None:
                    self._inner.surface = self._surface
                self.name = self._inner.name
            return self._inner

    def complete(self, messages: list[Message], options: SamplingOptions,
                 on_text: OnText | None = None) -> Completion:
        return self.model().complete(messages, options, on_text)

    def close(self) -> None:
        with self._lock:
            inner, self._inner = self._inner, None
        if inner is not None:
            inner.close()


def open_deferred(flags: Mapping[str, Any], surface: Surface, assume_yes: bool = False,
                  profile: InterfaceProfile | None = None) -> Model:
    """Like `select.open_model`, but a local model is only found now and loaded later.

    A server is opened at once: that costs one small request, and a wrong URL or key
    is better told before the run than at its first uncached step.
    """
    from venusctl.model import select

    config = select.resolve(flags)
    logging.getLogger(select.__name__).debug("model settings: %s",
                                             select.described(config) or "all defaults")
    profile = profile or profile_for(surface.value, select.interface_choice(flags)[0])
    if select.backend(config) == "server":
        return select.open_server(config, surface, profile)
    local = select.local_model(config, assume_yes, select.terminal_consent, _say)
    from venusctl.model.llama.backend import backend_label, resolve_gpu_layers

    where = backend_label(resolve_gpu_layers(config.gpu_layers))
    return DeferredModel(lambda: select.open_llama(local, config, surface, profile),
                         name=f"llama.cpp/{where}:{local.model_path.name}",
                         supports_grammar=True)


def _say(text: str) -> None:
    sys.stderr.write(f"venusctl: {text}\n")
    sys.stderr.flush()
