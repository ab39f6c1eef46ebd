"""Choosing each next token: penalties, temperature, and a grammar checked lazily.

Sampling runs in llama.cpp: `llama_sampler_sample` reads the context's own logits
and runs the sampler chain over them in C, so no per-token copy of the vocabulary
(248,320 entries for Qwen3.5) ever reaches Python.

llama.cpp checks a grammar by matching every vocabulary entry against it, ~40 ms a
token at 150-250k entries. Most tokens a trained model picks are allowed anyway, so
we sample from the unconstrained distribution first and ask the grammar about that
single token; only when it is refused do we pay for the full check and resample
from the allowed tokens (llama.cpp's own `common_sampler` does the same). The
result is always a token the grammar accepts.

`llama_sampler_sample` also tells the chain the token was kept (the repetition
penalty's memory). A refused token was not kept, so a shadow copy of the penalty
sampler, told only about kept tokens, is copied back over the chain's on refusal.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from venusctl.errors import ModelError
from venusctl.model import llama_logs
from venusctl.model.base import SamplingOptions
from venusctl.model.native import Context, TextModel, _llama

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
        self.penalized = options.repeat_penalty != 1.0
        self.chain = self._chain(options, seed)
        self.shadow = self._penalties(options) if self.penalized else None
        self.grammar = self._grammar(grammar) if grammar else None
        self.whole = model.whole_characters() if grammar else None
        self.stats = GrammarStats()
        self.single = self.llama.llama_token_data()
        self.single_array = self.llama.llama_token_data_array(
            data=ctypes.pointer(self.single), size=1, selected=-1, sorted=False)
        self._chain_knows: int | None = None  # the token `llama_sampler_sample` accepted

    def _penalties(self, options: SamplingOptions) -> Any:
        # The 0.3.36 binding declares an extra leading int that the C function
        # (penalty_last_n, repeat, freq, present) does not have; passing the
        # window in both slots is right either way.
        return self.llama.llama_sampler_init_penalties(
            PENALTY_WINDOW, PENALTY_WINDOW, options.repeat_penalty, 0.0, 0.0)

    def _chain(self, options: SamplingOptions, seed: int) -> Any:
        llama = self.llama
        chain = llama.llama_sampler_chain_init(llama.llama_sampler_chain_default_params())
        if self.penalized:
            llama.llama_sampler_chain_add(chain, self._penalties(options))  # first: index 0
        if options.temperature <= 0:
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_greedy())
        else:
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_top_k(TOP_K))
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_top_p(options.top_p, 1))
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_temp(options.temperature))
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_dist(seed))
        return chain

    def _grammar(self, grammar: str) -> Any:
        bookmark = llama_logs.mark()
        sampler = self.llama.llama_sampler_init_grammar(self.model.vocab, grammar.encode(), b"root")
        if not sampler:
            reason = llama_logs.last_problem(bookmark, "the grammar could not be parsed")
            raise ModelError(f"invalid grammar: {reason}")
        return sampler

    # ----------------------------------------------------------------- choosing
    def sample(self, source: Context | np.ndarray) -> int:
        """The next token, one the grammar allows: from the context's last logits (in
        llama.cpp), or from logits given as an array (tests, tools)."""
        if isinstance(source, np.ndarray):
            token = self._apply(source, grammar=False)
        else:
            token = int(self.llama.llama_sampler_sample(self.chain, source.handle, -1))
            self._chain_knows = token
        if self.grammar is None:
            return token
        self.stats.checked += 1
        if self.allows(token):
            return token
        self.stats.rejected += 1
        self._forget(token)
        logits = source if isinstance(source, np.ndarray) else source.logits()
        token = self._constrained(logits)
        if not self.allows(token):
            raise ModelError("the grammar left no token to choose (the answer cannot continue)")
        return token

    def _forget(self, _token: int) -> None:
        """Undo the chain's acceptance of a refused token (only penalties remember)."""
        self._chain_knows = None
        if self.shadow is not None:
            self.llama.llama_sampler_copy(
                self.shadow, self.llama.llama_sampler_chain_get(self.chain, 0))

    def _constrained(self, logits: np.ndarray) -> int:
        """The slow path: grammar over the whole vocabulary, then the chain."""
        if self.whole is not None:
            logits = np.where(self.whole.mask, logits, -np.inf).astype(np.float32)
        return self._apply(logits, grammar=True)

    def _apply(self, logits: np.ndarray, grammar: bool) -> int:
        """Run the grammar (optionally) and the chain over logits held in Python."""
        llama = self.llama
        candidates = np.empty(self.model.n_vocab, dtype=TOKEN_DATA)
        candidates["id"] = np.arange(self.model.n_vocab, dtype=np.int32)
        candidates["logit"] = logits
        candidates["p"] = 0.0
        array = llama.llama_token_data_array(
            data=candidates.ctypes.data_as(ctypes.POINTER(llama.llama_token_data)),
            size=len(candidates), selected=-1, sorted=False)
        if grammar:
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
        single = self.single
        single.id, single.logit, single.p = token, 0.0, 0.0
        self.single_array.size, self.single_array.selected = 1, -1
        self.llama.llama_sampler_apply(self.grammar, ctypes.byref(self.single_array))
        return math.isfinite(single.logit)

    def grammar_accept(self, token: int) -> None:
        """Advance only the grammar past `token` (for measuring the grammar alone)."""
        if self.grammar is not None:
            self.llama.llama_sampler_accept(self.grammar, token)

    def accept(self, token: int) -> None:
        """`token` is kept: every sampler that remembers hears of it exactly once."""
        if self._chain_knows != token:
            self.llama.llama_sampler_accept(self.chain, token)
        self._chain_knows = None
        if self.shadow is not None:
            self.llama.llama_sampler_accept(self.shadow, token)
        if self.grammar is not None:
            self.llama.llama_sampler_accept(self.grammar, token)

    def close(self) -> None:
        self.llama.llama_sampler_free(self.chain)
        if self.shadow is not None:
            self.llama.llama_sampler_free(self.shadow)
            self.shadow = None
        if self.grammar is not None:
            self.llama.llama_sampler_free(self.grammar)
            self.grammar = None
