"""The action grammar, checked by llama.cpp's own grammar engine.

Strings are fed token by token through the real grammar sampler (the tiny test
model supplies the vocabulary, loaded vocab-only). The grammar must accept every
answer the parser accepts in the model's form (the authors' real example outputs,
hypothesis renderings of every action, long thoughts and strings, apostrophes),
and random walks through the grammar must produce answers the parser accepts.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.support.action_strategies import actions
from venusctl.core.actions import ACTION_SETS, Launch, Surface, parse, parse_action, render
from venusctl.core.errors import ParseError
from venusctl.model.base import SamplingOptions
from venusctl.model.grammar import GrammarOptions, _int_range, action_grammar
from venusctl.model.grammar_strings import FREE_SPACES
from venusctl.model.llama.native import TextModel
from venusctl.model.llama.sampler import Sampler

# The `raw_response` of every turn in the authors' own example run
# (inclusionAI/UI-Venus, models/mobile/examples/example_output.json).
AUTHORS_EXAMPLE_OUTPUTS = [
    "<think>The user wants to open Kuwo Music, cancel the existing scheduled playback, and "
    "set it again for 7:30 AM from Monday to Friday with the My Favorites playlist. The "
    "first step is to open Kuwo Music.</think>\n<action>LaunchApp(app='酷我音乐')</action>",
    "<think>Kuwo Music is open. I should enter the My page to look for scheduled playback "
    "settings.</think>\n<action>Click(point=(897, 937))</action>",
    "<think>I am on the My page. The menu button in the upper-right corner should contain "
    "more settings.</think>\n<action>Click(point=(908, 77))</action>",
    "<think>The More page contains Sleep Timer, which may include scheduled playback. I will "
    "open it to inspect the available tabs.</think>\n<action>Click(point=(382, 176))</action>",
    "<think>There are Sleep Timer and Scheduled Playback tabs. I need to open Scheduled "
    "Playback to inspect and change the current schedule.</think>\n"
    "<action>Click(point=(666, 76))</action>",
    "<think>Scheduled playback is enabled and its settings already show 07:30, Monday to "
    "Friday, and My Favorites. The task requires canceling the previous schedule first, so I "
    "should turn the switch off.</think>\n<action>Click(point=(851, 152))</action>",
    "<think>The previous schedule is now disabled. I need to turn scheduled playback back on "
    "and then verify its time, days, and playlist.</think>\n"
    "<action>Click(point=(851, 152))</action>",
    "<think>Scheduled playback is enabled again. The screen confirms 07:30, Monday to Friday, "
    "and My Favorites, so the task is complete.</think>\n<action>Finished(content='已打开酷我"
    "音乐，先取消原有定时播放，再重新开启并确认时间为早上7:30、播放周期为周一至周五、播放内容为"
    "“我的收藏”。')</action>",
]


class _Grammars(dict):
    """Each surface's grammar (keyed by surface and whether the thought is opened);
    a short repr, since hypothesis prints its arguments when a case fails."""

    def __missing__(self, key: tuple[Surface, bool]) -> str:
        self[key] = action_grammar(key[0], GrammarOptions(think_opened=key[1]))
        return self[key]

    def __repr__(self) -> str:
        return "<the action grammars>"


@pytest.fixture(scope="module")
def grammars() -> _Grammars:
    return _Grammars()


def accepts(vocab: TextModel, grammar: str, text: str) -> bool:
    """Whether llama.cpp's grammar engine takes `text` as a complete answer.

    The tiny vocabulary spells a Chinese character in byte tokens, which the sampler
    refuses under a grammar as a matter of token policy (`venusctl.model.llama.utf8`; the
    real vocabulary has common characters as whole tokens), so here the grammar alone
    judges: llama.cpp assembles the bytes and matches the whole character.
    """
    sampler = Sampler(vocab, SamplingOptions(), grammar, seed=1)
    sampler.whole = None
    try:
        for token in vocab.tokenize(text, special=True):
            if not sampler.allows(token):
                return False
            sampler.accept(token)
        end = vocab.tokenize("<|im_end|>", special=True)[0]
        return sampler.allows(end)
    finally:
        sampler.close()


def _enders(vocab: TextModel) -> np.ndarray:
    """Tokens that can close a string, a list, a call, the thought or the block."""
    marks = (b"'", b'"', b")", b"]", b"</think>", b"<action>", b"</action>", b"<")
    return np.array([any(m in vocab.piece(t) for m in marks) for t in range(vocab.n_vocab)])


WALK_PREFIX = "a random walk</think>\n<action>"


def walk(vocab: TextModel, grammar: str, rng: np.random.Generator, limit: int = 1500,
         prefix: str | None = None, bonus: bool = True) -> str:
    """A random action the grammar allows: random logits, grammar-constrained picks.

    The thought and the text before `<action>` may be anything (other tests hold
    them), so the walk starts at the action; now and then the tokens that end
    things get a large bonus, so that walks through strings finish and go on
    exploring the action set (`bonus`). `prefix` is fed first (None: a thought and
    `<action>`).
    """
    prefix = WALK_PREFIX if prefix is None else prefix
    sampler = Sampler(vocab, SamplingOptions(), grammar, seed=1)
    enders = _enders(vocab)
    pieces = []
    try:
        for token in vocab.tokenize(prefix, special=True) if prefix else []:
            assert sampler.allows(token)
            sampler.accept(token)
            pieces.append(vocab.piece(token))
        for _ in range(limit):
            logits = rng.normal(0, 4, vocab.n_vocab).astype(np.float32)
            if bonus and rng.random() < 0.5:
                logits[enders] += 40.0
            token = sampler.sample(logits)
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
    "url": "'https://example.org/a?b=1'", "amount": "-120", "repeat": "128", "index": "10000",
    "duration": "2.5", "axis": "'horizontal'", "direction": "'left'",
    "keys3": "('ctrl', 'shift', 't')", "keys128": "['ctrl', 'c']",
    "file": "'reports/Q3 summary.pdf'", "filename": "'invoice-7.pdf'",
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
def test_every_action_of_the_surface_is_accepted_and_parses(vocab, grammars, surface):
    for action in every_action(surface):
        parse_action(action, surface)  # the sample itself is valid
        answer = f"I look at the screen.</think>\n<action>{action}</action>"
        assert accepts(vocab, grammars[surface, True], answer), action


def test_the_authors_example_outputs_parse_and_are_accepted(vocab, grammars):
    for raw in AUTHORS_EXAMPLE_OUTPUTS:
        parse(raw, Surface.MOBILE)
        assert accepts(vocab, grammars[Surface.MOBILE, False], raw), raw
        # as a local model writes it: the template opened the thought in the prompt
        assert accepts(vocab, grammars[Surface.MOBILE, True], raw.removeprefix("<think>"))


_THOUGHTS = st.text(alphabet=st.characters(blacklist_categories=("Cs",),
                                            blacklist_characters="\x00"),
                    max_size=120).filter(lambda t: "</think>" not in t.lower())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(list(Surface)).flatmap(lambda s: st.tuples(st.just(s), actions(s))),
       _THOUGHTS)
def test_hypothesis_renderings_are_accepted_and_parse_back(vocab, grammars, pair, thought):
    surface, action = pair
    text = render(action, surface)
    # a string holding the block's end cannot be carried inside the block, and text
    # must be encodable to be tokenised at all
    assume("</action>" not in text.lower() and "\x00" not in text)
    assume(not any(0xD800 <= ord(c) <= 0xDFFF for c in text))
    answer = f"{thought}</think>\n<action>{text}</action>"
    assert parse("<think>" + answer, surface).action == action
    assert accepts(vocab, grammars[surface, True], answer), answer


def test_long_thoughts_with_angle_brackets_and_long_answers(vocab, grammars):
    thought = ("If a < b then it's fine; <b>bold</b> isn't a tag, </thin is not the end. "
               * 50)[:3000]
    assert len(thought) == 3000 and "<" in thought and "'" in thought
    content = ("Joe's Pizza, 'the best' in town (it's true), </div> and [brackets]. "
               * 30)[:1500]
    action = render(parse_action(f"Type(content='{content}')", Surface.MOBILE))
    answer = f"{thought}</think>\n<action>{action}</action>"
    assert len(action) >= 1500
    assert parse("<think>" + answer, Surface.MOBILE).thought == thought.strip()
    assert accepts(vocab, grammars[Surface.MOBILE, True], answer)
    raw = f"{thought}</think>\n<action>Type(content='{content}')</action>"
    assert parse("<think>" + raw, Surface.MOBILE).action.content == content
    assert accepts(vocab, grammars[Surface.MOBILE, True], raw)


@pytest.mark.parametrize("text", [
    "Type(content='Joe's Pizza')",          # an apostrophe followed by a letter
    "Type(content='it's 'quoted' here')",
    "Type(content='a', )",                  # a trailing comma
    "Type(content='ends with a quote'')",   # the last quote closes, the one before is text
    "Type(content='spaces after' a quote')",
    "Type(content=\"double 'and' single\")",
    "Type(content='line one\nline two')",   # a raw newline, as the reader takes it
    "Type(content='<b>bold</b> and </div>')",
    "Type(content='back\\\\slash and \\' escaped')",
    "Type()",                               # content is optional everywhere
    "LaunchApp(app='Domino's')",
    "Click(point=(998.6, 0.4))",            # decimals that round onto the grid
    "Click(point=[1, 2],)",
    "Click ( point = ( 1 , 2 ) )",
])
def test_strings_and_numbers_are_read_as_the_parser_reads_them(vocab, grammars, text):
    parse_action(text, Surface.MOBILE)
    assert accepts(vocab, grammars[Surface.MOBILE, True], f"t</think>\n<action>{text}</action>")


@pytest.mark.parametrize("text", [
    "Type(content='a</action>b')",          # the first </action> would end the block
    "Type(content='a</ACTION>b')",
    "Type(content='it', 's')",              # the quote before `,` closes the string
    "Click(point=(999.5, 0))",              # rounds off the grid
    "Click(point=(1000, 5))",
    "Click(point=(05, 5))",                 # leading zero
    "Click(point=(5, 5), point=(5, 5))",
    "Click((5, 5))",                        # positional
    "Tap(point=(1, 2))",                    # unknown action
    "Launch(url='https://a.b')",            # a browser action on mobile
    "Swipe(start=(1, 2))",                  # a required argument missing
    "LaunchApp(app=' ')",                   # a name the parser would strip to nothing
])
def test_invalid_actions_are_refused(vocab, grammars, text):
    answer = f"ok</think>\n<action>{text}</action>"
    assert not accepts(vocab, grammars[Surface.MOBILE, True], answer)


def test_browser_forms_the_authors_parsers_take(vocab, grammars):
    grammar = grammars[Surface.BROWSER, True]
    good = ["select_option(value='b')", "SELECTOPTION(text='Blue')", "scroll()", "get_url()",
            "Scroll(direction='up')", "Upload(file='docs/John's CV.pdf')",
            "Download(filename='report.pdf')", "Hotkey(keys='enter')",
            "LongPress(point=(1, 2), duration=0.5)"]
    bad = ["SelectOption()", "Upload(file='../secret')", "Upload(file='/etc/passwd')",
           "Download(filename='a/b.pdf')", "Download(filename='..')",
           "Hotkey(keys=('a', 'b', 'c', 'd'))", "LongPress(point=(1, 2), duration=0)"]
    for text in good:
        parse_action(text, Surface.BROWSER)
        assert accepts(vocab, grammar, f"x</think><action>{text}</action>"), text
    for text in bad:
        with pytest.raises(ParseError):
            parse_action(text, Surface.BROWSER)
        assert not accepts(vocab, grammar, f"x</think><action>{text}</action>"), text


def test_desktop_keys_repeat_and_no_long_press(vocab, grammars):
    grammar = grammars[Surface.DESKTOP, True]
    keys = ", ".join(f"'k{i}'" for i in range(128))
    for text in (f"KeyDown(keys=[{keys}])", "Hotkey(keys=['down'], repeat=128)"):
        parse_action(text, Surface.DESKTOP)
        assert accepts(vocab, grammar, f"x</think><action>{text}</action>"), text
    for text in (f"KeyDown(keys=[{keys}, 'x'])", "Hotkey(keys=['down'], repeat=129)",
                 "LongPress(box=(1, 2))"):
        with pytest.raises(ParseError):
            parse_action(text, Surface.DESKTOP)
        assert not accepts(vocab, grammar, f"x</think><action>{text}</action>"), text


@pytest.mark.parametrize("surface", list(Surface))
def test_random_walks_through_the_grammar_always_parse(vocab, grammars, surface):
    rng = np.random.default_rng(7)
    names = set()
    finished = 0
    for _ in range(30):
        answer = walk(vocab, grammars[surface, True], rng)
        if not answer.lower().endswith("</action>"):
            continue  # the walk ran out of tokens inside a thought or a string
        finished += 1
        parsed = parse("<think>" + answer, surface)  # strings are bounded too
        names.add(type(parsed.action).__name__)
    assert finished >= 15
    assert len(names) >= 5, names  # the walks really explore the action set


def test_two_actions_or_text_after_the_action_are_refused(vocab, grammars):
    grammar = grammars[Surface.BROWSER, True]
    one = "<action>Wait()</action>"
    assert accepts(vocab, grammar, f"x</think>\n{one}")
    assert accepts(vocab, grammar, f"x</think>\n\n  {one}")
    # prose before the action is not the trained form; free text there would let a
    # confused model ramble to max_tokens without acting
    assert not accepts(vocab, grammar, f"x</think>\nI wait now.\n{one}")
    assert not accepts(vocab, grammar, f"x</think>\n{one}{one}")
    assert not accepts(vocab, grammar, f"x</think>\n{one} and more")


def test_desktop_sequence_rules(vocab, grammars):
    grammar = grammars[Surface.DESKTOP, True]
    ok = "Sequence(actions=[Click(box=(1, 2)), Hotkey(keys=['ctrl', 's'])])"
    nested = "Sequence(actions=[Click(box=(1, 2)), Sequence(actions=[Wait(), Wait()])])"
    early_end = "Sequence(actions=[Finished(content='x'), Click(box=(1, 2))])"
    single = "Sequence(actions=[Click(box=(1, 2))])"
    assert accepts(vocab, grammar, f"x</think><action>{ok}</action>")
    for bad in (nested, early_end, single):
        with pytest.raises(ParseError):
            parse_action(bad, Surface.DESKTOP)
        assert not accepts(vocab, grammar, f"x</think><action>{bad}</action>")


def test_the_thought_ends_at_the_first_close_and_the_opening_follows_the_template(vocab):
    action = "</think>\n<action>Wait()</action>"
    opened = action_grammar(Surface.MOBILE)
    assert accepts(vocab, opened, "a < b, it's </thi " + action)
    assert accepts(vocab, opened, "upper case closes too</THINK>\n<action>Wait()</action>")
    assert not accepts(vocab, opened, "one</think> two" + action)  # the thought ended at one
    not_opened = action_grammar(Surface.MOBILE, GrammarOptions(think_opened=False))
    assert accepts(vocab, not_opened, "<think>plan" + action)
    assert not accepts(vocab, not_opened, "plan" + action)
    no_thinking = action_grammar(Surface.MOBILE, GrammarOptions(thinking=False))
    assert accepts(vocab, no_thinking, "<action>PressHome()</action>")
    assert not accepts(vocab, no_thinking, "<action>PressHome()</action> more")


def test_integer_ranges_match_exactly():
    import re

    def regex(pattern: str) -> re.Pattern[str]:
        body = re.sub(r'"([^"]*)"', lambda m: re.escape(m.group(1)), pattern).replace(" ", "")
        return re.compile(f"(?:{body})$")

    for low, high in [(0, 999), (1, 128), (0, 10000), (0, 4096), (5, 73), (10, 10)]:
        matcher = regex(_int_range(low, high))
        matched = [n for n in range(0, 12000) if matcher.match(str(n))]
        assert matched == list(range(low, high + 1))
        assert not matcher.match("007")


# ------------------------------------------------------------------ string bounds


def _answer(action: str) -> str:
    return f"x</think><action>{action}</action>"


def _agree(vocab: TextModel, grammar: str, action: str, surface: Surface) -> tuple[bool, bool]:
    """(whether the parser takes the action, whether the grammar does)."""
    try:
        parse_action(action, surface)
        parsed = True
    except ParseError:
        parsed = False
    return parsed, accepts(vocab, grammar, _answer(action))


@pytest.mark.parametrize("quote", ["'", '"'])
def test_a_file_name_is_held_to_255_characters_exactly(vocab, grammars, quote):
    grammar = grammars[Surface.BROWSER, True]
    escaped = "\\" + quote  # an escaped quote is one character of the name
    for body, length in [("a" * 255, 255), ("John" + quote + "s " + "b" * 248, 255),
                         (escaped * 3 + "c" * 252, 255), ("  " + "d" * 255 + "   ", 255),
                         ("." + " " * 3 + "e" * 254, 258), ("f" * 256, 256),
                         ("Ada" + quote + "s " + "g" * 250, 256), (escaped + "h" * 255, 256),
                         ("i" * 254 + quote + "\x1e ", 255), ("j" * 255 + quote + " ", 256)]:
        action = f"Download(filename={quote}{body}{quote})"
        parsed, accepted = _agree(vocab, grammar, action, Surface.BROWSER)
        assert parsed == (length <= 255), (body, length)
        assert accepted == parsed, (body, length)


_NAME_CHARS = st.sampled_from([*"ab.' ,)]\\\n\x1e", "\\'", "x'y", "' z", "'\x1e", " '", "''"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_NAME_CHARS, min_size=1, max_size=20), st.integers(240, 262))
def test_the_grammar_takes_a_file_name_exactly_when_the_parser_does(vocab, grammars, pieces,
                                                                    length):
    """Both ways, but where a run does not fit the grammar's largest unit, and the grammar
    may refuse it (never admit what the parser refuses): an in-string quote beside a space
    or another quote (`.. ''`, `' ' '`), a name that starts `.` or `..` with spaces
    running on past the unit (`..   ..`), and more than `FREE_SPACES` stripped spaces at
    either end (venusctl/model/grammar_strings.py)."""
    body = ("".join(pieces) * 40)[:length]
    action = f"Download(filename='{body}')"
    assume("</action>" not in action)
    parsed, accepted = _agree(vocab, grammars[Surface.BROWSER, True], action, Surface.BROWSER)
    assert parsed or not accepted, body
    heavy = (re.search(r"'[\s']|\s'", body) or re.match(r"\s*(\.\.\s{3}|\.\s{4})", body)
             or re.match(rf"\s{{{FREE_SPACES + 1}}}", body)
             or re.search(rf"\s{{{FREE_SPACES + 1}}}$", body))
    if not heavy:  # see above
        assert accepted == parsed, body


def _names(n: int, extra: int) -> str:
    return ("Notes " * 40)[:n - 1] + "N" + "z" * extra


def _padded_name(n: int, extra: int) -> str:
    return "   " + "M" * (n + extra) + "  "  # the parser strips the spaces


def _path(n: int, extra: int) -> str:
    return "r" * (n + extra)


def _text(n: int, extra: int) -> str:
    return ("Ada Lovelace " * 400)[:n] + "z" * extra


def _escaped_text(n: int, extra: int) -> str:
    return "x\\n" * (n // 2) + "z" * extra  # each `\n` is one character


@pytest.mark.parametrize(("surface", "call", "limit", "make"), [
    (Surface.MOBILE, "LaunchApp(app='{}')", 200, _names),
    (Surface.MOBILE, "LaunchApp(app='{}')", 200, _padded_name),
    (Surface.BROWSER, "Upload(file='{}')", 1024, _path),
    (Surface.MOBILE, "Type(content='{}')", 4000, _text),
    (Surface.DESKTOP, "Type(content='{}')", 4000, _escaped_text),
])
def test_text_names_and_paths_are_held_to_the_parsers_limit(vocab, grammars, surface, call,
                                                            limit, make):
    """`make(n, extra)`: a string of n + extra characters as the parser reads them."""
    grammar = grammars[surface, True]
    for extra in (0, 1):
        action = call.format(make(limit, extra))
        parsed, accepted = _agree(vocab, grammar, action, surface)
        assert parsed == (not extra), (make.__name__, extra)
        assert accepted == parsed, (make.__name__, extra)


def test_a_string_the_parser_takes_is_never_refused_for_its_length(vocab, grammars):
    """Apostrophes, `<` and escapes near the limit of every kind: the grammar counts
    them as at most their length, so it takes every string the parser does."""
    cases = [
        (Surface.MOBILE, "Type(content='{}')", ("It's <b>x</b> \\u0041 ok " * 300)[:3990]),
        (Surface.MOBILE, "LaunchApp(app='{}')", ("Domino's <Pizza> " * 20)[:199]),
        (Surface.BROWSER, "Upload(file='{}')", ("docs/John's CV.pdf/" * 60)[:1000] + "x"),
    ]
    for surface, call, body in cases:
        action = call.format(body)
        parse_action(action, surface)
        assert accepts(vocab, grammars[surface, True], _answer(action)), body[:60]


def test_launch_takes_host_names_and_dotted_quads_only(vocab, grammars):
    """A last host label of digits is read by WHATWG's IPv4 reader (`new URL`), which
    refuses `1.2.3.999`; the grammar admits names and four-part addresses, which always
    read back as written (venusctl/model/grammar.py, _url_head)."""
    grammar = grammars[Surface.BROWSER, True]
    for url in ["http://127.0.0.1:8001/a", "https://0.0.0.0", "http://a-1.example.org"]:
        text = f"Launch(url='{url}')"
        assert parse_action(text, Surface.BROWSER) == Launch(url=url)
        assert accepts(vocab, grammar, f"x</think><action>{text}</action>"), url
    for url in ["http://1.2.3.999", "http://0", "http://1.2.3.04", "http://a.1"]:
        assert not accepts(vocab, grammar, f"x</think><action>Launch(url='{url}')</action>"), url
