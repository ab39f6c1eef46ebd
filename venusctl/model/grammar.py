"""A GBNF grammar, generated from a surface's action set, that answers are held to.

Everything the grammar admits, the parser (`venusctl.core.actions.parse`) accepts, by
construction; and it admits what the model writes in its trained form
(`[<think>]THOUGHT</think> … <action>Name(key=value, …)</action>`):
  - the thought holds any characters until the first `</think>` (any case); between
    `</think>` and `<action>` only a few spaces or newlines (free text there would let
    a confused model ramble without ever acting); with thinking off, the thought is
    optional (the prompt still asks for one, and the parser reads it);
  - names and keywords of the surface (the browser's names in any case, with `_`
    only where the authors' name has a word break: `select_option`, `GETURL`),
    keyword arguments in any order, each at most once, a trailing comma, up to
    `SPACE_CHARS` of white space between the parts of a call;
  - quoted strings read and counted exactly as the parser reads and counts them
    (`grammar_strings`), numbers in the parser's ranges, addresses that the WHATWG
    reader (what the parser uses) takes, key names, Sequence children.

Every rule knows the longest text it admits (`grammar_pieces`), and the grammar is
built to a budget: the call within the parser's 12,000 characters and, when
`GrammarOptions.budget` is set, everything after the thought within that many UTF-8
bytes. Each token is at least one byte, so a model held to the grammar cannot run out
of tokens inside the action: strings, lists and Sequences that would not fit are
admitted shorter (their share of the budget). With `bounded_thought` the thought is
held to half the budget as well (for a server, where venusctl cannot close it).
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass
from typing import cast

from venusctl.core.actions import (
    ACTION_SETS,
    GRID_MAX,
    MAX_ACTION_TEXT,
    MAX_KEYS,
    MAX_REPEAT,
    MAX_SEQUENCE,
    TERMINAL,
    Arg,
    Spec,
    Surface,
)
from venusctl.model.grammar_automata import cases as case_forms
from venusctl.model.grammar_automata import emit, kmp
from venusctl.model.grammar_chains import END, Chain, State, Sym, symbols_for
from venusctl.model.grammar_pieces import (
    EMPTY,
    Piece,
    Rules,
    alt,
    charclass,
    chars_of,
    lit,
    minus,
    opt,
    others,
    rep,
    seq,
)
from venusctl.model.grammar_strings import (
    FREE_SPACES,
    KINDS,
    QUOTES,
    WHITESPACE,
    Strings,
)

URL_PATH_CHARS = 1700
"""Scheme, host, port and path together stay under the parser's 2,048 characters."""
URL_RANGES = minus(((0x21, 0x7E), (0xA1, 0x10FFFF)), [ord(c) for c in "'\"\\<"] +
                   [ord(c) for c in WHITESPACE] + list(range(0xD800, 0xE000)))
"""Characters a URL's path may hold: printable, no quote, backslash, `<` or space."""
HOST_LABELS = 4
LABEL_PAIRS = 30
"""A host is up to `HOST_LABELS` labels of letters and digits with single hyphens inside
(no `--`, so never an `xn--` label the IDNA step could refuse), the last starting with
a letter (so it never ends in a number the IPv4 reader could refuse); each label at
most 1 + 2 * `LABEL_PAIRS` characters."""
GAP_CHARS = 8
"""Spaces and newlines allowed between `</think>` and `<action>`."""
SPACE_CHARS = 8
"""Spaces, tabs and newlines allowed between the parts of a call (`Click( point = …`,
a Sequence laid out over lines); the parser takes any amount of any white space, but
the model writes at most a space or a line break, and a bound keeps a confused model
from spending its token budget on white space."""
KEY_UNITS = 32
"""Characters (or escapes) of one key name; the parser takes 1,024, key names are short."""
DECIMALS = 2
SEQUENCE_SPLITS = (2, 4, 8, 16, MAX_SEQUENCE)
"""A Sequence of at most n children gives each 1/n of its budget (one variant per n)."""
THOUGHT_UNIT = 6


@dataclass(frozen=True)
class GrammarOptions:
    """How the answer starts and what it may cost.

    `thinking`: the answer reasons first (off: a thought is optional);
    `think_opened`: the template already opened the thought inside the prompt;
    `budget`: UTF-8 bytes (so tokens, at most) everything after the thought may take,
    None for no token budget (the call is still held to the parser's length);
    `bounded_thought`: the thought takes at most half of `budget` (a server, where the
    client cannot close it); `exclude`: action names left out (Upload and Download
    where no upload folder is given).
    """

    thinking: bool = True
    think_opened: bool = True
    budget: int | None = None
    bounded_thought: bool = False
    exclude: frozenset[str] = frozenset()
    after_thought: bool = False
    """The answer starts after the thought (a backend that closed it swaps grammars)."""


BUDGET_STEPS = tuple(sorted({int(64 * 1.25 ** i) // 16 * 16 for i in range(26)}))
"""64, 80, 96, 112, 144, 192, 240, 304, … 17328: a quarter apart."""
"""Budgets grammars are built for: a token budget is rounded down to one of these, so a
run needs only a few grammars (each is cached)."""


def action_grammar(surface: Surface, options: GrammarOptions | None = None) -> str:
    """The GBNF grammar for one navigation answer on `surface`."""
    return _built(surface, options or GrammarOptions())[0]


@functools.lru_cache(maxsize=24)
def _built(surface: Surface, options: GrammarOptions) -> tuple[str, int]:
    """(grammar, the most bytes its part after the thought can take)."""
    builder = _Builder(surface, options)
    return builder.build(), builder.after_bytes


def fitting_budget(surface: Surface, tokens: int, exclude: frozenset[str] = frozenset(),
                   ) -> int | None:
    """The budget to build a grammar for when `tokens` tokens are left for the action:
    None when the grammar without a budget already fits, else the largest step at most
    `tokens` (the smallest step, 64, below that: the shortest actions need 23 bytes, but
    the spaces a call may hold need more)."""
    full = _built(surface, GrammarOptions(after_thought=True, exclude=exclude))[1]
    if tokens >= full:
        return None
    return max((step for step in BUDGET_STEPS if step <= tokens), default=BUDGET_STEPS[0])


Share = tuple[int, int | None]
"""A budget: (characters, bytes or None for no byte budget)."""


def _fits(piece: Piece, share: Share) -> bool:
    return piece.chars <= share[0] and (share[1] is None or piece.bytes <= share[1])


def _less(share: Share, size: Piece | tuple[int, int], times: int = 1) -> Share:
    chars, size_bytes = size.size if isinstance(size, Piece) else size
    return (share[0] - chars * times,
            None if share[1] is None else share[1] - size_bytes * times)


def _divided(share: Share, parts: int) -> Share:
    return (share[0] // parts, None if share[1] is None else share[1] // parts)


class _Builder:
    def __init__(self, surface: Surface, options: GrammarOptions) -> None:
        self.surface = surface
        self.options = options
        self.rules = Rules()
        self.strings = Strings(self.rules)
        self.specs = {n: s for n, s in ACTION_SETS[surface].items() if n not in options.exclude}
        spaces = SPACE_CHARS if options.budget is None else min(
            SPACE_CHARS, max(1, options.budget // 128))  # a tight budget is for the text
        self.spaces = rep(charclass(chars_of(" \t\r\n")), 0, spaces)
        self.sp = self.rules.add("sp", self.spaces)
        self.sep = self.rules.add("sep", seq(self.sp, lit(","), self.sp))
        self.comma = self.rules.add("comma", opt(seq(self.sp, lit(","))))
        self._shares: dict[Share, str] = {}
        self._fixed = self._fixed_values()
        self.after_bytes = 0

    # ------------------------------------------------------------------ the answer

    def build(self) -> str:
        budget = self.options.budget
        if self.options.after_thought:
            return self._finish(self._after(budget))
        after_budget = budget
        if self.options.bounded_thought and budget is not None:
            thought = self._bounded_thought(budget // 2)
            after_budget = budget - thought.bytes - len("<think>")
        else:
            thought = self._thought()
        after = self._after(after_budget)
        if self.options.thinking:
            opening = lit("<think>") if not self.options.think_opened else EMPTY
            root = seq(opening, thought, after)
        else:
            root = alt(seq(lit("<think>"), thought, after), self._after(budget))
        return self._finish(root)

    def _finish(self, root: Piece) -> str:
        after = [size for name, size in self.rules.sizes.items() if name.startswith("after")]
        self.after_bytes = max(size[1] for size in after)
        self.rules.bodies = {"root": root.text, **self.rules.bodies}
        return self.rules.render()

    def _thought(self) -> Piece:
        """Any characters up to and including the first `</think>` (any case)."""
        if "th-0" not in self.rules:
            advance = kmp("</think>")

            def step(k: State, char: str) -> State | None:
                nxt = advance(cast(int, k), char or "\uffff")  # this machine's states: ints
                return ("end",) if nxt == len("</think>") else nxt

            emit(self.rules.bodies, "th", 0, step, case_forms("</think>"))
        return Piece("th-0", 10**9, 10**9)  # unbounded: the backend closes it in time

    def _bounded_thought(self, most: int) -> Piece:
        chain = Chain(self.rules, "tb", _ThoughtMachine(), THOUGHT_UNIT,
                      THOUGHT_UNIT + len("</think>"))
        return chain.entry(max(len("</think>"), most))

    def _after(self, budget: int | None) -> Piece:
        """The gap, `<action>`, the call and `</action>`, within `budget` bytes."""
        name = f"after-{budget}" if budget is not None else "after"
        if name in self.rules:
            return self.rules.ref(name)
        gap = rep(charclass(chars_of(" \t\r\n")), 0, min(GAP_CHARS, max(2, self.spaces.chars)))
        frame = seq(gap, lit("<action>"), self.sp, self.sp, lit("</action>"))
        share = (MAX_ACTION_TEXT, None if budget is None else budget - frame.bytes)
        call = self._actions(share, list(self.specs), "top")
        if call is None:
            raise ValueError(f"no action fits a budget of {budget} bytes")
        body = seq(gap, lit("<action>"), self.sp, call, self.sp, lit("</action>"))
        return self.rules.add(name, body)

    # ------------------------------------------------------------------ actions

    def _actions(self, share: Share, names: list[str], tag: str) -> Piece | None:
        """One of the actions `names` (`tag` names the set) within `share`, or None."""
        found = [piece for name in names
                 if (piece := self._action(name, self.specs[name], share)) is not None]
        if not found:
            return None
        return self.rules.add(f"action-{tag}-{self._share_id(share)}", alt(*found))

    def _action(self, name: str, spec: Spec, share: Share) -> Piece | None:
        """`Name(` keyword arguments in any order, each given at most once `)`."""
        rule = f"act-{name.lower()}-{self._share_id(share)}"
        if rule in self.rules:
            return self.rules.ref(rule)
        title = self._title(name)
        bare = seq(title, self.sp, lit("("), self.sp, lit(")"))
        frame = seq(bare, self.comma, self.sp)
        filled = [args for keys in self._key_sets(spec) if keys
                  and (args := self._arguments(keys, spec, _less(share, frame))) is not None]
        empty = () in self._key_sets(spec) and _fits(bare, share)
        if not filled and not empty:
            return None
        if not filled:
            body = bare
        else:
            inner = seq(alt(*filled), self.comma)
            body = seq(title, self.sp, lit("("), self.sp, opt(inner) if empty else inner,
                       self.sp, lit(")"))
        if not _fits(body, share):
            raise AssertionError(f"{rule} is longer than its share {share}")
        return self.rules.add(rule, body)

    @staticmethod
    def _key_sets(spec: Spec) -> list[tuple[str, ...]]:
        required = [key for key, arg in spec.args.items() if arg.required]
        optional = [key for key, arg in spec.args.items() if not arg.required]
        sets = []
        for size in range(len(optional) + 1):
            for extra in itertools.combinations(optional, size):
                keys = (*required, *extra)
                if spec.one_of and not set(keys) & set(spec.one_of):
                    continue
                sets.append(keys)
        return sets

    def _arguments(self, keys: tuple[str, ...], spec: Spec, share: Share) -> Piece | None:
        """The keywords `keys` in every order, the variable values sharing `share`."""
        heads = {key: seq(self._keyword(key, spec.args[key]), self.sp, lit("="), self.sp)
                 for key in keys}
        share = _less(share, self.sep, len(keys) - 1)
        variable = [key for key in keys if spec.args[key].kind not in self._fixed]
        values: dict[str, Piece] = {}
        for key in keys:
            share = _less(share, heads[key])
            if key not in variable:
                values[key] = self._fixed[spec.args[key].kind]
                share = _less(share, values[key])
        if share[0] < 0 or (share[1] is not None and share[1] < 0):
            return None
        for key in variable:
            value = self._variable(spec.args[key].kind, _divided(share, len(variable)))
            if value is None:
                return None
            values[key] = value
        orders = [seq(*[x for k in order for x in (self.sep, heads[k], values[k])][1:])
                  for order in itertools.permutations(keys)]
        return alt(*orders)

    def _title(self, name: str) -> Piece:
        if self.surface is not Surface.BROWSER:
            return lit(name)
        return _browser_name(name)

    @staticmethod
    def _keyword(key: str, arg: Arg) -> Piece:
        if arg.field == "point" and key in ("point", "box"):
            return alt(lit("point"), lit("box"))
        return lit(key)

    def _share_id(self, share: Share) -> str:
        if share not in self._shares:
            self._shares[share] = f"s{len(self._shares)}"
        return self._shares[share]

    # ------------------------------------------------------------------ values

    def _fixed_values(self) -> dict[str, Piece]:
        """The values whose longest form is short and fixed: numbers and choices."""
        add = self.rules.add
        below = seq(charclass(chars_of("01234")), rep(_digit(), 0, DECIMALS - 1))
        coord = add("coord", alt(  # decimals that round onto the grid
            seq(Piece(_int_range(0, GRID_MAX - 1), 3, 3), opt(seq(lit("."), _digits()))),
            seq(lit(str(GRID_MAX)), opt(seq(lit("."), opt(below))))))
        pair = seq(self.sp, coord, self.sep, coord, self.comma, self.sp)
        point = add("v-point", alt(seq(lit("("), pair, lit(")")), seq(lit("["), pair, lit("]"))))
        duration = alt(
            seq(Piece('( [1-9] | [12] [0-9] )', 2, 2), opt(seq(lit("."), _digits()))),
            seq(lit("30"), opt(seq(lit("."), rep(lit("0"), 0, DECIMALS)))),
            seq(opt(lit("0")), lit("."), rep(lit("0"), 0, DECIMALS - 1),
                charclass(chars_of("123456789")), rep(_digit(), 0, DECIMALS - 1)))
        return {
            "point": point,
            "amount": add("v-amount", seq(opt(lit("-")), Piece(_int_range(0, 4096), 4, 4))),
            "repeat": add("v-repeat", Piece(_int_range(1, MAX_REPEAT), 3, 3)),
            "index": add("v-index", Piece(_int_range(0, 10000), 5, 5)),
            "duration": add("v-duration", duration),
            "axis": add("v-axis", _choice("vertical", "horizontal")),
            "direction": add("v-direction", _choice("up", "down", "left", "right")),
        }

    def _variable(self, kind: str, share: Share) -> Piece | None:
        """A value whose length depends on its share of the budget."""
        if kind in KINDS:
            return self._string(kind, share)
        if kind == "url":
            return self._url(share)
        if kind in ("keys3", "keys128"):
            return self._keys(3 if kind == "keys3" else MAX_KEYS, share)
        if kind == "actions":
            return self._sequence(share)
        raise ValueError(f"no grammar for values of kind {kind}")

    def _string(self, kind_name: str, share: Share) -> Piece | None:
        """The parser's full limit counted exactly when it fits, else as many bytes as do."""
        kind = KINDS[kind_name]
        overhead = 2 + (2 * FREE_SPACES if kind.strips else 0)
        least = 0 if kind_name == "text" else 1
        chars, size = share[0] - overhead, None if share[1] is None else share[1] - overhead
        if size is None or 4 * kind.limit <= size:  # counted as the parser counts
            limit = min(kind.limit, chars // 2)
            return self.strings.value(kind_name, "chars", limit) if limit >= least else None
        limit = min(kind.limit, chars, size)  # counted in bytes: fits the token budget
        return self.strings.value(kind_name, "bytes", limit) if limit >= least else None

    def _url(self, share: Share) -> Piece | None:
        """An http(s) address the WHATWG reader takes: host labels and a path as long as
        the share allows."""
        for pairs in range(LABEL_PAIRS, -1, -1):
            head = _url_head(pairs)
            if _fits(seq(head, lit("''")), share):
                break
        else:
            return None
        path_char = charclass(URL_RANGES)
        room = _less(share, seq(head, lit("''/")))
        path = min(URL_PATH_CHARS, room[0],
                   room[0] if room[1] is None else room[1] // path_char.bytes)
        url = head if path < 0 else seq(head, opt(seq(charclass(chars_of("/?#")),
                                                       rep(path_char, 0, path))))
        body = alt(*(seq(lit(q), url, lit(q)) for q in QUOTES))
        return self.rules.add(f"v-url-{self._share_id(share)}", body)

    def _keys(self, most: int, share: Share) -> Piece | None:
        """Key names: quoted, not blank, no `<` (but the key `<` itself); a list of at most
        `most` (or one key alone)."""
        key = self._key()
        frame = seq(lit("["), self.sp, self.comma, self.sp, lit("]"))
        room = _less(share, frame)
        count = 0
        while count < most and _fits(Piece("", key.chars * (count + 1) + self.sep.chars * count,
                                           key.bytes * (count + 1) + self.sep.bytes * count),
                                     room):
            count += 1
        if count == 0:
            return None
        more = rep(seq(self.sep, key), 0, count - 1)
        inner = seq(self.sp, key, more, self.comma, self.sp)
        body = alt(seq(lit("["), inner, lit("]")), seq(lit("("), inner, lit(")")), key)
        return self.rules.add(f"v-keys{most}-{count}", body)

    def _key(self) -> Piece:
        if "key" in self.rules:
            return self.rules.ref("key")
        options = []
        for quote in QUOTES:
            plain_ranges = others("", 1) + others("", 2) + others("", 3) + others("", 4)
            plain = charclass(minus(plain_ranges, [ord(c) for c in quote + "\\<"]))
            solid = charclass(minus(plain_ranges, [ord(c) for c in quote + "\\<" + WHITESPACE]))
            escaped = seq(lit("\\"), charclass(minus(plain_ranges, [ord("<")])))
            first_escape = seq(lit("\\"), charclass(minus(plain_ranges, [ord(c) for c in
                                                                        "ntru<"])))
            unit = alt(plain, escaped)
            options.append(seq(lit(quote), alt(solid, first_escape),
                               rep(unit, 0, KEY_UNITS - 1), lit(quote)))
            options.append(lit(f"{quote}<{quote}"))
        return self.rules.add("key", alt(*options))

    def _sequence(self, share: Share) -> Piece | None:
        """2..n children, no nesting, an episode-ending action only last; n children
        share the budget equally (one variant per n in `SEQUENCE_SPLITS`)."""
        inner = [n for n in self.specs if n != "Sequence"]
        ending = [n for n in inner if self.specs[n].cls in TERMINAL]
        middle = [n for n in inner if n not in ending]
        variants = []
        for most in SEQUENCE_SPLITS:
            frame = seq(lit("["), self.sp, self.comma, self.sp, lit("]"))
            room = _divided(_less(_less(share, frame), self.sep, most - 1), most)
            mid, anyone = self._actions(room, middle, "mid"), self._actions(room, inner, "any")
            if mid is None or anyone is None:
                continue
            more = rep(seq(self.sep, mid), 0, most - 2)
            body = seq(self.sp, mid, more, self.sep, anyone, self.comma, self.sp)
            variants.append(self.rules.add(
                f"v-actions-{self._share_id(share)}-{most}",
                alt(seq(lit("["), body, lit("]")), seq(lit("("), body, lit(")")))))
        if not variants:
            return None
        return self.rules.add(f"v-actions-{self._share_id(share)}", alt(*variants))


# ------------------------------------------------------------------ the thought


class _ThoughtMachine:
    """Any text up to the first `</think>` (any case), weighed in UTF-8 bytes."""

    symbols = symbols_for("".join(case_forms("</think>")))
    start: State = 0
    base: State = 0
    _advance = staticmethod(kmp("</think>"))

    def moves(self, state: State, sym: Sym) -> list[tuple[State, int]]:
        nxt = self._advance(cast(int, state), sym.char)  # this machine's states: ints
        weight = len(sym.char.encode("utf-8"))
        return [(END if nxt == len("</think>") else nxt, weight)]

    def endings(self, state: State) -> list[Piece]:
        return []


# ------------------------------------------------------------------ GBNF pieces


_WORD = re.compile(r"[A-Z][a-z]*")


def _browser_name(name: str) -> Piece:
    """The browser's action names as the authors' parser reads them (`lower()`, `_`
    dropped): any case, and `_` only at a word break (`select_option`, `GETURL`)."""
    words = [seq(*(alt(lit(c.lower()), lit(c.upper())) for c in word))
             for word in _WORD.findall(name)]
    return seq(words[0], *(seq(opt(lit("_")), word) for word in words[1:]))


def _url_head(pairs: int) -> Piece:
    """`http[s]://host[:port]`: a host name whose last label starts with a letter (each
    label at most 1 + 2 * `pairs` characters) or a dotted-quad IPv4 address. A last label
    of digits is WHATWG's IPv4 reader's (`1.2.3.999` fails it, `0` is 0.0.0.0), so only
    the four-part decimal form is admitted: it always reads back as the address written."""
    letter = charclass(((65, 90), (97, 122)))
    alnum = charclass(((48, 57), (65, 90), (97, 122)))
    tail = rep(seq(opt(lit("-")), alnum), 0, pairs)
    name = seq(rep(seq(alnum, tail, lit(".")), 0, HOST_LABELS - 1), letter, tail)
    octet = Piece(_int_range(0, 255), 3, 3)
    dotted = seq(octet, lit("."), octet, lit("."), octet, lit("."), octet)
    host = alt(name, dotted)
    port = seq(lit(":"), Piece(_int_range(1, 65535), 5, 5))
    scheme = seq(*(alt(lit(c), lit(c.upper())) for c in "http"), opt(alt(lit("s"), lit("S"))),
                 lit("://"))
    return seq(scheme, host, opt(port))


def _choice(*words: str) -> Piece:
    return alt(*(seq(lit(q), alt(*(lit(w) for w in words)), lit(q)) for q in QUOTES))


def _digit() -> Piece:
    return charclass(chars_of("0123456789"))


def _digits() -> Piece:
    return rep(_digit(), 0, DECIMALS)


def _int_range(low: int, high: int) -> str:
    """Decimal integers low..high without leading zeros, as alternatives by length."""
    alternatives = []
    for digits in range(len(str(low)), len(str(high)) + 1):
        start = max(low, 10 ** (digits - 1) if digits > 1 else 0)
        stop = min(high, 10 ** digits - 1)
        if start <= stop:
            alternatives.extend(_digits_between(str(start), str(stop)))
    return "( " + " | ".join(alternatives) + " )"


def _digits_between(low: str, high: str) -> list[str]:
    """Patterns for same-length numbers low..high (the classic range-to-regex split)."""
    if low == high:
        return [" ".join(f'"{c}"' for c in low)]
    if len(low) == 1:
        return [f"[{low}-{high}]"]
    if low[0] == high[0]:
        return [f'"{low[0]}" ( {alt_} )' for alt_ in
                [" | ".join(_digits_between(low[1:], high[1:]))]]
    rest = len(low) - 1
    low_full, high_full = low[1:] == "0" * rest, high[1:] == "9" * rest
    parts = []
    if not low_full:
        parts.append(f'"{low[0]}" ( {" | ".join(_digits_between(low[1:], "9" * rest))} )')
    first = int(low[0]) + (0 if low_full else 1)
    last = int(high[0]) - (0 if high_full else 1)
    if first <= last:
        parts.append(f"[{first}-{last}]" + " [0-9]" * rest)
    if not high_full:
        parts.append(f'"{high[0]}" ( {" | ".join(_digits_between("0" * rest, high[1:]))} )')
    return parts



