"""Grammar = parser, by construction: everything the action grammar admits, the parser
accepts, and within the token budget the grammar was built for.

The answers here are not examples someone wrote: they are generated from the GBNF
text's own rules (`tests.support.gbnf`, a reader independent of the generator), each
choice pushed towards the longest option (the most repeats, the longest alternative),
so strings run up to 4,000 characters, names to 200, paths to 1,024, file names to
255, key lists to 128, Sequences to 32 children, coordinates to 999, amounts to
±4096, and every answer to its budget. Each one must parse, and llama.cpp's own
grammar engine must take it (which checks the reader against the real engine).
"""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.gbnf import INFINITE, Grammar
from tests.unit.test_grammar import accepts
from venusctl.core.actions import MAX_ACTION_TEXT, Surface, parse, parse_action
from venusctl.core.errors import ParseError
from venusctl.model.grammar import BUDGET_STEPS, GrammarOptions, action_grammar, fitting_budget

M, D, B = Surface.MOBILE, Surface.DESKTOP, Surface.BROWSER
NO_FILES = frozenset({"Upload", "Download"})
CONFIGS = {
    "mobile": (M, GrammarOptions()),
    "desktop": (D, GrammarOptions()),
    "browser": (B, GrammarOptions(thinking=False)),
    "browser-thought-in-prompt": (B, GrammarOptions(think_opened=False)),
    "browser-300-tokens-server": (B, GrammarOptions(thinking=False, budget=300,
                                                    bounded_thought=True, exclude=NO_FILES)),
    "mobile-2000-tokens-server": (M, GrammarOptions(budget=2000, bounded_thought=True)),
    "desktop-after-thought-144": (D, GrammarOptions(after_thought=True, budget=144)),
    "desktop-after-thought-1808": (D, GrammarOptions(after_thought=True, budget=1808)),
}
_THINK_CLOSE = re.compile("</think>", re.IGNORECASE)


class _Grammars(dict):
    def __missing__(self, name: str) -> Grammar:
        surface, options = CONFIGS[name]
        self[name] = Grammar.parse(action_grammar(surface, options))
        return self[name]

    def __repr__(self) -> str:
        return "<parsed grammars>"


@pytest.fixture(scope="module")
def grammars() -> _Grammars:
    return _Grammars()


def _answer(name: str, generated: str) -> str:
    """The answer as the parser gets it (the template opened the thought, or the grammar
    starts after a thought the backend closed)."""
    options = CONFIGS[name][1]
    if options.after_thought:
        return "<think>a closed thought</think>" + generated
    if options.thinking and options.think_opened:
        return "<think>" + generated
    return generated


def _after_thought(name: str, generated: str) -> str:
    options = CONFIGS[name][1]
    if options.after_thought or options.bounded_thought:
        return generated
    closed = _THINK_CLOSE.search(generated)
    return generated[closed.end():] if closed else generated


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(CONFIGS)), seed=st.integers(0, 2**32 - 1),
       pressure=st.sampled_from([0.6, 0.9, 1.0]))
def test_every_answer_generated_from_the_grammar_parses_within_its_budget(grammars, name, seed,
                                                                         pressure):
    surface, options = CONFIGS[name]
    generated = grammars[name].generate("root", random.Random(seed), pressure=pressure)
    parsed = parse(_answer(name, generated), surface)
    assert len(parsed.action_text) <= MAX_ACTION_TEXT
    if options.budget is not None:
        assert len(_after_thought(name, generated).encode("utf-8")) <= options.budget
    if options.exclude:
        assert type(parsed.action).__name__ not in options.exclude


def test_generated_actions_reach_every_limit_and_llama_cpp_takes_them(grammars, vocab):
    """Each action of each surface, generated with every choice pushed to its longest:
    the real engine takes each answer, the parser too, and together they hit the
    parser's limits exactly (strings count their characters as the parser does)."""
    seen: dict[str, int] = {}
    for name in ("mobile", "desktop", "browser"):
        surface, options = CONFIGS[name]
        text, grammar = action_grammar(surface, options), grammars[name]
        top = next(rule for rule in grammar.rules if rule.startswith("action-top"))
        for rule in re.findall(r"act-[a-z]+-s\d+", text.split(f"\n{top} ::= ")[1].split("\n")[0]):
            call = grammar.generate(rule, random.Random(rule), pressure=1.0)
            answer = f"t</think>\n<action>{call}</action>"
            assert accepts(vocab, text, answer if options.thinking else answer[10:]), call[:200]
            action = parse_action(call, surface)
            for field, value in vars(action).items():
                size = len(value) if isinstance(value, (str, tuple)) else value
                if isinstance(size, int) and not isinstance(size, bool):
                    key = f"{type(action).__name__}.{field}"
                    seen[key] = max(seen.get(key, 0), abs(size))
    sequence = next(rule for rule in grammars["desktop"].rules if rule.endswith(f"-{32}")
                    and rule.startswith("v-actions"))
    children = grammars["desktop"].generate(sequence, random.Random(5), pressure=1.0)
    seen["Sequence.actions"] = len(parse_action(f"Sequence(actions={children})", D).actions)
    limits = {"Type.content": 4000, "LaunchApp.app": 200, "Upload.file": 1024,
              "Download.filename": 255, "KeyDown.keys": 128, "Sequence.actions": 32}
    assert {key: seen.get(key) for key in limits} == limits


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_longest_answer_the_grammar_admits_fits_the_parser_and_the_budget(grammars, name):
    """Read from the GBNF text itself, not from what the generator believes."""
    options = CONFIGS[name][1]
    grammar = grammars[name]
    after = [rule for rule in grammar.rules if rule.startswith("after")]
    assert after
    for rule in after:
        assert grammar.longest(rule, "chars") <= MAX_ACTION_TEXT + 100  # + the frame
    if options.bounded_thought:
        assert grammar.longest("root", "bytes") <= options.budget
    elif options.budget is not None:
        assert max(grammar.longest(rule, "bytes") for rule in after) <= options.budget
    else:
        assert grammar.longest("root", "bytes") == INFINITE  # only the thought is unbounded


def test_a_budget_is_rounded_down_to_a_step_and_none_once_everything_fits():
    assert fitting_budget(B, 300) == max(s for s in BUDGET_STEPS if s <= 300)
    assert fitting_budget(B, 40) == BUDGET_STEPS[0]
    assert fitting_budget(M, 10**6) is None


def test_launchapp_names_stop_at_the_parsers_200_characters_exactly(vocab):
    """The fresh-clone failure `test_image_in_grammar_constrained_action_out[mobile]`: the
    grammar let `LaunchApp(app=…)` reach 204 characters (it counted an apostrophe with
    the letter after it as one). Counted as the parser counts, 200 is the limit for any
    mix of apostrophes, escapes and scripts."""
    grammar = action_grammar(M)
    for body in ("Domino's_" * 30, "酷我音乐'" * 60, "a\\'b" * 80, "x" * 300, "<b>'s" * 60):
        pieces = _pieces(body)
        for count in (199, 200, 201, 202):
            action = f"LaunchApp(app='{''.join(pieces[:count])}')"
            try:
                parsed = len(parse_action(action, M).app) == count
            except ParseError:
                parsed = False
            assert parsed == (count <= 200), action
            answer = f"t</think>\n<action>{action}</action>"
            assert accepts(vocab, grammar, answer) == parsed, action


def _pieces(body: str) -> list[str]:
    """Characters, with an escape kept whole."""
    return re.findall(r"\\.|.", body, re.S)


@pytest.mark.parametrize("name", ["Fini_shed", "Fini__shed", "_Finished", "Finished_",
                                  "F_i_n_i_s_h_e_d", "Get_Url_", "Select__Option"])
def test_browser_names_admit_no_underscore_off_a_word_break(vocab, name):
    """The authors' browser parser lowers the name (models/browser/venus_browser.py:134)
    and drops `_` (:194), so `select_option` is SelectOption; the grammar admits `_` only
    where the name has a word break, once, so a random model cannot spend its budget on
    `Fini_______`."""
    grammar = action_grammar(B, GrammarOptions(thinking=False))
    assert not accepts(vocab, grammar, f"<action>{name}()</action>")


@pytest.mark.parametrize("name", ["Finished", "finished", "FINISHED", "get_url", "GetUrl",
                                  "Select_Option", "select_option", "take_note", "PRESS_HOME"])
def test_browser_names_in_the_authors_spellings_are_admitted(vocab, name):
    grammar = action_grammar(B, GrammarOptions(thinking=False))
    args = "index=1" if "option" in name.lower() else ""
    parse_action(f"{name}({args})", B)
    assert accepts(vocab, grammar, f"<action>{name}({args})</action>")


def test_a_random_walk_on_the_browser_ends_in_an_action_within_300_tokens(vocab):
    """The fresh-clone failure `test_do_runs_steps_through_the_server_on_the_web_driver`:
    random weights under the browser grammar ran out of tokens inside the action. Held
    to 300 bytes (so at most 300 tokens), every walk ends in a parsed action."""
    from tests.unit.test_grammar import walk

    grammar = action_grammar(B, GrammarOptions(thinking=False, budget=300,
                                               bounded_thought=True))
    rng = __import__("numpy").random.default_rng(11)
    for _ in range(12):
        answer = walk(vocab, grammar, rng, limit=300, prefix="", bonus=False)
        assert answer.rstrip().endswith("</action>"), answer[-80:]
        parse(answer, B)


def test_the_answer_the_parser_found_no_action_in_is_refused(vocab):
    """The fresh-clone failure `test_a_multi_step_run_on_the_local_model`: the grammar let
    `\\r \\n\\n\\n <action> ta_keNote (\\t\\n\\ncontent\\t ='…<|video_pad|><think>…()',)
    </action>` through and the parser found no action in it. Each of its three parts is
    refused now: `_` off a word break, `<think>` inside a string (without a thought it
    moves where the parser looks), and the answer as a whole; the same call in a form the
    parser reads is admitted."""
    grammar = action_grammar(B, GrammarOptions(thinking=False))
    seen = ("\r \n\n\n <action> ta_keNote (\t\n\ncontent\t ='x<|video_pad|><think>y()',)"
            " </action>")
    with pytest.raises(ParseError):
        parse(seen, B)
    assert not accepts(vocab, grammar, seen)
    assert not accepts(vocab, grammar, "<action>ta_keNote(content='x')</action>")
    assert not accepts(vocab, grammar, "<action>take_note(content='x<think>y')</action>")
    fixed = "\r \n\n\n <action> take_note (\t\n\ncontent\t ='x<|video_pad|>y()',) </action>"
    assert parse(fixed, B).action == parse_action("TakeNote(content='x<|video_pad|>y()')", B)
    assert accepts(vocab, grammar, fixed)
