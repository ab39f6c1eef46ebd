"""Each grammar text is parsed once per vocabulary; every sampler is a copy in the
start state, independent of the others (venusctl.model.llama.grammars)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from tests.support.tiny_model import TINY, ensure_model
from venusctl.core.errors import ModelError
from venusctl.model.base import SamplingOptions
from venusctl.model.llama.grammars import KEPT, ParsedGrammars
from venusctl.model.llama.native import TextModel, _llama
from venusctl.model.llama.sampler import Sampler

XY = 'root ::= "x" "y"'


class _Counting:
    """The llama.cpp bindings, counting the calls made through them."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        self.calls[name] += 1
        return getattr(_llama(), name)


def _token(vocab: TextModel, text: str) -> int:
    (token,) = vocab.tokenize(text, special=False)
    return token


def test_samplers_from_one_text_start_fresh_and_move_on_their_own(vocab):
    x, y = _token(vocab, "x"), _token(vocab, "y")
    first = Sampler(vocab, SamplingOptions(), XY, seed=1)
    first.accept(x)
    second = Sampler(vocab, SamplingOptions(), XY, seed=1)
    try:
        assert first.allows(y) and not first.allows(x)
        assert second.allows(x) and not second.allows(y)
        second.accept(x)
        second.accept(y)
        assert first.allows(y)  # the copy's progress is its own
    finally:
        first.close()
        second.close()


def test_a_text_is_parsed_once_and_copied_after(vocab):
    bindings = _Counting()
    grammars = ParsedGrammars(bindings, vocab.vocab)
    try:
        samplers = [grammars.sampler(XY) for _ in range(5)]
        assert bindings.calls["llama_sampler_init_grammar"] == 1
        assert bindings.calls["llama_sampler_clone"] == 5
        for sampler in samplers:
            _llama().llama_sampler_free(sampler)
    finally:
        grammars.close()
    assert len(grammars) == 0


def test_the_least_recently_used_text_is_dropped_and_parsed_again_when_asked(vocab):
    bindings = _Counting()
    grammars = ParsedGrammars(bindings, vocab.vocab)
    texts = [f'root ::= "{letter}"' for letter in "abcdefgh"[:KEPT + 1]]
    try:
        for text in [texts[0], *texts[1:KEPT], texts[0], texts[KEPT]]:
            _llama().llama_sampler_free(grammars.sampler(text))
        assert len(grammars) == KEPT
        assert bindings.calls["llama_sampler_free"] == 1  # texts[1], used least lately
        parsed = bindings.calls["llama_sampler_init_grammar"]
        _llama().llama_sampler_free(grammars.sampler(texts[0]))
        assert bindings.calls["llama_sampler_init_grammar"] == parsed
        _llama().llama_sampler_free(grammars.sampler(texts[1]))
        assert bindings.calls["llama_sampler_init_grammar"] == parsed + 1
    finally:
        grammars.close()


def test_a_grammar_llama_cpp_refuses_is_an_error_every_time_and_never_kept(vocab):
    before = len(vocab.grammars)
    for _ in range(2):
        with pytest.raises(ModelError, match="invalid grammar"):
            Sampler(vocab, SamplingOptions(), 'root ::= "x" undefined-rule', seed=1)
    assert len(vocab.grammars) == before


def test_closing_the_model_frees_its_templates():
    model = TextModel(ensure_model(TINY).model, vocab_only=True)
    Sampler(model, SamplingOptions(), XY, seed=1).close()
    assert len(model.grammars) == 1
    model.close()
    assert len(model.grammars) == 0
