"""Counting in a grammar: text whose weight is at most k, exactly, in k small rules.

A quoted string (or a thought) is read by a small automaton whose every move has a
weight: the characters the parser will count (or the UTF-8 bytes the text takes).
The parser's limit is on the total. Writing the automaton out once per count would
take states x limit rules; instead, the text is cut into *units*: the shortest
pieces that leave the automaton's base state and come back to it (`a`, `'s`,
`<b`, `\\n`), each of a known weight. Then

    S[k] ::= U[1] S[k-1] | U[2] S[k-2] | ... | U[W] S[k-W] | END[<= k]

admits exactly the texts of total weight at most k: one rule per count, each with a
handful of alternatives, and the unit rules `U[w]` written once (a unit heavier than
`W` is refused: the grammar may refuse what the parser takes, never the reverse).
`END[w]` is the last, unfinished piece and the end itself (a closing quote,
`</think>`). Every rule also knows the longest text it admits (`grammar_pieces`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Protocol

from venusctl.model.grammar_pieces import (
    EMPTY,
    Piece,
    Ranges,
    Rules,
    alt,
    charclass,
    chars_of,
    merge,
    others,
    seq,
)

State = Hashable
END = ("end",)


@dataclass(frozen=True)
class Sym:
    """A set of characters the automaton treats alike; `char` is one of them."""

    char: str
    ranges: Ranges


def symbols_for(specials: str) -> list[Sym]:
    """One symbol per special character, and one for every other character of each
    UTF-8 length (their weight in bytes differs)."""
    return [Sym(c, chars_of(c)) for c in specials] + [
        Sym(chr(others(specials, n)[0][0]), others(specials, n)) for n in range(1, 5)]


class Machine(Protocol):
    symbols: list[Sym]
    start: State
    base: State

    def moves(self, state: State, sym: Sym) -> list[tuple[State, int]]:
        """Where `sym` leads from `state` (END: the text is over), with its weight."""

    def endings(self, state: State) -> list[Piece]:
        """Other ways to end the text in `state`, of weight 0 (stripped spaces)."""


class Chain:
    """The rules `S[k]` for one machine; `entry(k)` admits its texts of weight <= k."""

    def __init__(self, rules: Rules, prefix: str, machine: Machine, max_unit: int,
                 max_end: int) -> None:
        self.rules = rules
        self.prefix = prefix
        self.machine = machine
        self.max_unit = max_unit
        self.max_end = max_end
        self._paths: dict[tuple[State, int, str], Piece | None] = {}
        self._count = 0
        self.units = [self._named(f"u{w}", self._from(machine.base, w, "base"))
                      for w in range(max_unit + 1)]
        self.ends = [self._named(f"e{w}", self._from(machine.base, w, "end"))
                     for w in range(max_end + 1)]
        self._ends_upto: dict[int, Piece | None] = {}
        self.built = -1

    # ------------------------------------------------------------------ the chain

    def entry(self, k: int) -> Piece:
        """The texts of weight at most `k`, from the machine's start."""
        name = f"{self.prefix}v{k}"
        if name in self.rules:
            return self.rules.ref(name)
        base = self.machine.base
        if self.machine.start == base:
            return self.count(k)
        options = []
        for w in range(min(k, self.max_end) + 1):
            lead = self._from(self.machine.start, w, "base")
            if lead is not None:
                options.append(seq(lead, self.count(k - w)))
            short = self._from(self.machine.start, w, "end")
            if short is not None:
                options.append(short)
        return self.rules.add(name, alt(*options))

    def count(self, k: int) -> Piece:
        """`S[k]`, built with every `S[j]` below it."""
        for j in range(self.built + 1, k + 1):
            options = [seq(unit, self.rules.ref(f"{self.prefix}{j - w}"))
                       for w, unit in enumerate(self.units)
                       if unit is not None and 0 < w <= j and f"{self.prefix}{j - w}" in self.rules]
            ending = self._ends_upto_piece(j)
            if ending is not None:
                options.append(ending)
            if options:  # none: no text is that light (a thought needs its `</think>`)
                self.rules.add(f"{self.prefix}{j}", alt(*options))
            self.built = j
        return self.rules.ref(f"{self.prefix}{k}")

    def _ends_upto_piece(self, j: int) -> Piece | None:
        top = min(j, self.max_end)
        if top not in self._ends_upto:
            found = [e for e in self.ends[:top + 1] if e is not None]
            self._ends_upto[top] = (self._named(f"le{top}", alt(*found)) if len(found) > 1
                                    else found[0] if found else None)
        return self._ends_upto[top]

    # ------------------------------------------------------------------ paths

    def _from(self, state: State, weight: int, target: str) -> Piece | None:
        """Texts that go from `state` to `target` ("base" or "end") with total `weight`,
        never passing through the base state on the way (a path may start there)."""
        key = (state, weight, target)
        if key in self._paths:
            return self._paths[key]
        self._paths[key] = None  # no cycles of weight 0: a path never comes back here
        groups: dict[str, tuple[Piece | None, list[Sym]]] = {}
        options: list[Piece] = []
        if target == "end" and weight == 0:
            options.extend(self.machine.endings(state))
        for sym in self.machine.symbols:
            for nxt, w in self.machine.moves(state, sym):
                if w > weight:
                    continue
                if nxt == END or nxt == self.machine.base:
                    reached = "end" if nxt == END else "base"
                    if reached == target and w == weight:
                        groups.setdefault("", (None, []))[1].append(sym)
                    continue
                rest = self._from(nxt, weight - w, target)
                if rest is not None:
                    groups.setdefault(rest.text, (rest, []))[1].append(sym)
        for rest, syms in groups.values():
            chars = charclass(merge(r for sym in syms for r in sym.ranges))
            options.append(chars if rest is None else seq(chars, rest))
        self._count += 1
        piece = self._named(f"p{self._count}", alt(*options)) if options else None
        self._paths[key] = piece
        return piece

    def _named(self, suffix: str, piece: Piece | None) -> Piece | None:
        if piece is None:
            return None
        if piece is EMPTY or " " not in piece.text:
            return piece
        return self.rules.add(f"{self.prefix}{suffix}", piece)
