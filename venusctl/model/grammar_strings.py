"""Quoted strings of the action grammar: read as the literal reader reads them, bounded
as the parser bounds them.

Reading (`StringMachine`): a quote closes the string only when a `,`, `)` or `]`
follows (spaces allowed), so `'Joe's Pizza'` is one string; escapes; raw newlines;
never `</action>` (the first one ends the block); and what each kind demands of its
characters (a name is not blank, a path has no empty, `.` or `..` part, a file name
no folder part).

Bounding: each kind is held to the parser's own limit (`venusctl.core.actions`: text
4,000 characters, names 200, upload paths 1,024, file names 255), counted two ways
because an exact count needs the automaton's state at every length:
  - file names are counted exactly, character by character as the reader decodes
    them (an escape is one character, the spaces the parser strips count for
    nothing): the automaton is written out once per length (a file name cannot
    hold `/`, so it needs no `</action>` guard and minimises to 7 states); a random
    model that runs on writing a name is stopped at 255;
  - text, names and paths are counted in *units* with llama.cpp's own bounded
    repetition, which keeps the grammar small: a unit is one character or escape,
    except that an in-string quote with the spaces and the character after it, a
    `<` with the characters that show it does not start `</action>`, and a path's
    `/` or space with the character after it each count as one. So the grammar never
    refuses a string the parser takes, and lets through a string the parser finds
    too long only by as many characters as such quotes, `<` and separators add.
Written out exactly, text alone would take some 40 MB of grammar (12 states times
4,000 lengths), which llama.cpp would parse on every answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from venusctl.core.actions import MAX_FILENAME, MAX_NAME, MAX_PATH, MAX_TEXT
from venusctl.model.grammar_automata import (
    END,
    State,
    at_most,
    cases,
    charset,
    charset_of,
    emit,
    escape,
    kmp,
)

WHITESPACE = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
"""Every character `str.isspace` (the literal reader's idea of a space) accepts."""
CLOSERS = ",)]"
QUOTES = "'\""
HEX = "0123456789abcdefABCDEF"
ESCAPED_ONE = "ntr\\'\"0"
"""Escapes the literal reader turns into one character (any other `\\x` stays two)."""

SHARED_CHARS = 24
"""Character classes longer than this are shared rules in the exact count."""

_GUARD = kmp("</action>")
_GUARD_LEN = len("</action>")


# ------------------------------------------------------------------ kinds


def _content_text(state: State, kind: str) -> State | None:
    return 0


def _content_name(state: State, kind: str) -> State | None:
    """Non-blank: at least one character that is not a space."""
    return state if kind == "ws" else 1


_FILE_STEPS: dict[str, dict[str, str | None]] = {
    # segments of a relative path: none empty, `.` or `..`; no space first or last
    "start": {"ws": None, "/": None, ".": "d1", "x": "ok"},
    "seg": {"ws": None, "/": None, ".": "d1", "x": "ok"},
    "d1": {"ws": "okw", "/": None, ".": "d2", "x": "ok"},
    "d2": {"ws": "okw", "/": None, ".": "ok", "x": "ok"},
    "ok": {"ws": "okw", "/": "seg", ".": "ok", "x": "ok"},
    "okw": {"ws": "okw", "/": "seg", ".": "ok", "x": "ok"},
}
_FILENAME_STEPS: dict[str, dict[str, str | None]] = {
    # one name, stripped: not `.` or `..` (`. .` is a name), no folder separator
    "start": {"ws": "start", "/": None, ".": "d1", "x": "ok"},
    "d1": {"ws": "dw", "/": None, ".": "d2", "x": "ok"},
    "d2": {"ws": "dw", "/": None, ".": "ok", "x": "ok"},
    "dw": {"ws": "dw", "/": None, ".": "ok", "x": "ok"},
    "ok": {"ws": "ok", "/": None, ".": "ok", "x": "ok"},
}


@dataclass(frozen=True)
class Kind:
    """What a string kind demands of its characters (a small automaton over character
    kinds), and how long the parser lets it be.

    `base`: the content state most of the string is read in (units are counted from
    there); `free_ws`: content states whose spaces the parser strips (leading spaces,
    and for file names those after a leading `.`, which count for nothing).
    """

    start: State
    step: Callable[[State, str], State | None]
    accepting: Callable[[State], bool]
    escapes: str  # the characters a backslash may escape ("" for any)
    limit: int
    base: State
    exact: bool = False
    strips: bool = True
    free_ws: frozenset[State] = field(default_factory=frozenset)


KINDS = {
    "text": Kind(0, _content_text, lambda s: True, "", MAX_TEXT, base=0, strips=False),
    "name": Kind(0, _content_name, lambda s: s == 1, "", MAX_NAME, base=1,
                 free_ws=frozenset({0})),
    # paths and file names: only quotes escaped (other escapes can make a backslash)
    "file": Kind("start", lambda s, k: _FILE_STEPS[str(s)][k], lambda s: s == "ok", QUOTES,
                 MAX_PATH, base="ok"),
    "filename": Kind("start", lambda s, k: _FILENAME_STEPS[str(s)][k], lambda s: s == "ok",
                     QUOTES, MAX_FILENAME, base="ok", exact=True,
                     free_ws=frozenset({"start"})),
}


def _kind_of(char: str) -> str:
    if char and char in WHITESPACE:
        return "ws"
    if char in ("/", "\\"):
        return "/"
    return "." if char == "." else "x"


# ------------------------------------------------------------------ reading


class StringMachine:
    """One character of a string's body at a time, as `venusctl.core.literals` reads it.

    States: ("s", guard, c) inside the text; ("e", c) after a backslash; ("u", n, c)
    after `\\u` and n hex digits; ("q", c_before, c_after) right after a quote that may
    close the string; ("w", c) after that quote and spaces. `guard` is progress
    through `</action>`, `c` the kind's content state. "" stands for every character
    outside `alphabet`.
    """

    def __init__(self, quote: str, kind: Kind) -> None:
        self.quote = quote
        self.kind = kind
        self.start: State = ("s", 0, kind.start)
        self.base: State = ("s", 0, kind.base)
        escaped = HEX + "u" + ESCAPED_ONE if not kind.escapes else ""
        self.alphabet = list(dict.fromkeys([*QUOTES, "\\", *WHITESPACE, *CLOSERS,
                                            *cases("</action>"), ".", "/", *escaped]))

    def accepting(self, state: State) -> bool:
        return state[0] == "q" and self.kind.accepting(state[1])  # type: ignore[index]

    def step(self, state: State, char: str) -> State | None:
        mode = state[0]  # type: ignore[index]
        if mode == "u":
            _, count, c = state  # type: ignore[misc]
            if char and char in HEX:
                return ("u", count + 1, c) if count < 3 else ("s", 0, c)
            return self.step(("s", 0, c), char)
        if mode == "e":
            escapes = self.kind.escapes
            if escapes and (not char or char not in escapes):
                return None
            nxt = self._plain(0, state[1], char if char != "\\" else "x")  # type: ignore[index]
            if char == "u" and not escapes and nxt is not None:
                return ("u", 0, nxt[2])  # type: ignore[index]
            return nxt
        if char == self.quote:
            c = state[2] if mode in ("s", "q") else state[1]  # type: ignore[index]
            after = self.kind.step(c, "x")
            return None if after is None else ("q", c, after)
        if mode == "s":
            return self._plain(state[1], state[2], char)  # type: ignore[index]
        c = state[2] if mode == "q" else state[1]  # type: ignore[index]
        if char and char in WHITESPACE:
            c2 = self.kind.step(c, "ws")
            return None if c2 is None else ("w", c2)
        if char and char in CLOSERS:
            return None  # the quote before would have closed the string
        return self._plain(0, c, char)

    def _plain(self, guard: int, c: State, char: str) -> State | None:
        if char == "\\":
            return ("e", c)
        nxt = _GUARD(guard, char or "\uffff")
        if nxt == _GUARD_LEN:
            return None
        c2 = self.kind.step(c, _kind_of(char))
        return None if c2 is None else ("s", nxt, c2)

    def weight(self, state: State, char: str, nxt: State) -> int:
        """How many characters of the decoded string this step adds. A quote counts
        once the next character shows it does not close the string."""
        mode = state[0]  # type: ignore[index]
        if mode in ("q", "w"):
            pending = 0 if nxt[0] == "w" else 1  # type: ignore[index]
            return pending + self._weight(("s", 0, nxt_content(nxt)), char)
        if mode == "u":
            return 0 if char and char in HEX else self._weight(("s", 0, state[2]), char)  # type: ignore[index]
        return self._weight(state, char)

    def _weight(self, state: State, char: str) -> int:
        mode = state[0]  # type: ignore[index]
        if mode == "e":
            return 1 if char and (char in ESCAPED_ONE or char == "u") else 2
        if char in ("\\", self.quote):
            return 0
        content = state[2]  # type: ignore[index]
        return 0 if char and char in WHITESPACE and content in self.kind.free_ws else 1


def nxt_content(state: State) -> State:
    """The content state a machine state carries."""
    return state[2] if state[0] in ("s", "u") else state[-1]  # type: ignore[index]


def add_string(rules: dict[str, str], kind_name: str) -> str:
    """Rules for a quoted string of one kind; returns the value rule's name."""
    kind = KINDS[kind_name]
    names = []
    for quote, tag in zip(QUOTES, ("sq", "dq"), strict=True):
        machine = StringMachine(quote, kind)
        if kind.exact:
            entry = _add_counted(rules, f"{tag}{kind_name[0]}", machine)
        else:
            entry = _add_units(rules, f"{tag}-{kind_name}", machine)
        names.append(f'"{escape(quote)}" {entry}')
    rules[f"v-{kind_name}"] = " | ".join(names)
    return f"v-{kind_name}"


# ------------------------------------------------------------------ exact counting


def _explore(machine: StringMachine) -> dict[State, dict[str, tuple[State, int]]]:
    """Every state reachable from the start, with its moves: char -> (next, weight)."""
    moves: dict[State, dict[str, tuple[State, int]]] = {}
    queue = [machine.start]
    while queue:
        state = queue.pop()
        if state in moves:
            continue
        moves[state] = {}
        for char in [*machine.alphabet, ""]:
            nxt = machine.step(state, char)
            if nxt is None:
                continue
            moves[state][char] = (nxt, machine.weight(state, char, nxt))
            queue.append(nxt)
    return moves


def _minimise(machine: StringMachine, moves: dict[State, dict[str, tuple[State, int]]],
              ) -> dict[State, int]:
    """Equivalent states merged (Moore's refinement): state -> class number."""
    part = {s: (machine.accepting(s), _trails(machine, s)) for s in moves}
    classes = len(set(part.values()))
    while True:
        signature = {s: (part[s], tuple(sorted((c, part[n], w) for c, (n, w) in m.items())))
                     for s, m in moves.items()}
        numbers: dict[object, int] = {}
        new = {s: numbers.setdefault(signature[s], len(numbers)) for s in moves}
        if len(numbers) == classes:
            return new
        part, classes = new, len(numbers)  # type: ignore[assignment]


def _trails(machine: StringMachine, state: State) -> bool:
    """Whether spaces and then a closing quote may end the string here (the parser
    strips trailing spaces, so they count for nothing)."""
    if not machine.kind.strips:
        return False
    spaced = machine.step(state, " ")
    closed = machine.step(spaced, machine.quote) if spaced is not None else None
    return closed is not None and machine.accepting(closed)


def _add_counted(rules: dict[str, str], prefix: str, machine: StringMachine) -> str:
    """The automaton written once per count of decoded characters (0..limit): rule
    `prefixC-N` is state class C with N characters read."""
    moves = _explore(machine)
    classes = _minimise(machine, moves)
    spaces = f"{prefix}-sp"
    rules[spaces] = f"{charset(WHITESPACE)}+ \"{escape(machine.quote)}\""
    shared: dict[str, str] = {}
    written: dict[str, str] = {}
    seen = {(classes[machine.start], 0)}
    queue = [(machine.start, 0)]
    while queue:
        state, used = queue.pop()
        choices = []
        for nxt, count, chars in _grouped(moves[state], classes, used, machine.kind.limit):
            chars_rule = _shared(rules, shared, f"{prefix}-c", charset_of(chars, machine.alphabet))
            choices.append(f"{chars_rule} {prefix}{classes[nxt]}-{count}")
            if (classes[nxt], count) not in seen:
                seen.add((classes[nxt], count))
                queue.append((nxt, count))
        pending = 1 if state[0] in ("q", "w") else 0  # type: ignore[index]
        if _trails(machine, state) and used + pending <= machine.kind.limit:
            choices.append(spaces)  # a quote before the spaces is part of the name
        written[f"{prefix}{classes[state]}-{used}"] = " | ".join(choices)
        if machine.accepting(state):
            written[f"{prefix}{classes[state]}-{used}"] += ' | ""'
    rules.update(_referring(written))
    return f"{prefix}{classes[machine.start]}-0"


def _referring(written: dict[str, str]) -> dict[str, str]:
    """Rules that are another rule plus an empty ending, written as that: a state right
    after a quote reads on as the state after the quote and a space does, but may
    also end the string there."""
    bodies = {body: name for name, body in written.items() if body}
    out = {}
    for name, body in written.items():
        other = bodies.get(body.removesuffix(' | ""')) if body.endswith(' | ""') else None
        out[name] = f'{other} | ""' if other and other != name else (body or '"\\x00" [^\\x00]')
    return out


def _shared(rules: dict[str, str], shared: dict[str, str], prefix: str, body: str) -> str:
    """A long character class written once as a rule of its own (it recurs in every
    count's copy of a state), a short one inline."""
    if len(body) <= SHARED_CHARS:
        return body
    if body not in shared:
        shared[body] = f"{prefix}{len(shared)}"
        rules[shared[body]] = body
    return shared[body]


def _grouped(moves: dict[str, tuple[State, int]], classes: dict[State, int], used: int,
             limit: int) -> Iterator[tuple[State, int, list[str]]]:
    """The moves within the limit, grouped by where they lead."""
    groups: dict[tuple[int, int], tuple[State, list[str]]] = {}
    for char, (nxt, weight) in moves.items():
        if used + weight <= limit:
            groups.setdefault((classes[nxt], used + weight), (nxt, []))[1].append(char)
    for (_, count), (nxt, chars) in groups.items():
        yield nxt, count, chars


# ------------------------------------------------------------------ units


def _add_units(rules: dict[str, str], prefix: str, machine: StringMachine) -> str:
    """The string as a lead-in to the base state, at most `limit` units from there
    (llama.cpp's bounded repetition), and an ending; or a short string that never
    reaches the base state. See the module docstring for what a unit is."""
    base, step = machine.base, machine.step

    def until(target: State | None) -> Callable[[State, str], State | None]:
        def move(state: State, char: str) -> State | None:
            nxt = step(state, char)
            return END if nxt == base and target is END else None if nxt == base else nxt
        return move

    emit(rules, f"{prefix}-u", base, until(END), machine.alphabet)
    emit(rules, f"{prefix}-t", base, until(None), machine.alphabet, machine.accepting)
    counted = f"{prefix}-u-0"
    spaces = f" {charset(WHITESPACE)}*" if machine.kind.strips and _trails(machine, base) else ""
    rules[f"{prefix}-b"] = f"{at_most(counted, machine.kind.limit - _lead_chars(machine))}" \
                           f"{spaces} {prefix}-t-0"
    if machine.start == base:
        return f"{prefix}-b"
    emit(rules, f"{prefix}-l", machine.start, until(END), machine.alphabet)
    emit(rules, f"{prefix}-s", machine.start, until(None), machine.alphabet, machine.accepting)
    rules[prefix] = f"{prefix}-l-0 {prefix}-b | {prefix}-s-0"
    return prefix


def _lead_chars(machine: StringMachine) -> int:
    """The fewest counted characters on any way from the start to the base state (the
    lead-in is not counted in units, so the units' bound is that much lower)."""
    best = {machine.start: 0}
    queue = [machine.start]
    while queue:
        state = queue.pop(0)
        if state == machine.base:
            continue
        for char in [*machine.alphabet, ""]:
            nxt = machine.step(state, char)
            if nxt is None:
                continue
            cost = best[state] + machine.weight(state, char, nxt)
            if cost < best.get(nxt, cost + 1):
                best[nxt] = cost
                queue.append(nxt)
    return best.get(machine.base, 0)
