"""GBNF expressions that know how long a match can be.

Every piece of the action grammar carries, beside its GBNF text, the most characters
and the most UTF-8 bytes anything it matches can take. The grammar is put together
from pieces, so the longest answer it admits is known by construction: that is how
it keeps the whole action within the parser's 12,000 characters and, under a token
budget, within the budget (every token is at least one byte).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

UNIVERSE_TOP = 0x10FFFF
SURROGATES = (0xD800, 0xDFFF)
BYTE_RANGES = ((1, 0x7F, 1), (0x80, 0x7FF, 2), (0x800, 0xFFFF, 3), (0x10000, UNIVERSE_TOP, 4))
"""Code points by the length of their UTF-8 form (NUL is never part of an answer)."""

Ranges = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Piece:
    """A GBNF expression and the longest match it admits, in characters and in bytes."""

    text: str
    chars: int
    bytes: int

    @property
    def size(self) -> tuple[int, int]:
        return (self.chars, self.bytes)


EMPTY = Piece('""', 0, 0)


def lit(text: str) -> Piece:
    """A literal string."""
    return Piece('"' + "".join(escape(c) for c in text) + '"', len(text),
                 len(text.encode("utf-8")))


def seq(*pieces: Piece) -> Piece:
    parts = [p for p in pieces if p.text != '""']
    if not parts:
        return EMPTY
    return Piece(" ".join(_grouped(p) for p in parts), sum(p.chars for p in parts),
                 sum(p.bytes for p in parts))


def alt(*pieces: Piece) -> Piece:
    """Alternatives (duplicates dropped); the longest of them bounds the whole."""
    unique = list(dict.fromkeys(pieces))
    if len(unique) == 1:
        return unique[0]
    return Piece("( " + " | ".join(p.text for p in unique) + " )",
                 max(p.chars for p in unique), max(p.bytes for p in unique))


def opt(piece: Piece) -> Piece:
    return Piece(f"{_grouped(piece)}?", piece.chars, piece.bytes)


def rep(piece: Piece, low: int, high: int) -> Piece:
    """`piece` low..high times (llama.cpp takes bounds up to 2,000)."""
    if high <= 0:
        return EMPTY
    body = _grouped(piece)
    bound = f"{{{high}}}" if low == high else f"{{{low},{high}}}"
    return Piece(body + bound, piece.chars * high, piece.bytes * high)


_PARENS = re.compile(r"[()]")


def _ungrouped(text: str) -> str:
    """`( a | b )` as `a | b` (a rule's body needs no outer group). Literals and classes
    write parentheses as escapes, so counting the bare ones is enough."""
    if not (text.startswith("( ") and text.endswith(" )")):
        return text
    depth = 0
    for paren in _PARENS.finditer(text):  # a grammar's rules add up to megabytes
        depth += 1 if paren.group() == "(" else -1
        if depth == 0 and paren.start() < len(text) - 1:
            return text
    return text[2:-2]


def _grouped(piece: Piece) -> str:
    """The piece as one term (literals and classes never hold a raw space)."""
    return f"( {piece.text} )" if " " in piece.text else piece.text


class Rules:
    """Named rules: each added rule is referred to by a piece of the same size."""

    def __init__(self) -> None:
        self.bodies: dict[str, str] = {}
        self.sizes: dict[str, tuple[int, int]] = {}

    def add(self, name: str, body: Piece) -> Piece:
        text = _ungrouped(body.text)
        if name in self.bodies and self.bodies[name] != text:
            raise ValueError(f"rule {name} defined twice")
        self.bodies[name] = text
        self.sizes[name] = body.size
        return self.ref(name)

    def ref(self, name: str) -> Piece:
        chars, size = self.sizes[name]
        return Piece(name, chars, size)

    def __contains__(self, name: str) -> bool:
        return name in self.bodies

    def render(self) -> str:
        return "\n".join(f"{name} ::= {body}" for name, body in self.bodies.items()) + "\n"


# ------------------------------------------------------------------ characters


def escape(char: str) -> str:
    """One character as GBNF writes it inside a literal or a class."""
    code = ord(char)
    if char.isascii() and char.isalnum():
        return char
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def utf8_len(code: int) -> int:
    return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4


def merge(ranges: Iterable[tuple[int, int]]) -> Ranges:
    out: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if out and low <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], high))
        else:
            out.append((low, high))
    return tuple(out)


def minus(ranges: Ranges, points: Iterable[int]) -> Ranges:
    """`ranges` without the code points `points`."""
    out = list(ranges)
    for point in sorted(set(points)):
        kept = []
        for low, high in out:
            if low <= point <= high:
                if low < point:
                    kept.append((low, point - 1))
                if point < high:
                    kept.append((point + 1, high))
            else:
                kept.append((low, high))
        out = kept
    return merge(out)


def charclass(ranges: Ranges) -> Piece:
    """One GBNF character class for `ranges`, always listed: llama.cpp refuses the first
    bytes of a character for a negated class whenever any character they could start
    is excluded, so `[^\x85]` would refuse a token that is the first byte of `é`."""
    ranges = merge(ranges)
    if not ranges:
        raise ValueError("an empty character class")
    most = max(utf8_len(high) for _, high in ranges)
    return Piece(f"[{_listed(ranges)}]", 1, most)


def _listed(ranges: Ranges) -> str:
    parts = []
    for low, high in ranges:
        if low == high:
            parts.append(escape(chr(low)))
        elif high == low + 1:
            parts.append(escape(chr(low)) + escape(chr(high)))
        else:
            parts.append(f"{escape(chr(low))}-{escape(chr(high))}")
    return "".join(parts)


def chars_of(text: str) -> Ranges:
    return merge((ord(c), ord(c)) for c in text)


def others(special: Iterable[str], length: int) -> Ranges:
    """Every character of UTF-8 length `length` not in `special` (no NUL, no surrogate)."""
    low, high, _ = BYTE_RANGES[length - 1]
    ranges: Ranges = ((low, high),)
    if length == 3:
        ranges = ((low, SURROGATES[0] - 1), (SURROGATES[1] + 1, high))
    return minus(ranges, (ord(c) for c in special))
