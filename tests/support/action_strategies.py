"""Hypothesis strategies for every action of every surface, built from the grammar table.

Generating from `ACTION_SETS` means a new action or argument is covered by the
round-trip and fuzz tests without anyone remembering to add it here.
"""

from __future__ import annotations

import random
import string
from urllib.parse import urlsplit

from ada_url import URL as WhatwgURL
from hypothesis import strategies as st

from venusctl.core.actions import ACTION_SETS, TERMINAL, Action, Surface, Wait, render


def _readable_url(text: str) -> bool:
    """An address both readers take: Python's (the safety places) and WHATWG's (the
    parser reads Launch as the authors' `new URL` does)."""
    try:
        parts = urlsplit(text)
        _ = parts.hostname, parts.port
        WhatwgURL(text)
    except ValueError:
        return False
    return True


# The grammar's host language (venusctl/model/grammar.py, _url_head): names whose last
# label starts with a letter, or dotted-quad IPv4 addresses.
_label = st.from_regex(r"[A-Za-z0-9](-?[A-Za-z0-9]){0,5}", fullmatch=True)
_last_label = st.from_regex(r"[A-Za-z](-?[A-Za-z0-9]){0,5}", fullmatch=True)
_host = st.one_of(
    st.builds(lambda labels, last: ".".join([*labels, last]), st.lists(_label, max_size=3),
              _last_label),
    st.tuples(*[st.integers(0, 255)] * 4).map(lambda quad: ".".join(map(str, quad))))
_points = st.tuples(st.integers(0, 999), st.integers(0, 999))
# a name the canonical rendering starts with an escape (`'\\''`) is one the grammar
# refuses by design (venusctl/model/grammar_strings.py: `\\n` first would strip to nothing)
_stripped = st.text(min_size=1, max_size=40).map(str.strip).filter(
    lambda s: bool(s) and s[0] not in "\\'")
_key = st.text(alphabet=string.ascii_letters + string.digits + "+-_", min_size=1, max_size=12)
_segment = st.text(alphabet=string.ascii_letters + string.digits + "-_ '", min_size=1,
                   max_size=12).map(str.strip).filter(lambda s: s not in ("", ".", ".."))
_path = st.lists(_segment, min_size=1, max_size=3).map("/".join)
_filename = st.text(alphabet=string.ascii_letters + string.digits + "-_. '", min_size=1,
                    max_size=20).map(str.strip).filter(lambda s: s not in ("", ".", ".."))

_VALUES = {
    "point": _points,
    "text": st.text(max_size=300),
    "name": _stripped,
    "url": st.builds(
        lambda scheme, host, port, path: f"{scheme}://{host}{port}{path}",
        st.sampled_from(["http", "https"]),
        _host,
        st.one_of(st.just(""), st.integers(1, 65535).map(lambda p: f":{p}")),
        st.one_of(st.just(""), st.text(
            alphabet=st.characters(blacklist_categories=("Zs", "Cc", "Zl", "Zp", "Cs"),
                                   blacklist_characters="'\"\\<"),
            max_size=60).map(lambda p: "/" + p)),
    ).filter(lambda s: not any(c.isspace() for c in s)).filter(_readable_url),
    "amount": st.integers(-4096, 4096),
    "repeat": st.integers(1, 128),
    "index": st.integers(0, 10000),
    # the grammar writes at most two decimals (venusctl/model/grammar.py, DECIMALS)
    "duration": st.one_of(st.integers(1, 30), st.floats(0.1, 30).map(lambda f: round(f, 2))),
    "axis": st.sampled_from(["vertical", "horizontal"]),
    "direction": st.sampled_from(["up", "down", "left", "right"]),
    "keys3": st.lists(_key, min_size=1, max_size=3).map(tuple),
    "keys128": st.lists(_key, min_size=1, max_size=8).map(tuple),
    "file": _path,
    "filename": _filename,
}


_OMIT = object()


def _one(surface: Surface, name: str, children: bool) -> st.SearchStrategy[Action]:
    spec = ACTION_SETS[surface][name]
    fields: dict[str, st.SearchStrategy] = {}
    for key, arg in spec.args.items():
        if arg.kind == "actions":
            if not children:
                return st.nothing()
            fields[arg.field or key] = _children(surface)
            continue
        value = _VALUES[arg.kind]
        fields[arg.field or key] = value if arg.required else st.one_of(st.just(_OMIT), value)
    given = st.fixed_dictionaries(fields).filter(
        lambda kw: not spec.one_of or any(kw[k] is not _OMIT for k in spec.one_of))
    return given.map(lambda kw: spec.cls(**{k: v for k, v in kw.items() if v is not _OMIT}))


def _children(surface: Surface) -> st.SearchStrategy[tuple[Action, ...]]:
    plain = st.one_of(*[_one(surface, n, False) for n in ACTION_SETS[surface]
                        if n != "Sequence"])
    body = st.lists(plain.filter(lambda a: not isinstance(a, TERMINAL)), min_size=1, max_size=5)
    return st.tuples(body, st.one_of(st.none(), plain)).map(
        lambda pair: tuple(pair[0] + ([pair[1]] if pair[1] is not None else []))
    ).filter(lambda acts: len(acts) >= 2)


def actions(surface: Surface) -> st.SearchStrategy[Action]:
    """Any valid action of `surface`, Sequences included."""
    return st.one_of(*[_one(surface, name, True) for name in ACTION_SETS[surface]])


def surface_and_action() -> st.SearchStrategy[tuple[Surface, Action]]:
    return st.sampled_from(list(Surface)).flatmap(lambda s: st.tuples(st.just(s), actions(s)))


ADVERSARIAL_PIECES = [
    "(", ")", "[", "]", "'", '"', "\\", ",", "=", "<action>", "</action>", "<think>",
    "</think>", "__import__('os')", "eval(", "exec(", "lambda: 0", "9" * 5000, "-" * 50,
    "((((((((((((((((((((", "\n", "\x00", "\u202e", "点击", "Click", "Sequence(actions=[",
    "point=", "box=", "(1, 2)", "True", "None", "1e9", ".", "+", "{}", "{{secret:x}}",
]


def adversarial_text(rng: random.Random, surface: Surface, valid: list[str]) -> str:
    """A random or mutated answer: noise, splices of valid answers, deep nesting."""
    choice = rng.random()
    if choice < 0.25:
        return "".join(rng.choice(string.printable) for _ in range(rng.randint(0, 200)))
    if choice < 0.5:
        return "".join(rng.choice(ADVERSARIAL_PIECES) for _ in range(rng.randint(1, 30)))
    base = rng.choice(valid)
    chars = list(base)
    for _ in range(rng.randint(1, 8)):
        op = rng.random()
        pos = rng.randint(0, len(chars))
        if op < 0.4 and chars:
            del chars[min(pos, len(chars) - 1)]
        elif op < 0.8:
            chars.insert(pos, rng.choice(ADVERSARIAL_PIECES))
        else:
            chars = chars[:pos]
    body = "".join(chars)
    wrap = rng.random()
    if wrap < 0.3:
        return body
    if wrap < 0.6:
        return f"<think>{rng.choice(ADVERSARIAL_PIECES)}</think><action>{body}</action>"
    return f"{body}</think><action>{body}"


def random_action(rng: random.Random, surface: Surface, children: bool = True) -> Action:
    """A valid action drawn with plain `random` (fast; for fuzzing and benchmarks)."""
    names = [n for n in ACTION_SETS[surface] if children or n != "Sequence"]
    spec = ACTION_SETS[surface][rng.choice(names)]
    fields = {}
    for key, arg in spec.args.items():
        if not arg.required and rng.random() < 0.5:
            continue
        fields[arg.field or key] = _random_value(rng, surface, arg.kind)
    if spec.one_of and not any(k in fields for k in spec.one_of):
        key = rng.choice(spec.one_of)
        fields[key] = _random_value(rng, surface, spec.args[key].kind)
    return spec.cls(**fields)


def _random_value(rng: random.Random, surface: Surface, kind: str) -> object:
    text = "".join(rng.choice(string.printable + "éß世界'\"\\") for _ in range(rng.randint(0, 30)))
    simple = {
        "point": lambda: (rng.randint(0, 999), rng.randint(0, 999)),
        "text": lambda: text,
        "name": lambda: text.strip() or "Maps",
        "url": lambda: "https://example.org/" + str(rng.randint(0, 99)),
        "amount": lambda: rng.randint(-4096, 4096),
        "repeat": lambda: rng.randint(1, 128),
        "index": lambda: rng.randint(0, 99),
        "duration": lambda: rng.randint(1, 30),
        "axis": lambda: rng.choice(["vertical", "horizontal"]),
        "direction": lambda: rng.choice(["up", "down", "left", "right"]),
        "keys3": lambda: tuple(rng.choice(["ctrl", "c", "shift", "tab"]) for _ in range(2)),
        "keys128": lambda: tuple(rng.choice(["ctrl", "c", "alt", "f4"]) for _ in range(3)),
        "file": lambda: rng.choice(["report.pdf", "docs/notes v2.txt", "Joe's CV.pdf"]),
        "filename": lambda: rng.choice(["report.pdf", "invoice 7.csv", "it's.txt"]),
    }
    if kind == "actions":
        kids = [random_action(rng, surface, children=False) for _ in range(rng.randint(2, 5))]
        body = [k for k in kids if not isinstance(k, TERMINAL)]
        return tuple(body if len(body) >= 2 else [*body, Wait(), Wait()])
    return simple[kind]()


def valid_samples(rng: random.Random, surface: Surface, count: int) -> list[str]:
    """Rendered valid actions, the raw material for mutation."""
    return [render(random_action(rng, surface), surface) for _ in range(count)]
