"""Near the end of the token budget, lean towards tokens that close what is open.

The action grammar lets a string or a thought run as long as the token budget
allows (the model may write a 1,500-character text). A confused model can then still
be inside a string when `max_tokens` runs out, and a cut answer does not parse. For
the last few tokens of the budget every token that ends in a closing character
(`'`, `"`, `)`, `]`, `,`, `>`) gets a large bonus; the grammar still decides what is
allowed, so this only picks, among valid tokens, one that brings the answer to its
end. A model that is finishing on its own is not affected: it already picks those.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from venusctl.model.base import SamplingOptions

FINISH_TOKENS = 48
"""The last tokens of the budget that lean towards closing (at most a quarter of it)."""
BONUS = 1000.0
CLOSERS = tuple(b"'\")],>")

_masks: weakref.WeakKeyDictionary[Any, np.ndarray] = weakref.WeakKeyDictionary()


def closer_mask(model: Any) -> np.ndarray:
    """1.0 for each token whose text ends in a closing character, else 0 (cached)."""
    mask = _masks.get(model)
    if mask is None:
        mask = np.fromiter((1.0 if (p := model.piece(t)) and p[-1] in CLOSERS else 0.0
                            for t in range(model.n_vocab)), dtype=np.float32,
                           count=model.n_vocab)
        _masks[model] = mask
    return mask


class FinishWindow:
    """Tips the logits of the last `FINISH_TOKENS` steps towards closing tokens."""

    def __init__(self, model: Any, options: SamplingOptions, active: bool) -> None:
        self.start = options.max_tokens - min(FINISH_TOKENS, options.max_tokens // 4)
        self.mask = closer_mask(model) if active else None

    def leaning(self, generated: int) -> bool:
        """Whether the token after `generated` ones falls in the window (only then do
        the logits need to be taken out of llama.cpp and changed)."""
        return self.mask is not None and generated >= self.start

    def logits(self, logits: np.ndarray, generated: int) -> np.ndarray:
        if not self.leaning(generated):
            return logits
        return (logits + self.mask * BONUS).astype(np.float32)
