"""Models that wrap a model, changing one aspect and passing the rest on.

Answering from the trajectory cache, lending the API agent's model to one run: each
is a wrapper, not a branch inside a backend. A wrapper passes on exactly the members
of the `Model` protocol, so a reader of a wrapped model finds what the seam declares
and nothing found by probing the model inside.
"""

from __future__ import annotations

from venusctl.core.actions import Surface
from venusctl.model.base import Completion, Message, Model, OnText, SamplingOptions


class ModelWrapper:
    """Base for wrappers: every member of `Model` goes to the inner model unless overridden."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        """Read each time: a model opened on first use takes its loaded name then."""
        return self.inner.name

    @property
    def supports_grammar(self) -> bool:
        return self.inner.supports_grammar

    @property
    def surface(self) -> Surface | None:
        return self.inner.surface

    @surface.setter
    def surface(self, value: Surface | None) -> None:
        """A shared model's action grammar follows the task asking."""
        self.inner.surface = value

    def complete(self, messages: list[Message], options: SamplingOptions,
                 on_text: OnText | None = None) -> Completion:
        return self.inner.complete(messages, options, on_text)

    def close(self) -> None:
        self.inner.close()
