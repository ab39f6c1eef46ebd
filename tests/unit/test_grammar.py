"""The action grammar, checked by llama.cpp's own grammar engine.

Strings are fed token by token through the real grammar sampler (the tiny test
model supplies the vocabulary, loaded vocab-only), and random walks through the
grammar produce answers that must all parse with `venusctl.actions.parse`.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.support.tiny_model import TINY, ensure_model
from venusctl.actions import ACTION_SETS, Surface, parse, parse_action
from venusctl.errors import ParseError
from venusctl.model.base import SamplingOptions
from venusctl.model.grammar import GrammarOptions, _int_range, action_grammar
from venusctl.model.native import TextModel
from venusctl.model.sampler import Sampler


@pytest.fixture(scope="module")
def vocab() -> TextModel:
    model = TextModel(ensure_model(TINY).model, vocab_only=True)
    yield model
    model.close()


def accepts(vocab: TextModel, grammar: str, text: str) -> bool:
    """Whether llama.cpp's grammar engine takes `text` as a complete answer."""
    sampler = Sampler(vocab, SamplingOptions(), grammar, seed=1)
    try:
        for token in vocab.tokenize(text, special=True):
            if not sampler.allows(token):
                return False
            sampler.accept(token)
        end = vocab.tokenize("<|im_end|>", special=True)[0]
        return sampler.allows(end)
    finally:
        sampler.close()


def walk(vocab: TextModel, grammar: str, rng: np.random.Generator, limit: int = 2500) -> str:
    """A random answer the grammar allows: random logits, grammar-constrained picks."""
    sampler = Sampler(vocab, SamplingOptions(repeat_penalty=1.0), grammar, seed=1)
    pieces = []
    try:
        for _ in range(limit):
            token = sampler.sample(rng.normal(0, 4, vocab.n_vocab).astype(np.float32))
            if vocab.is_eog(token):
                break
            sampler.accept(token)
            pieces.append(vocab.piece(token))
            if b"".join(pieces).endswith(b"</action>") and sampler.allows(vocab.eos):
                break
        return b"".join(pieces).decode("utf-8", errors="ignore")
    finally:
        sampler.close()


SAMPLES = {
    "point": "(12, 999)", "text": "'It\\'s 7pm, Ada'", "name": "'Settings'",
    "url": "'https://example.org/a?b=1'", "amount": "-120", "repeat": "3", "index": "10000",
    "duration": "2.5", "axis": "'horizontal'", "direction": "'left'",
    "keys3": "('ctrl', 'shift', 't')", "keys6": "['ctrl', 'c']",
    "actions": "[Click(box=(1, 2)), Type(content='x\\ny'), Finished(content='ok')]",
}


def every_action(surface: Surface) -> list[str]:
    """Each action of the surface with all its arguments, in the model's syntax."""
    texts = []
    for name, spec in ACTION_SETS[surface].items():
        args = ", ".join(f"{key}={SAMPLES[arg.kind]}" for key, arg in spec.args.items())
        texts.append(f"{name}({args})")
    return texts


@pytest.mark.parametrize("surface", list(Surface))
def test_every_action_of_the_surface_is_accepted_and_parses(vocab, surface):
    grammar = action_grammar(surface)
    for action in every_action(surface):
        parse_action(action, surface)  # the sample itself is valid
        answer = f"I look at the screen.</think>\n<action>{action}</action>"
        assert accepts(vocab, grammar, answer), action


@pytest.mark.parametrize("surface", list(Surface))
def test_random_walks_through_the_grammar_always_parse(vocab, surface):
    grammar = action_grammar(surface, GrammarOptions(thought_chars=30))
    rng = np.random.default_rng(7)
    names = set()
    for _ in range(40):
        answer = walk(vocab, grammar, rng)
        parsed = parse("<think>" + answer, surface)
        names.add(type(parsed.action).__name__)
    assert len(names) >= 5, names  # the walks really explore the action set


@pytest.mark.parametrize("bad", [
    "Click(point=(1000, 5))",          # off the grid
    "Click(point=(05, 5))",            # leading zero
    "Click(point=(5, 5), point=(5, 5))",
    "Click((5, 5))",                   # positional
    "Tap(point=(1, 2))",               # unknown action
    "Launch(url='https://a.b')",       # a browser action on mobile
    "Swipe(start=(1, 2))",             # a required argument missing
    "LaunchApp(app=' ')",              # a name the parser would strip to nothing
])
def test_invalid_actions_are_refused(vocab, bad):
    grammar = action_grammar(Surface.MOBILE)
    assert not accepts(vocab, grammar, f"ok</think>\n<action>{bad}</action>")


def test_two_actions_or_text_after_the_action_are_refused(vocab):
    grammar = action_grammar(Surface.BROWSER)
    one = "<action>Wait()</action>"
    assert accepts(vocab, grammar, f"x</think>\n{one}")
    assert not accepts(vocab, grammar, f"x</think>\n{one}{one}")
    assert not accepts(vocab, grammar, f"x</think>\n{one} and more")


def test_desktop_sequence_rules(vocab):
    grammar = action_grammar(Surface.DESKTOP)
    ok = "Sequence(actions=[Click(box=(1, 2)), Hotkey(keys=['ctrl', 's'])])"
    nested = "Sequence(actions=[Click(box=(1, 2)), Sequence(actions=[Wait(), Wait()])])"
    early_end = "Sequence(actions=[Finished(content='x'), Click(box=(1, 2))])"
    single = "Sequence(actions=[Click(box=(1, 2))])"
    assert accepts(vocab, grammar, f"x</think><action>{ok}</action>")
    for bad in (nested, early_end, single):
        with pytest.raises(ParseError):
            parse_action(bad, Surface.DESKTOP)
        assert not accepts(vocab, grammar, f"x</think><action>{bad}</action>")


def test_the_thought_is_bounded_and_the_opening_follows_the_template(vocab):
    bounded = action_grammar(Surface.MOBILE, GrammarOptions(thought_chars=10))
    action = "</think>\n<action>Wait()</action>"
    assert accepts(vocab, bounded, "0123456789" + action)
    assert not accepts(vocab, bounded, "0123456789X" + action)
    not_opened = action_grammar(Surface.MOBILE, GrammarOptions(think_opened=False))
    assert accepts(vocab, not_opened, "<think>plan" + action)
    assert not accepts(vocab, not_opened, "plan" + action)
    no_thinking = action_grammar(Surface.MOBILE, GrammarOptions(thinking=False))
    assert accepts(vocab, no_thinking, "<action>PressHome()</action>")
    assert not accepts(vocab, no_thinking, "plan</think><action>PressHome()</action>")


def test_long_strings_stay_bounded(vocab):
    grammar = action_grammar(Surface.BROWSER)
    for length, ok in ((1700, True), (1701, False)):
        answer = f"t</think><action>Launch(url='https://a.b/{'x' * length}')</action>"
        assert accepts(vocab, grammar, answer) is ok
    thought = "y" * 2001 + "</think><action>Wait()</action>"
    assert not accepts(vocab, grammar, thought)


def test_integer_ranges_match_exactly():
    import re

    def regex(pattern: str) -> re.Pattern[str]:
        body = re.sub(r'"([^"]*)"', lambda m: re.escape(m.group(1)), pattern).replace(" ", "")
        return re.compile(f"(?:{body})$")

    for low, high in [(0, 999), (1, 100), (0, 10000), (0, 4096), (5, 73), (10, 10)]:
        matcher = regex(_int_range(low, high))
        matched = [n for n in range(0, 12000) if matcher.match(str(n))]
        assert matched == list(range(low, high + 1))
        assert not matcher.match("007")
