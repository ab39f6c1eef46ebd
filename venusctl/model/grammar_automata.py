"""Finite automata written out as GBNF rules, and the small GBNF pieces they are made of.

An automaton is a start state and a step function `step(state, char)` giving the
next state, `END` (the rule ends after `char`) or None (refused). `emit` writes
the states reachable from the start as rules `prefix-N`, one per state, each
alternative ending in a reference to the next state's rule: llama.cpp follows such
tail references without growing its parse stack, so a long run through an
automaton costs no more per token than a short one.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from functools import lru_cache

from venusctl.model.grammar_pieces import escape

State = Hashable
Step = Callable[[State, str], "State | None"]
END = ("end",)


def emit(rules: dict[str, str], prefix: str, start: State, step: Step,
         alphabet: Iterable[str], accepting: Callable[[State], bool] | None = None) -> None:
    """Write the automaton reachable from `start` as rules `prefix-N`, one per state.

    `char` ranges over `alphabet` plus "" standing for every other character but
    NUL. `accepting(state)`: the rule may also end before any char.
    """
    alphabet = list(dict.fromkeys(alphabet))
    numbers: dict[State, int] = {start: 0}
    queue = [start]
    while queue:
        state = queue.pop(0)
        targets: dict[State, list[str]] = {}
        for char in [*alphabet, ""]:
            nxt = step(state, char)
            if nxt is None:
                continue
            targets.setdefault(nxt, []).append(char)
            if nxt != END and nxt not in numbers:
                numbers[nxt] = len(numbers)
                queue.append(nxt)
        choices = [charset_of(chars, alphabet) + ("" if nxt == END else f" {prefix}-{numbers[nxt]}")
                   for nxt, chars in targets.items()]
        if accepting is not None and accepting(state):
            choices.append('""')
        rules[f"{prefix}-{numbers[state]}"] = " | ".join(choices) or '"\\x00" [^\\x00]'


def charset_of(chars: list[str], alphabet: list[str]) -> str:
    """One character class for `chars` ("" standing for every character outside
    `alphabet` but NUL): listed when there is no "", else the alphabet's rest negated."""
    return _charset_of(tuple(chars), tuple(alphabet))


@lru_cache(maxsize=4096)
def _charset_of(chars: tuple[str, ...], alphabet: tuple[str, ...]) -> str:
    explicit = [c for c in chars if c]
    if "" not in chars:
        return charset(explicit)
    return charset([*(c for c in alphabet if c not in explicit), "\0"], negate=True)


def kmp(pattern: str) -> Callable[[int, str], int]:
    """Progress through `pattern` (any case) after one more character."""
    lowered = pattern.lower()

    def advance(k: int, char: str) -> int:
        text = lowered[:k] + char.lower()
        for size in range(min(len(text), len(lowered)), 0, -1):
            if text.endswith(lowered[:size]):
                return size
        return 0

    return advance


def cases(text: str) -> list[str]:
    """The characters of `text` in the case written, lower and upper case."""
    return list(dict.fromkeys(text + text.lower() + text.upper()))


def charset(chars: Iterable[str], negate: bool = False) -> str:
    body = "".join(escape(c) for c in dict.fromkeys(chars))
    return f"[{'^' if negate else ''}{body}]"
