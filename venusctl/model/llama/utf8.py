"""Which tokens a grammar-constrained answer may use: whole UTF-8 characters only.

Byte-level vocabularies have tokens that are pieces of a character. llama.cpp's
grammar engine reads each piece as a C string and, when a piece breaks a pending
multi-byte character (or holds a NUL byte), lets the token through without
matching it against the grammar, so a model writing broken UTF-8 can slip text
past the grammar (a random model wrote 6,000-character URLs that way), or paint
itself into a corner where only such tokens remain. Under a grammar we therefore
allow only tokens that are whole, well-formed characters. Common characters of
every script are whole tokens in the Qwen vocabulary; what is lost is spelling a
rare character byte by byte.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def whole_characters(piece: bytes) -> bool:
    """True when `piece` is non-empty, NUL-free, complete UTF-8."""
    if not piece or 0 in piece:
        return False
    try:
        piece.decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        return False
    return True


class WholeCharacters:
    """A boolean mask over the vocabulary: tokens that are whole characters."""

    def __init__(self, n_vocab: int, piece: Callable[[int], bytes]) -> None:
        self.mask = np.fromiter((whole_characters(piece(t)) for t in range(n_vocab)),
                                dtype=bool, count=n_vocab)

    def allows(self, token: int) -> bool:
        return bool(self.mask[token])
