"""Choosing each next token: penalties, temperature, and a grammar checked lazily.

llama.cpp checks a grammar by matching every vocabulary entry against it, ~40 ms a
token at 150-250k entries. Most tokens a trained model picks are allowed anyway, so
we sample from the unconstrained distribution first and ask the grammar about that
single token; only when it is rejected do we pay for the full check and resample
from the allowed tokens (llama.cpp's own `common_sampler` does the same). The
result is always a token the grammar accepts.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from venusctl.errors import ModelError
from venusctl.model import llama_logs
from venusctl.model.base import SamplingOptions
from venusctl.model.native import TextModel, _llama

TOKEN_DATA = np.dtype([("id", "<i4"), ("logit", "<f4"), ("p", "<f4")])
PENALTY_WINDOW = 64
TOP_K = 40


@dataclass
class GrammarStats:
    """How often the grammar had to look at the whole vocabulary."""

    checked: int = 0
    rejected: int = 0


class Sampler:
    """Picks tokens for one answer; `accept` must follow every token that is kept."""

    def __init__(self, model: TextModel, options: SamplingOptions, grammar: str | None,
                 seed: int) -> None:
        self.llama = _llama()
        self.model = model
        self.chain = self._chain(options, seed)
        self.grammar = self._grammar(grammar) if grammar else None
        self.whole = model.whole_characters() if grammar else None
        self.stats = GrammarStats()
        self.ids = np.arange(model.n_vocab, dtype=np.int32)
        self.candidates = np.empty(model.n_vocab, dtype=TOKEN_DATA)
        self.single = np.zeros(1, dtype=TOKEN_DATA)

    def _chain(self, options: SamplingOptions, seed: int) -> object:
        llama = self.llama
        chain = llama.llama_sampler_chain_init(llama.llama_sampler_chain_default_params())
        if options.repeat_penalty != 1.0 or options.frequency_penalty:
            # The 0.3.36 binding declares an extra leading int that the C function
            # (penalty_last_n, repeat, freq, present) does not have; passing the
            # window in both slots is right either way.
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_penalties(
                PENALTY_WINDOW, PENALTY_WINDOW, options.repeat_penalty,
                options.frequency_penalty, 0.0))
        if options.temperature <= 0:
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_greedy())
        else:
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_top_k(TOP_K))
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_top_p(options.top_p, 1))
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_temp(options.temperature))
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_dist(seed))
        return chain

    def _grammar(self, grammar: str) -> object:
        bookmark = llama_logs.mark()
        sampler = self.llama.llama_sampler_init_grammar(self.model.vocab, grammar.encode(), b"root")
        if not sampler:
            reason = llama_logs.last_problem(bookmark, "the grammar could not be parsed")
            raise ModelError(f"invalid grammar: {reason}")
        return sampler

    def _array(self, data: np.ndarray) -> object:
        llama = self.llama
        return llama.llama_token_data_array(
            data=data.ctypes.data_as(ctypes.POINTER(llama.llama_token_data)),
            size=len(data), selected=-1, sorted=False)

    def _pick(self, logits: np.ndarray, constrained: bool) -> int:
        llama = self.llama
        candidates = self.candidates
        candidates["id"] = self.ids  # samplers sort in place
        candidates["logit"] = logits
        candidates["p"] = 0.0
        array = self._array(candidates)
        if constrained:
            llama.llama_sampler_apply(self.grammar, ctypes.byref(array))
        llama.llama_sampler_apply(self.chain, ctypes.byref(array))
        if array.selected < 0:
            raise ModelError("sampling chose no token")
        return int(array.data[array.selected].id)

    def allows(self, token: int) -> bool:
        """Whether the grammar accepts `token` next (cheap: one candidate)."""
        if self.grammar is None:
            return True
        if self.whole is not None and not self.whole.allows(token):
            return False
        self.single[0] = (token, 0.0, 0.0)
        array = self._array(self.single)
        self.llama.llama_sampler_apply(self.grammar, ctypes.byref(array))
        return bool(np.isfinite(self.single[0]["logit"]))

    def sample(self, logits: np.ndarray) -> int:
        token = self._pick(logits, constrained=False)
        if self.grammar is None:
            return token
        self.stats.checked += 1
        if self.allows(token):
            return token
        self.stats.rejected += 1
        if self.whole is not None:
            logits = np.where(self.whole.mask, logits, -np.inf).astype(np.float32)
        token = self._pick(logits, constrained=True)
        if not self.allows(token):
            raise ModelError("the grammar left no token to choose (the answer cannot continue)")
        return token

    def accept(self, token: int) -> None:
        self.llama.llama_sampler_accept(self.chain, token)
        if self.grammar is not None:
            self.llama.llama_sampler_accept(self.grammar, token)

    def close(self) -> None:
        self.llama.llama_sampler_free(self.chain)
        if self.grammar is not None:
            self.llama.llama_sampler_free(self.grammar)
            self.grammar = None
