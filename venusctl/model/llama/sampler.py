"""Choosing each next token: repetition penalty, temperature, a grammar checked lazily.

Sampling runs in llama.cpp: `llama_sampler_sample` reads the context's own logits
and runs the sampler chain over them in C, so no per-token copy of the vocabulary
(248,320 entries for Qwen3.5) ever reaches Python.

The repetition penalty is applied by us, in place on the context's logits, to the
few tokens of the recent window only (the same arithmetic as llama.cpp's penalty
sampler, which instead looks every one of the 248k candidates up in its table each
token: ~0.65 ms a token on a CPU, as much as the rest of sampling twice over).
Kept outside the chain, it also remembers only the tokens that were kept.

llama.cpp checks a grammar by matching every vocabulary entry against it, ~40 ms a
token at 150-250k entries. Most tokens a trained model picks are allowed anyway, so
we sample from the unconstrained distribution first and ask the grammar about that
single token; only when it is refused do we pay for the full check and resample
from the allowed tokens (llama.cpp's own `common_sampler` does the same). The
result is always a token the grammar accepts.
"""

from __future__ import annotations

import ctypes
import math
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from venusctl.core.errors import ModelError
from venusctl.model.base import SamplingOptions
from venusctl.model.llama.native import Context, TextModel, _llama

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
        self.penalty = np.float32(options.repeat_penalty)
        self.frequency = np.float32(options.frequency_penalty)
        self.recent: deque[int] = deque(maxlen=PENALTY_WINDOW)
        self.chain = self._chain(options, seed)
        self.grammar = self._grammar(grammar) if grammar else None
        self.whole = model.whole_characters() if grammar else None
        self.stats = GrammarStats()
        self.single = self.llama.llama_token_data()
        self.single_array = self.llama.llama_token_data_array(
            data=ctypes.pointer(self.single), size=1, selected=-1, sorted=False)
        self._chain_knows: int | None = None  # the token `llama_sampler_sample` accepted

    def _chain(self, options: SamplingOptions, seed: int) -> Any:
        llama = self.llama
        chain = llama.llama_sampler_chain_init(llama.llama_sampler_chain_default_params())
        if options.temperature <= 0:
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_greedy())
        else:
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_top_k(TOP_K))
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_top_p(options.top_p, 1))
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_temp(options.temperature))
            llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_dist(seed))
        return chain

    def _penalize(self, logits: np.ndarray) -> None:
        """llama.cpp's penalties, in place, on the recent window's tokens only: a logit
        above zero is divided by the repetition penalty, one at or below multiplied;
        then the frequency penalty takes off its weight per time the token came."""
        if (self.penalty == 1.0 and not self.frequency) or not self.recent:
            return
        counts = Counter(self.recent)
        ids = np.fromiter(counts.keys(), dtype=np.intp, count=len(counts))
        values = logits[ids]
        if self.penalty != 1.0:
            values = np.where(values <= 0, values * self.penalty, values / self.penalty)
        if self.frequency:
            seen = np.fromiter(counts.values(), dtype=np.float32, count=len(counts))
            values = values - self.frequency * seen
        logits[ids] = values

    def _grammar(self, grammar: str) -> Any:
        return self.model.grammars.sampler(grammar)

    # ----------------------------------------------------------------- choosing
    def sample(self, source: Context | np.ndarray) -> int:
        """The next token, one the grammar allows: from the context's last logits (in
        llama.cpp), or from logits given as an array (tests, tools)."""
        if isinstance(source, np.ndarray):
            logits = source.astype(np.float32, copy=True)
            self._penalize(logits)
            token = self._apply(logits, grammar=False)
        else:
            logits = source.logits()  # a view of the context's own buffer
            self._penalize(logits)
            token = int(self.llama.llama_sampler_sample(self.chain, source.handle, -1))
            self._chain_knows = token
        if self.grammar is None:
            return token
        self.stats.checked += 1
        if self.allows(token):
            return token
        self.stats.rejected += 1
        self._chain_knows = None
        token = self._constrained(logits)
        if not self.allows(token):
            raise ModelError("the grammar left no token to choose (the answer cannot continue)")
        return token

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

    def swap_grammar(self, grammar: str, replay: list[int]) -> None:
        """Hold the rest of the answer to `grammar`, which starts where the text behind
        the `replay` tokens ends (they have been kept already: only the new grammar
        hears of them)."""
        if self.grammar is not None:
            self.llama.llama_sampler_free(self.grammar)
        self.grammar = self._grammar(grammar)
        for token in replay:
            if not self.allows(token):
                raise ModelError("the answer does not fit the grammar it continues in")
            self.llama.llama_sampler_accept(self.grammar, token)

    def grammar_accept(self, token: int) -> None:
        """Advance only the grammar past `token` (for measuring the grammar alone)."""
        if self.grammar is not None:
            self.llama.llama_sampler_accept(self.grammar, token)

    def accept(self, token: int) -> None:
        """`token` is kept: everything that remembers hears of it exactly once."""
        if self._chain_knows != token:
            self.llama.llama_sampler_accept(self.chain, token)
        self._chain_knows = None
        self.recent.append(token)
        if self.grammar is not None:
            self.llama.llama_sampler_accept(self.grammar, token)

    def close(self) -> None:
        self.llama.llama_sampler_free(self.chain)
        if self.grammar is not None:
            self.llama.llama_sampler_free(self.grammar)
            self.grammar = None
