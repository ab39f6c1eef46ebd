"""Quoted strings of the action grammar: read as the literal reader reads them, counted
as the parser counts them.

Reading (`StringMachine`, `venusctl.core.literals`): a quote closes the string only
when spaces and a `,`, `)` or `]` follow, so `'Joe's Pizza'` is one string; escapes;
raw newlines; never `</action>` (the first one ends the block), `<think>` or
`</think>` (without a thought, either would move where the parser looks for the
action); and what each kind demands of its characters (a name is not blank, a path
has no empty, `.` or `..` part, a file name no folder part).

Counting (`grammar_chains`): each string is held to the parser's limit (text 4,000
characters, names 200, upload paths 1,024, file names 255) exactly as the parser
counts: an in-string apostrophe is one character, an escape such as `\\n` one, a
character outside ASCII one. Two deliberate exceptions, both refusing rather than
admitting: a `\\uXXXX` escape counts as 3 (so that 4,000 of them still fit the
parser's 12,000-character action), and a string whose budget share is too small
for its full limit is counted in UTF-8 bytes instead (every token is at least one
byte, so the answer then fits its token budget).

What the grammar refuses although the parser would take it (never the reverse):
more than `FREE_SPACES` stripped spaces at either end, `\\u` escapes outside text
and from `\\uD…`, a unit heavier than `MAX_UNIT` (`</act`, `<thin`, a quote followed
by five spaces, a file name `.` or `..` whose spaces run on to a fifth character before
anything else: `..   ..`), a name starting with an escape, a path part starting with a
space.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from venusctl.core.actions import MAX_FILENAME, MAX_NAME, MAX_PATH, MAX_TEXT
from venusctl.model.grammar_chains import END, Chain, State, Sym, symbols_for
from venusctl.model.grammar_pieces import (
    Piece,
    Rules,
    alt,
    charclass,
    chars_of,
    lit,
    rep,
    seq,
    utf8_len,
)

WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
"""Every character `str.isspace` (the literal reader's idea of a space) accepts."""
FREE_WHITESPACE = "".join(c for c in WHITESPACE if c.isascii())
CLOSERS = ",)]"
QUOTES = "'\""
HEX = "0123456789abcdefABCDEF"
ESCAPED_ONE = "ntr\\'\"0"
"""Escapes the literal reader turns into one character (any other `\\x` stays two)."""
GUARDS = ("</action>", "<think>", "</think>")
MAX_UNIT = 5
FREE_SPACES = 4
"""Stripped spaces admitted before and after a name or a path (they count for nothing)."""
MODES = ("chars", "bytes")


# ------------------------------------------------------------------ kinds


@dataclass(frozen=True)
class Kind:
    """What a string kind demands of its characters: a small automaton over character
    classes (`ws`, `.`, `/`, `x`), started in `start`, mostly in `base`."""

    name: str
    limit: int
    start: str
    base: str
    step: Callable[[str, str], str | None]
    accepting: frozenset[str]
    escapes: str  # "all" or "quotes"
    strips: bool


_Held = tuple[Any, ...]  # a string machine's state (see `StringMachine`)

_Table = dict[str, dict[str, str | None]]  # state -> character class -> next state


def _table(table: _Table) -> Callable[[str, str], str | None]:
    return lambda state, cls: table[state][cls]


_ANY: dict[str, str | None] = {"ws": "T", ".": "T", "/": "T", "x": "T"}
_NAME: _Table = {"N0": {"ws": None, ".": "N1", "/": "N1", "x": "N1"},
         "N1": {"ws": "N1", ".": "N1", "/": "N1", "x": "N1"}}
_FILE: _Table = {  # parts of a relative path: none empty, `.` or `..`; none starting with a space
    "F0": {"ws": None, ".": "D1", "/": None, "x": "OK"},
    "D1": {"ws": None, ".": "D2", "/": None, "x": "OK"},
    "D2": {"ws": None, ".": "OK", "/": None, "x": "OK"},
    "OK": {"ws": "OW", ".": "OK", "/": "F0", "x": "OK"},
    "OW": {"ws": "OW", ".": "OK", "/": "F0", "x": "OK"},
}
_FILENAME: _Table = {  # one name, stripped: not `.` or `..` (`. .` is a name), no folder part
    "G0": {"ws": None, ".": "D1", "/": None, "x": "OK"},
    "D1": {"ws": "DW", ".": "D2", "/": None, "x": "OK"},
    "D2": {"ws": "DW", ".": "OK", "/": None, "x": "OK"},
    "DW": {"ws": "DW", ".": "OK", "/": None, "x": "OK"},
    "OK": {"ws": "OK", ".": "OK", "/": None, "x": "OK"},
}

KINDS = {
    "text": Kind("text", MAX_TEXT, "T", "T", _table({"T": _ANY}), frozenset({"T"}), "all",
                 strips=False),
    "name": Kind("name", MAX_NAME, "N0", "N1", _table(_NAME), frozenset({"N1"}), "all",
                 strips=True),
    "file": Kind("file", MAX_PATH, "F0", "OK", _table(_FILE), frozenset({"OK", "OW"}),
                 "quotes", strips=True),
    "filename": Kind("filename", MAX_FILENAME, "G0", "OK", _table(_FILENAME),
                     frozenset({"OK"}), "quotes", strips=True),
}


def _class_of(char: str) -> str:
    if char in WHITESPACE:
        return "ws"
    if char in ("/", "\\"):
        return "/"
    return "." if char == "." else "x"


# ------------------------------------------------------------------ the guard


@cache
def guard_step(progress: str, char: str) -> str | None:
    """Progress through any of `GUARDS` (any case) after `char`; None: one is complete."""
    text = (progress + char).lower()
    for pattern in GUARDS:
        if pattern in text:
            return None
    for size in range(len(text), 0, -1):
        if any(p.startswith(text[-size:]) for p in GUARDS):
            return text[-size:]
    return ""


# ------------------------------------------------------------------ the machine


def _specials() -> str:
    guard = "".join(GUARDS)
    chars = QUOTES + "\\" + WHITESPACE + CLOSERS + guard + guard.upper() + "./" + HEX + "u"
    return "".join(dict.fromkeys(chars + ESCAPED_ONE))


SPECIALS = _specials()
SYMBOLS = symbols_for(SPECIALS)


class StringMachine:
    """One quoted string's body, as `venusctl.core.literals` reads it.

    States: ("s", guard, c) reading text; ("e", c) after a backslash; ("u", n, c) after
    `\\u` and n hex digits; ("q", c) after a quote that did not close the string (yet:
    what follows decides); ("w", c) after such a quote and spaces. `guard` is the
    progress through `GUARDS`, `c` the kind's state. Weights: characters as the parser
    counts them (`chars`) or UTF-8 bytes of the raw text (`bytes`).
    """

    symbols = SYMBOLS

    def __init__(self, quote: str, kind: Kind, mode: str) -> None:
        self.quote = quote
        self.kind = kind
        self.mode = mode
        self.start: State = ("s", "", kind.start)
        self.base: State = ("s", "", kind.base)

    def endings(self, state: State) -> list[Piece]:
        """Stripped spaces before the closing quote (names and paths)."""
        if not self.kind.strips or not self._may_close(state):
            return []
        spaces = rep(charclass(chars_of(FREE_WHITESPACE)), 1, FREE_SPACES)
        return [seq(spaces, lit(self.quote))]

    def _may_close(self, state: State) -> bool:
        held = cast(_Held, state)
        return held[0] in ("s", "q", "w") and held[-1] in self.kind.accepting

    def moves(self, state: State, sym: Sym) -> list[tuple[State, int]]:
        char = sym.char
        out: list[tuple[State, int]] = []
        if char == self.quote and self._may_close(state):
            out.append((END, 0))
        nxt = self._next(state, char)
        if nxt is not None:
            out.append((nxt[0], nxt[1] if self.mode == "chars" else nxt[2]))
        return out

    def _next(self, state: State, char: str) -> tuple[State, int, int] | None:
        """(next state, characters counted, bytes) after `char`, or None."""
        held = cast(_Held, state)
        mode = held[0]
        size = utf8_len(ord(char))
        if mode == "e":
            return self._escaped(held[1], char, size)
        if mode == "u":
            _, count, c = held
            if char not in HEX or (count == 0 and char in "dD"):
                return None
            return (("u", count + 1, c), 0, 1) if count < 3 else (("s", "", c), 3, 1)
        if mode in ("q", "w") and char in CLOSERS:
            return None  # the quote before would have closed the string
        content = held[-1]
        guard = held[1] if mode == "s" else ""
        if char == "\\":  # not first in a name: `\\n` there would strip to nothing
            return None if content == "N0" else (("e", content), 0, 1)
        after = self.kind.step(content, "x" if char == self.quote else _class_of(char))
        if after is None:
            return None
        if char == self.quote:
            return ("q", after), 1, 1
        if mode in ("q", "w") and char in WHITESPACE:
            return ("w", after), 1, size
        progress = guard_step(guard, char)
        if progress is None:
            return None
        return ("s", progress, after), 1, size

    def _escaped(self, content: str, char: str, size: int) -> tuple[State, int, int] | None:
        """After a backslash: the escape the reader decodes (counted as it counts)."""
        if self.kind.escapes == "quotes" or char in QUOTES:
            after = self.kind.step(content, "x") if char in QUOTES else None
            return None if after is None else (("s", "", after), 1, 1)
        if char == "u":
            return (("u", 0, content), 0, 1) if self.kind.name == "text" else None
        one = char in ESCAPED_ONE
        decoded = "ws" if char in "ntr" else "x" if one else _class_of(char)
        after = self.kind.step(content, decoded)
        progress = guard_step("", char)
        if after is None or progress is None:
            return None
        return ("s", progress, after), 1 if one else 2, size


# ------------------------------------------------------------------ strings


class Strings:
    """The string chains of one grammar, made on demand: one per kind, quote and mode."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.chains: dict[tuple[str, str, str], Chain] = {}

    def value(self, kind_name: str, mode: str, limit: int) -> Piece:
        """A quoted string of `kind_name` counted in `mode` up to `limit`, either quote."""
        name = f"v-{kind_name}-{mode[0]}{limit}"
        if name not in self.rules:
            self.rules.add(name, self._either(kind_name, mode, limit))
        return self.rules.ref(name)

    def _either(self, kind_name: str, mode: str, limit: int) -> Piece:
        kind = KINDS[kind_name]
        options = []
        for quote, tag in zip(QUOTES, ("sq", "dq"), strict=True):
            chain = self._chain(kind, quote, tag, mode)
            lead = (rep(charclass(chars_of(FREE_WHITESPACE)), 0, FREE_SPACES) if kind.strips
                    else lit(""))
            options.append(seq(lit(quote), lead, chain.entry(limit)))
        return alt(*options)

    def _chain(self, kind: Kind, quote: str, tag: str, mode: str) -> Chain:
        key = (kind.name, tag, mode)
        if key not in self.chains:
            machine = StringMachine(quote, kind, mode)
            prefix = f"{kind.name[0] if kind.name != 'filename' else 'g'}{tag[0]}{mode[0]}"
            self.chains[key] = Chain(self.rules, prefix, machine, MAX_UNIT, MAX_UNIT)
        return self.chains[key]
