"""GBNF read back in Python: the longest text a rule admits, and texts generated from a
grammar's own rules, pushed towards every limit it sets.

Written independently of the grammar generator (`venusctl.model.grammar`): it parses
the GBNF text itself, the way llama.cpp does (literals, classes with ranges and
negation, rule references, groups, `|`, `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}`), so
what it says about a grammar is a second opinion, not a restatement. Tests also feed
every generated text through llama.cpp's own grammar engine, which checks this reader.
"""

from __future__ import annotations

import functools
import random
import re
from dataclasses import dataclass

INFINITE = 10**12

Node = tuple  # ("lit", text) | ("cls", negated, ranges) | ("ref", name) | ("alt", [seq])
#               | ("seq", [node]) | ("rep", node, low, high)

INTERESTING = ("'", '"', "\\", " ", ",", ")", "]", "(", "[", "<", "/", ".", ">", "\n", "\t",
               "\x1e", "\x85", "\u3000", "é", "中", "😀", "a", "A", "_", "-", "0", "9", "u",
               "n", "x", "#", "?", ":", "=")


@dataclass
class Grammar:
    rules: dict[str, Node]
    _complete = False

    @classmethod
    def parse(cls, text: str) -> Grammar:
        rules = {}
        for line in text.splitlines():
            if not line.strip():
                continue
            name, body = line.split(" ::= ", 1)
            rules[name.strip()] = _parsed_body(body, name)
        return cls(rules)

    # ------------------------------------------------------------------ longest

    def longest(self, rule: str, measure: str = "chars") -> int:
        """The most characters (or UTF-8 bytes) any text `rule` admits; INFINITE when a
        rule can repeat without bound."""
        memo = self._longest_memo.setdefault(measure, {})
        if rule in memo:
            return memo[rule]
        order = self._post_order(rule)
        for name in order:
            if name not in memo:
                memo[name] = min(INFINITE, self._node_longest(self.rules[name], memo, measure))
        return memo[rule]

    @property
    def _longest_memo(self) -> dict[str, dict[str, int]]:
        if not hasattr(self, "_memo"):
            self._memo: dict[str, dict[str, int]] = {}
        return self._memo

    def _post_order(self, *roots: str) -> list[str]:
        """Rules reachable from `roots`, each after the rules it refers to; a rule met
        again while still open is part of a cycle (marked by `_cyclic`)."""
        if not hasattr(self, "_cyclic"):
            self._cyclic: set[str] = set()
        order, state = [], {}
        stack = [(root, False) for root in reversed(roots)]
        while stack:
            name, done = stack.pop()
            if done:
                state[name] = 2
                order.append(name)
                continue
            if state.get(name) == 2:
                continue
            if state.get(name) == 1:
                continue
            state[name] = 1
            stack.append((name, True))
            for ref in _refs(self.rules[name]):
                if state.get(ref) == 1:
                    self._cyclic.add(ref)
                elif state.get(ref) is None:
                    stack.append((ref, False))
        return order

    def _node_longest(self, node: Node, memo: dict[str, int], measure: str) -> int:
        key = (id(node), measure)
        cache = self.__dict__.setdefault("_node_cache", {})
        if key in cache and node[0] != "ref":
            return cache[key]
        value = self._node_longest_uncached(node, memo, measure)
        if node[0] != "ref" and memo is self._longest_memo.get(measure) and self._complete:
            cache[key] = value
        return value

    def _node_longest_uncached(self, node: Node, memo: dict[str, int], measure: str) -> int:
        kind = node[0]
        if kind == "lit":
            return len(node[1]) if measure == "chars" else len(node[1].encode("utf-8"))
        if kind == "cls":
            if measure == "chars":
                return 1
            return max(_utf8_len(high) for _, high in _class_ranges(node))
        if kind == "ref":
            if node[1] in self._cyclic:
                return INFINITE
            return memo.get(node[1], INFINITE)
        if kind == "alt":
            return max(self._node_longest(n, memo, measure) for n in node[1])
        if kind == "seq":
            return sum(self._node_longest(n, memo, measure) for n in node[1])
        _, inner, _low, high = node
        one = self._node_longest(inner, memo, measure)
        if high is None:
            return INFINITE if one else 0
        return one * high

    # ------------------------------------------------------------------ generating

    def generate(self, rule: str, rng: random.Random, pressure: float = 0.8,
                 soft_cap: int = 400) -> str:
        """A text `rule` admits. With probability `pressure` each choice goes to the
        longest option (the most repeats, the alternative with the longest texts), so
        texts run up to the limits the grammar sets; unbounded parts (a thought) stop
        growing after about `soft_cap` characters by taking their shortest way out."""
        self.longest(rule, "bytes")
        self._complete = True  # every rule reachable from `rule` has its longest now
        shortest = self._shortest_all()
        out: list[str] = []
        size = 0
        stack: list[Node] = [("ref", rule)]
        while stack:
            node = stack.pop()
            kind = node[0]
            if kind == "lit":
                out.append(node[1])
                size += len(node[1])
            elif kind == "cls":
                char = _pick_char(node, rng)
                out.append(char)
                size += 1
            elif kind == "ref":
                stack.append(self.rules[node[1]])
            elif kind == "seq":
                stack.extend(reversed(node[1]))
            elif kind == "alt":
                stack.append(self._choose(node[1], rng, pressure, size > soft_cap, shortest))
            else:
                _, inner, low, high = node
                stack.extend([inner] * self._count(low, high, rng, pressure, size > soft_cap))
        return "".join(out)

    def _choose(self, options: list[Node], rng: random.Random, pressure: float, capped: bool,
                shortest: dict[str, int]) -> Node:
        """Longest in bytes: that is also the most characters as a parser counts them
        (a 4-byte character counts one, an escape's six bytes may count one)."""
        memo = self._longest_memo["bytes"]
        finite = [(length, n) for n in options
                  if (length := self._node_longest(n, memo, "bytes")) < INFINITE]
        if capped and len(finite) < len(options):  # an unbounded part: find its way out
            return min(options, key=lambda n: self._node_shortest(n, shortest))
        if finite and rng.random() < pressure:
            return max(finite, key=lambda pair: (pair[0], rng.random()))[1]
        return rng.choice(options)

    @staticmethod
    def _count(low: int, high: int | None, rng: random.Random, pressure: float,
               capped: bool) -> int:
        if high is None:
            return low if capped else low + int(rng.expovariate(0.3))
        if rng.random() < pressure:
            return high
        return rng.randint(low, high)

    def _shortest_all(self) -> dict[str, int]:
        """The fewest characters each rule can end in (a fixed point; cycles allowed)."""
        if hasattr(self, "_shortest"):
            return self._shortest
        best = {name: INFINITE for name in self.rules}
        order = self._post_order(*self.rules)  # referred first: one pass settles all but cycles
        changed = True
        while changed:
            changed = False
            for name in order:
                value = self._node_shortest(self.rules[name], best)
                if value < best[name]:
                    best[name] = value
                    changed = True
        self._shortest = best
        return best

    def _node_shortest(self, node: Node, best: dict[str, int]) -> int:
        kind = node[0]
        if kind == "lit":
            return len(node[1])
        if kind == "cls":
            return 1
        if kind == "ref":
            return best[node[1]]
        if kind == "alt":
            return min(self._node_shortest(n, best) for n in node[1])
        if kind == "seq":
            return min(INFINITE, sum(self._node_shortest(n, best) for n in node[1]))
        _, inner, low, _high = node
        return min(INFINITE, low * self._node_shortest(inner, best)) if low else 0


# ------------------------------------------------------------------ reading GBNF


_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.S)
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "[": "[", "]": "]",
           "-": "-", "^": "^"}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def _space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def alternatives(self) -> Node:
        options = [self.sequence()]
        while True:
            self._space()
            if self.pos < len(self.text) and self.text[self.pos] == "|":
                self.pos += 1
                options.append(self.sequence())
            else:
                break
        return options[0] if len(options) == 1 else ("alt", options)

    def sequence(self) -> Node:
        items = []
        while True:
            self._space()
            if self.pos >= len(self.text) or self.text[self.pos] in "|)":
                break
            items.append(self._quantified(self._atom()))
        return items[0] if len(items) == 1 else ("seq", items)

    def _atom(self) -> Node:
        char = self.text[self.pos]
        if char == '"':
            return ("lit", self._literal())
        if char == "[":
            return self._class()
        if char == "(":
            self.pos += 1
            inner = self.alternatives()
            self._space()
            assert self.text[self.pos] == ")", self.text[self.pos:][:30]
            self.pos += 1
            return inner
        match = re.compile(r"[a-zA-Z0-9-]+").match(self.text, self.pos)
        if not match:
            raise ValueError(f"unexpected {self.text[self.pos:][:30]!r}")
        self.pos = match.end()
        return ("ref", match.group())

    def _quantified(self, node: Node) -> Node:
        if self.pos >= len(self.text):
            return node
        char = self.text[self.pos]
        if char in "*+?":
            self.pos += 1
            return ("rep", node, 1 if char == "+" else 0, 1 if char == "?" else None)
        if char == "{":
            end = self.text.index("}", self.pos)
            spec = self.text[self.pos + 1:end]
            self.pos = end + 1
            if "," not in spec:
                return ("rep", node, int(spec), int(spec))
            low, high = spec.split(",")
            return ("rep", node, int(low), int(high) if high else None)
        return node

    def _char(self) -> str:
        if self.text[self.pos] != "\\":
            char = self.text[self.pos]
            self.pos += 1
            return char
        match = _ESCAPE.match(self.text, self.pos)
        assert match
        self.pos = match.end()
        body = match.group(1)
        if body[0] in "xuU" and len(body) > 1:
            return chr(int(body[1:], 16))
        return _SIMPLE.get(body, body)

    def _literal(self) -> str:
        self.pos += 1
        out = []
        while self.text[self.pos] != '"':
            out.append(self._char())
        self.pos += 1
        return "".join(out)

    def _class(self) -> Node:
        self.pos += 1
        negated = self.text[self.pos] == "^"
        if negated:
            self.pos += 1
        ranges = []
        while self.text[self.pos] != "]":
            low = self._char()
            high = low
            if self.text[self.pos] == "-" and self.text[self.pos + 1] != "]":
                self.pos += 1
                high = self._char()
            ranges.append((ord(low), ord(high)))
        self.pos += 1
        return ("cls", negated, tuple(ranges))


_BODIES: dict[str, Node] = {}


def _parsed_body(body: str, name: str) -> Node:
    """A rule body's tree. The grammars the tests build for different surfaces and
    budgets share most string rules word for word (two thirds of their text), so each
    body is read once per process; a tree holds no state and refers to rules only by
    name, so one grammar's use of it never affects another's."""
    node = _BODIES.get(body)
    if node is None:
        parser = _Parser(body)
        node = parser.alternatives()
        if parser.pos != len(body):
            raise ValueError(f"trailing text in rule {name}: {body[parser.pos:][:40]!r}")
        _BODIES[body] = node
    return node


def _refs(node: Node) -> list[str]:
    kind = node[0]
    if kind == "ref":
        return [node[1]]
    if kind in ("alt", "seq"):
        return [r for n in node[1] for r in _refs(n)]
    if kind == "rep":
        return _refs(node[1])
    return []


def _utf8_len(code: int) -> int:
    return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4


def _class_ranges(node: Node) -> list[tuple[int, int]]:
    """The code points a class matches (NUL and surrogates never)."""
    _, negated, ranges = node
    if not negated:
        return [r for r in ranges if r[1] > 0]
    out, nxt = [], 1
    for low, high in sorted(ranges):
        if low > nxt:
            out.append((nxt, low - 1))
        nxt = max(nxt, high + 1)
    if nxt <= 0x10FFFF:
        out.append((nxt, 0x10FFFF))
    return out


def _matches(ranges: list[tuple[int, int]], char: str) -> bool:
    return any(low <= ord(char) <= high for low, high in ranges)


@functools.cache
def _class_choices(node: Node) -> tuple[list[tuple[int, int]], list[str]]:
    ranges = [(lo, hi) for lo, hi in _class_ranges(node)
              if not (lo >= 0xD800 and hi <= 0xDFFF)]
    return ranges, [c for c in INTERESTING if _matches(ranges, c)]


def _pick_char(node: Node, rng: random.Random) -> str:
    """A character of the class: one of the characters that matter to the parser when
    the class holds it (most of the time), else any, of any UTF-8 length."""
    ranges, candidates = _class_choices(node)
    if candidates and rng.random() < 0.6:
        return rng.choice(candidates)
    while True:
        low, high = rng.choice(ranges)
        char = chr(rng.randint(low, min(high, low + 0xFFFF)))
        if not 0xD800 <= ord(char) <= 0xDFFF:
            return char
