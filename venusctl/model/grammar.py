"""A GBNF grammar, generated from a surface's action set, that every answer must match.

With it, a local model can only write a bounded thought, `</think>`, and exactly one
`<action>Name(key=value, …)</action>` that `venusctl.actions.parse` accepts:
known names, the surface's keywords, integer coordinates 0..999, quoted strings,
numbers in the parser's ranges. The grammar is built from `ACTION_SETS`, so a new
action or argument needs no change here.

Every bounded repetition is right-recursive inside llama.cpp, so its parse stack
stays shallow however long the thought is; the cost that matters is checking the
vocabulary, which `venusctl.model.sampler` keeps to the tokens that need it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from venusctl.actions import ACTION_SETS, GRID_MAX, MAX_SEQUENCE, TERMINAL, Arg, Spec, Surface

REPETITION_LIMIT = 2000
"""llama.cpp silently treats a bounded repetition above ~2000 as unbounded."""
THOUGHT_CHARS = 2000
"""Longest thought the grammar allows; past it the model must close `</think>`."""

TEXT_CHARS = 700
"""Repetitions of a text character (one may stand for up to 5 characters: `<<<<x`)."""
HOST_CHARS = 253
URL_PATH_CHARS = 1700
"""Scheme, host, port and path together stay under the parser's 2,048 characters."""
NAME_CHARS = 200
KEY_CHARS = 32
URL_CLASS = (r"!#-&(-;=-\[\]-~\u00a1-\u167f\u1681-\u1fff\u200b-\u2027\u202a-\u202e"
             r"\u2030-\u205e\u2060-\u2fff\u3001-\U0010ffff")
"""Characters a URL may hold: printable, no quote, backslash, `<` or `str.isspace`."""
SOLID_CLASS = r"!#-&(-;=-\[\]-~\u00a1-\U0010ffff"
"""A name's or key's first character: printable, no space, quote, backslash or `<`."""


@dataclass(frozen=True)
class GrammarOptions:
    """How the answer starts: whether the template already opened the thought."""

    thinking: bool = True
    think_opened: bool = True
    thought_chars: int = THOUGHT_CHARS


def action_grammar(surface: Surface, options: GrammarOptions | None = None) -> str:
    """The GBNF grammar for one navigation answer on `surface`."""
    options = options or GrammarOptions()
    if not 0 <= options.thought_chars <= REPETITION_LIMIT:
        raise ValueError(f"thought_chars must be 0..{REPETITION_LIMIT}")
    rules: dict[str, str] = {}
    rules["root"] = _root(options)
    rules["thought"] = f"[^<]{{0,{options.thought_chars}}}"
    rules["gap"] = "[ \\n]{0,2}"
    rules["sp"] = '" "?'
    rules["sep"] = '"," sp'
    rules["block"] = '"<action>" gap action gap "</action>"'
    specs = ACTION_SETS[surface]
    rules["action"] = " | ".join(_rule_name(name) for name in specs)
    for name, spec in specs.items():
        rules[_rule_name(name)] = _action_rule(name, spec)
    _add_values(rules, surface)
    return "\n".join(f"{name} ::= {body}" for name, body in rules.items()) + "\n"


def _root(options: GrammarOptions) -> str:
    if not options.thinking:
        return "block"
    opening = "" if options.think_opened else '"<think>" '
    return f'{opening}thought "</think>" gap block'


def _rule_name(action: str) -> str:
    return "act-" + action.lower()


def _action_rule(name: str, spec: Spec) -> str:
    """`Name(` keyword arguments in any order, each given at most once `)`."""
    required = [key for key, arg in spec.args.items() if arg.required]
    optional = [key for key, arg in spec.args.items() if not arg.required]
    alternatives = []
    for size in range(len(optional) + 1):
        for extra in itertools.combinations(optional, size):
            keys = [*required, *extra]
            for order in itertools.permutations(keys):
                alternatives.append(" sep ".join(_keyword(k, spec.args[k]) for k in order))
    bodies = " | ".join(f"( {alt} )" if alt else '""' for alt in alternatives)
    return f'"{name}(" sp ( {bodies} ) sp ")"'


def _keyword(key: str, arg: Arg) -> str:
    if arg.field == "point" and key in ("point", "box"):
        literal = '( "point" | "box" )'
    else:
        literal = f'"{key}"'
    return f'{literal} sp "=" sp v-{arg.kind}'


def _add_values(rules: dict[str, str], surface: Surface) -> None:
    """One rule per value kind the parser reads (`venusctl.actions._READERS`)."""
    rules["v-point"] = ('"(" sp coord sp "," sp coord sp ")" | '
                        '"[" sp coord sp "," sp coord sp "]"')
    rules["coord"] = _int_range(0, GRID_MAX)
    # Strings: no raw newline, NUL or bare quote (the literal reader's rules), and
    # never "</", so the first `</action>` is the real end of the block.
    rules["v-text"] = _quoted("txt", 0, TEXT_CHARS)
    rules["v-name"] = _quoted("nm", 1, NAME_CHARS, solid_first=True)
    rules["key"] = _quoted("nm", 1, KEY_CHARS, solid_first=True)
    # An http(s) address urllib can read (the parser checks that): a plain host, an
    # optional port in range, then any URL characters after the first / ? or #.
    rules["v-url"] = r'''"'" url "'" | "\"" url "\""'''
    rules["url"] = (f'"http" "s"? "://" host-char{{1,{HOST_CHARS}}} ( ":" port )? '
                    f'( [/?#] url-char{{0,{URL_PATH_CHARS}}} )?')
    rules["host-char"] = "[a-zA-Z0-9._%-]"
    rules["port"] = _int_range(1, 65535)
    rules["url-char"] = f"[{URL_CLASS}]"
    rules["sq-txt"] = r"""[^'\\\n<\x00] | esc | "<"{1,4} [^'\\\n</\x00]"""
    rules["dq-txt"] = r"""[^"\\\n<\x00] | esc | "<"{1,4} [^"\\\n</\x00]"""
    rules["sq-nm"] = r"""[^'\\\n<\x00] | esc"""
    rules["dq-nm"] = r"""[^"\\\n<\x00] | esc"""
    rules["esc"] = r""""\\" [nrt'"\\]"""
    rules["sq-solid"] = f'["{SOLID_CLASS}]'
    rules["dq-solid"] = f"['{SOLID_CLASS}]"
    rules["v-amount"] = f'"-"? ( {_int_range(0, 4096)} )'
    rules["v-repeat"] = _int_range(1, 100)
    rules["v-index"] = _int_range(0, 10000)
    rules["v-duration"] = ('( [1-9] | [12] [0-9] ) ( "." [0-9]{1,2} )? | "30" ( ".0" )? | '
                           '"0." [0-9]? [1-9]')
    rules["v-axis"] = _choice("vertical", "horizontal")
    rules["v-direction"] = _choice("up", "down", "left", "right")
    for limit in (3, 6):
        rules[f"v-keys{limit}"] = (
            f'"[" sp key ( sep key ){{0,{limit - 1}}} sp "]" | '
            f'"(" sp key ( sep key ){{0,{limit - 1}}} ","? sp ")" | key'
        )
    if "Sequence" in ACTION_SETS[surface]:
        _add_sequence(rules, surface)


def _add_sequence(rules: dict[str, str], surface: Surface) -> None:
    """2..MAX_SEQUENCE children, no nesting, an episode-ending action only last."""
    specs = ACTION_SETS[surface]
    inner = [n for n in specs if n != "Sequence"]
    ending = [n for n in inner if specs[n].cls in TERMINAL]
    middle = [n for n in inner if n not in ending]
    rules["child-mid"] = " | ".join(_rule_name(n) for n in middle)
    rules["child-any"] = " | ".join(_rule_name(n) for n in inner)
    rules["v-actions"] = (
        f'"[" sp child-mid ( sep child-mid ){{0,{MAX_SEQUENCE - 2}}} sep child-any sp "]"'
    )


def _quoted(kind: str, least: int, most: int, solid_first: bool = False) -> str:
    """A quoted string of least..most characters; `solid_first`: not starting with a
    space (the parser strips names and keys and rejects them when empty)."""
    if solid_first:
        return (f"\"'\" sq-solid sq-{kind}{{{least - 1},{most - 1}}} \"'\" | "
                f'"\\"" dq-solid dq-{kind}{{{least - 1},{most - 1}}} "\\""')
    return (f"\"'\" sq-{kind}{{{least},{most}}} \"'\" | "
            f'"\\"" dq-{kind}{{{least},{most}}} "\\""')


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
