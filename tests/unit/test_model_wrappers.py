"""Model wrappers pass on exactly the members of the `Model` protocol."""

from __future__ import annotations

from typing import Any

import pytest

from venusctl.api.agent import _KeptModel
from venusctl.cache.hooks import CachedModel
from venusctl.core.actions import Surface
from venusctl.model.base import Completion, Message, Model, OnText, SamplingOptions, TextPart
from venusctl.model.wrappers import ModelWrapper

pytestmark = pytest.mark.unit

PROTOCOL = {"name", "supports_grammar", "surface", "complete", "close"}


class Inner:
    """A model with one extra attribute that no wrapper may pass on."""

    def __init__(self) -> None:
        self.name = "inner-model"
        self.supports_grammar = True
        self.surface: Surface | None = Surface.BROWSER
        self.settings = "not part of the seam"
        self.asked: list[tuple[list[Message], SamplingOptions, OnText | None]] = []
        self.closed = 0

    def complete(self, messages: list[Message], options: SamplingOptions,
                 on_text: OnText | None = None) -> Completion:
        self.asked.append((messages, options, on_text))
        return Completion(text="asked inner")

    def close(self) -> None:
        self.closed += 1


class NoRecording:
    """The cache run of a task never recorded: every question goes to the model."""

    step = 1

    def recorded_answer(self, step: int, messages: list[Message]) -> str | None:
        return None


def wrappers(inner: Inner) -> dict[str, Model]:
    return {"base": ModelWrapper(inner), "cached": CachedModel(inner, NoRecording()),  # type: ignore[arg-type]
            "kept": _KeptModel(inner)}


def test_the_protocol_is_what_wrappers_declare() -> None:
    declared = {name for name in Model.__dict__ if not name.startswith("_")}
    declared |= set(Model.__annotations__)
    assert declared == PROTOCOL


@pytest.mark.parametrize("kind", ["base", "cached", "kept"])
def test_each_member_reaches_the_inner_model(kind: str) -> None:
    inner = Inner()
    model = wrappers(inner)[kind]
    assert isinstance(model, Model)
    assert model.name == "inner-model"
    assert model.supports_grammar is True
    assert model.surface is Surface.BROWSER
    model.surface = Surface.MOBILE
    assert inner.surface is Surface.MOBILE
    inner.name = "loaded-model"  # a model opened on first use renames itself
    assert model.name == "loaded-model"
    seen: list[str] = []
    messages = [Message("user", (TextPart("hi"),))]
    options = SamplingOptions(max_tokens=7)
    completion = model.complete(messages, options, seen.append)
    assert completion.text == "asked inner"
    assert inner.asked == [(messages, options, seen.append)]


@pytest.mark.parametrize("kind", ["base", "cached", "kept"])
def test_nothing_undeclared_is_reachable(kind: str) -> None:
    model: Any = wrappers(Inner())[kind]
    assert not hasattr(type(model), "__getattr__")
    with pytest.raises(AttributeError):
        _ = model.settings


def test_close_passes_on_except_for_a_lent_model() -> None:
    inner = Inner()
    ModelWrapper(inner).close()
    CachedModel(inner, NoRecording()).close()  # type: ignore[arg-type]
    assert inner.closed == 2
    _KeptModel(inner).close()
    assert inner.closed == 2


def test_a_recorded_answer_is_replayed_without_asking() -> None:
    class Recorded(NoRecording):
        def recorded_answer(self, step: int, messages: list[Message]) -> str | None:
            return "click(1, 2)"

    inner = Inner()
    seen: list[str] = []
    completion = CachedModel(inner, Recorded()).complete([], SamplingOptions(), seen.append)  # type: ignore[arg-type]
    assert (completion.text, completion.source, seen, inner.asked) == (
        "click(1, 2)", "replayed", ["click(1, 2)"], [])
