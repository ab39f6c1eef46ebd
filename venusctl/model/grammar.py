"""A GBNF grammar, generated from a surface's action set, that answers are held to.

It accepts every answer `venusctl.core.actions.parse` accepts in the model's form
(`[<think>]THOUGHT</think> … <action>Name(key=value, …)</action>`), bounded only by
the token budget, and refuses what the parser would refuse wherever that is cheap
to say:
  - the thought holds any characters until the first `</think>` (any case), `<`
    included; between `</think>` and `<action>` only a few spaces or newlines (the
    trained form: free text there would let a confused model ramble to `max_tokens`
    without ever acting, which the parser would refuse anyway for lack of an action);
  - names and keywords of the surface (the browser's names in any case, with `_`
    anywhere), keyword arguments in any order, each at most once, a trailing comma,
    up to `SPACE_CHARS` of ASCII white space between the parts of a call;
  - the tags as the model writes them, `<action>` and `</action>` in lower case;
  - quoted strings read as `venusctl.core.literals` reads them and bounded by the
    parser's limits (`grammar_strings.py`: a quote closes the string only when a `,`,
    `)` or `]` follows, so `'Joe's Pizza'` is one string; escapes; raw newlines;
    never `</action>`, the first one ends the block; file names at most 255
    characters, counted exactly; text, names and paths at most their limits in units);
  - numbers in the parser's ranges: coordinates 0..999 (decimals too, as long as
    they round onto the grid), amounts, repeats, indexes, durations; key names and
    addresses within the parser's lengths.

Strings and the thought are finite automata written out as one rule per state
(`grammar_automata.py`), each rule ending in a reference to the next: llama.cpp
follows such tail references without growing its parse stack, so a 3,000-character
thought costs no more per token than a short one. The grammar is built from
`ACTION_SETS`, so a new action or argument needs no change here.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from venusctl.core.actions import (
    ACTION_SETS,
    GRID_MAX,
    MAX_KEY_CHARS,
    MAX_KEYS,
    MAX_REPEAT,
    MAX_SEQUENCE,
    TERMINAL,
    Arg,
    Spec,
    Surface,
)
from venusctl.model.grammar_automata import END, State, cases, charset, emit, escape, kmp
from venusctl.model.grammar_strings import QUOTES, WHITESPACE, add_string

HOST_CHARS = 253
URL_PATH_CHARS = 1700
"""Scheme, host, port and path together stay under the parser's 2,048 characters."""
URL_CLASS = (r"!#-&(-;=-\[\]-~\u00a1-\u167f\u1681-\u1fff\u200b-\u2027\u202a-\u202e"
             r"\u2030-\u205e\u2060-\u2fff\u3001-\U0010ffff")
"""Characters a URL may hold: printable, no quote, backslash, `<` or `str.isspace`."""
GAP_CHARS = 8
"""Spaces and newlines allowed between `</think>` and `<action>`."""
SPACE_CHARS = 8
"""Spaces, tabs and newlines allowed between the parts of a call (`Click( point = …`,
a Sequence laid out over lines); the parser takes any amount of any white space, but
the model writes at most a space or a line break, and a bound keeps a confused model
from spending its token budget on white space."""


@dataclass(frozen=True)
class GrammarOptions:
    """How the answer starts: thinking on or off, and whether the template already
    opened the thought inside the prompt (then the answer starts inside it)."""

    thinking: bool = True
    think_opened: bool = True


def action_grammar(surface: Surface, options: GrammarOptions | None = None) -> str:
    """The GBNF grammar for one navigation answer on `surface`."""
    options = options or GrammarOptions()
    rules: dict[str, str] = {}
    opening = '"<think>" ' if options.thinking and not options.think_opened else ""
    thought = "th-0 " if options.thinking else ""
    rules["root"] = f"{opening}{thought}gap open sp action sp close"
    if options.thinking:
        _add_until(rules, "th", "</think>")
    rules["gap"] = f"[ \\t\\r\\n]{{0,{GAP_CHARS}}}"
    rules["open"] = '"<action>"'
    rules["close"] = '"</action>"'
    rules["sp"] = f"[ \\t\\r\\n]{{0,{SPACE_CHARS}}}"
    rules["sep"] = 'sp "," sp'
    rules["comma"] = '( sp "," )?'
    specs = ACTION_SETS[surface]
    rules["action"] = " | ".join(_rule_name(name) for name in specs)
    for name, spec in specs.items():
        rules[_rule_name(name)] = _action_rule(name, spec, surface)
    _add_values(rules, surface)
    return "\n".join(f"{name} ::= {body}" for name, body in rules.items()) + "\n"


# ------------------------------------------------------------------ the thought


def _add_until(rules: dict[str, str], prefix: str, stop: str) -> None:
    """Any characters up to and including the first `stop` (any case)."""
    advance = kmp(stop)

    def step(k: State, char: str) -> State | None:
        nxt = advance(int(k), char or "\uffff")  # type: ignore[arg-type]
        return END if nxt == len(stop) else nxt

    emit(rules, prefix, 0, step, cases(stop))


# ------------------------------------------------------------------ actions


def _rule_name(action: str) -> str:
    return "act-" + action.lower()


def _action_rule(name: str, spec: Spec, surface: Surface) -> str:
    """`Name(` keyword arguments in any order, each given at most once `)`."""
    required = [key for key, arg in spec.args.items() if arg.required]
    optional = [key for key, arg in spec.args.items() if not arg.required]
    alternatives = []
    for size in range(len(optional) + 1):
        for extra in itertools.combinations(optional, size):
            keys = [*required, *extra]
            if spec.one_of and not set(keys) & set(spec.one_of):
                continue
            for order in itertools.permutations(keys):
                alternatives.append(" sep ".join(_keyword(k, spec.args[k]) for k in order))
    filled = [f"( {alt} )" for alt in alternatives if alt]
    body = " | ".join(filled)
    args = f"( {body} ) comma"
    if "" in alternatives:
        args = f"( {args} )?" if body else ""
    title = _browser_name(name) if surface is Surface.BROWSER else f'"{name}"'
    return f'{title} sp "(" sp {args} sp ")"'.replace("sp  sp", "sp")


def _browser_name(name: str) -> str:
    """The browser's action names: any case, `_` anywhere (`select_option`, `GETURL`)."""
    letters = " ".join(f'{_any_case(c)} "_"*' for c in name)
    return f'"_"* {letters}'


def _any_case(text: str) -> str:
    return " ".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else f'"{c}"' for c in text)


def _keyword(key: str, arg: Arg) -> str:
    if arg.field == "point" and key in ("point", "box"):
        literal = '( "point" | "box" )'
    else:
        literal = f'"{key}"'
    return f'{literal} sp "=" sp v-{arg.kind}'


def _add_values(rules: dict[str, str], surface: Surface) -> None:
    """One rule per value kind the parser reads (`venusctl.core.actions._READERS`)."""
    rules["v-point"] = ('"(" sp coord sep coord comma sp ")" | '
                        '"[" sp coord sep coord comma sp "]"')
    below = _int_range(0, GRID_MAX - 1)
    rules["coord"] = (f'( {below} ) ( "." [0-9]* )? | '
                      f'"{GRID_MAX}" ( "." ( [0-4] [0-9]* )? )?')
    for kind in ("text", "name", "file", "filename"):
        add_string(rules, kind)
    rules["v-url"] = r'''"'" url "'" | "\"" url "\""'''
    rules["url"] = (f'[hH] [tT] [tT] [pP] [sS]? "://" host-char{{1,{HOST_CHARS}}} ( ":" port )? '
                    f'( [/?#] url-char{{0,{URL_PATH_CHARS}}} )?')
    rules["host-char"] = "[a-zA-Z0-9._%\\u00a1-\\U0010ffff-]"
    rules["port"] = _int_range(1, 65535)
    rules["url-char"] = f"[{URL_CLASS}]"
    rules["v-amount"] = f'"-"? ( {_int_range(0, 4096)} )'
    rules["v-repeat"] = _int_range(1, MAX_REPEAT)
    rules["v-index"] = _int_range(0, 10000)
    rules["v-duration"] = ('( [1-9] | [12] [0-9] ) ( "." [0-9]* )? | "30" ( "." "0"* )? | '
                           '"0"? "." "0"* [1-9] [0-9]*')
    rules["v-axis"] = _choice("vertical", "horizontal")
    rules["v-direction"] = _choice("up", "down", "left", "right")
    _add_keys(rules)
    if "Sequence" in ACTION_SETS[surface]:
        _add_sequence(rules, surface)


def _add_keys(rules: dict[str, str]) -> None:
    """Key names: quoted, not blank, no `<` (but the key `<` itself), ≤ 1,024 chars."""
    solid = "".join(c for c in WHITESPACE)
    for quote, tag in zip(QUOTES, ("sq", "dq"), strict=True):
        q = escape(quote)
        plain = charset([quote, "\\", "<", "\0"], negate=True)
        first = charset([quote, "\\", "<", "\0", *solid], negate=True)
        rules[f"{tag}-kc"] = f'{plain} | "\\\\" [^\\x00]'
        rules[f"{tag}-key"] = (f'"{q}" ( {first} | "\\\\" [^\\x00] ) '
                               f'{tag}-kc{{0,{MAX_KEY_CHARS - 1}}} "{q}" | "{q}<{q}"')
    rules["key"] = "sq-key | dq-key"
    for kind, limit in (("keys3", 3), ("keys128", MAX_KEYS)):
        more = f"( sep key ){{0,{limit - 1}}}"
        rules[f"v-{kind}"] = (f'"[" sp key {more} comma sp "]" | '
                              f'"(" sp key {more} comma sp ")" | key')


def _add_sequence(rules: dict[str, str], surface: Surface) -> None:
    """2..MAX_SEQUENCE children, no nesting, an episode-ending action only last."""
    specs = ACTION_SETS[surface]
    inner = [n for n in specs if n != "Sequence"]
    ending = [n for n in inner if specs[n].cls in TERMINAL]
    middle = [n for n in inner if n not in ending]
    rules["child-mid"] = " | ".join(_rule_name(n) for n in middle)
    rules["child-any"] = " | ".join(_rule_name(n) for n in inner)
    body = f"child-mid ( sep child-mid ){{0,{MAX_SEQUENCE - 2}}} sep child-any comma"
    rules["v-actions"] = f'"[" sp {body} sp "]" | "(" sp {body} sp ")"'


# ------------------------------------------------------------------ GBNF pieces


def _choice(*words: str) -> str:
    options = " | ".join(f'"{w}"' for w in words)
    return f"\"'\" ( {options} ) \"'\" | " + f'"\\"" ( {options} ) "\\""'


def _int_range(low: int, high: int) -> str:
    """Decimal integers low..high without leading zeros, as alternatives by length."""
    alternatives = []
    for digits in range(len(str(low)), len(str(high)) + 1):
        start = max(low, 10 ** (digits - 1) if digits > 1 else 0)
        stop = min(high, 10 ** digits - 1)
        if start <= stop:
            alternatives.extend(_digits_between(str(start), str(stop)))
    return " | ".join(alternatives)


def _digits_between(low: str, high: str) -> list[str]:
    """Patterns for same-length numbers low..high (the classic range-to-regex split)."""
    if low == high:
        return [" ".join(f'"{c}"' for c in low)]
    if len(low) == 1:
        return [f"[{low}-{high}]"]
    if low[0] == high[0]:
        return [f'"{low[0]}" ( {alt} )' for alt in
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
