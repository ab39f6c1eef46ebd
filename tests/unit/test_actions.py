"""The action language: what the model writes, and what we make of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from venusctl.core.actions import (
    CallUser,
    Click,
    Drag,
    Finished,
    Hotkey,
    Launch,
    LongPress,
    MouseDown,
    Scroll,
    SelectOption,
    Sequence,
    Surface,
    Swipe,
    Type,
    WheelScroll,
    describe,
    normalize_answer,
    parse,
    parse_action,
    render,
)
from venusctl.core.errors import ParseError

M, D, B = Surface.MOBILE, Surface.DESKTOP, Surface.BROWSER


def test_full_answer_gives_thought_and_action():
    parsed = parse("<think>The login button is top right.</think>\n"
                   "<action>Click(point=(912, 40))</action>", M)
    assert parsed.thought == "The login button is top right."
    assert parsed.action == Click((912, 40))


def test_missing_opening_think_tag_is_handled():
    parsed = parse("I should scroll down.</think><action>Swipe(start=(500, 800), "
                   "end=(500, 200))</action>", M)
    assert parsed.thought == "I should scroll down."
    assert parsed.action == Swipe((500, 800), (500, 200))


def test_reasoning_passed_separately_wins():
    parsed = parse("<action>PressBack()</action>", M, reasoning="Go back first.")
    assert parsed.thought == "Go back first."
    assert normalize_answer("<action>PressBack()</action>", "Go back first.") == (
        "<think>Go back first.</think>\n<action>PressBack()</action>")


def test_point_and_box_are_synonyms():
    assert parse_action("Click(box=(1, 2))", M) == Click((1, 2))
    assert parse_action("Click(point=(1, 2))", D) == Click((1, 2))
    assert parse_action("MouseDown(point=[3, 4])", D) == MouseDown((3, 4))


def test_quotes_lists_and_tuples():
    assert parse_action('Type(content="say \\"hi\\"")', M) == Type('say "hi"')
    assert parse_action("Hotkey(keys=['ctrl', 'c'])", D) == Hotkey(("ctrl", "c"))
    assert parse_action("Hotkey(keys=('ctrl', 'c'))", B) == Hotkey(("ctrl", "c"))
    assert parse_action("Drag(start=[1, 2], end=(3, 4))", M) == Drag((3, 4), (1, 2))


def test_newlines_whitespace_and_apostrophes_inside_strings():
    text = "Type(content='Dear Sam,\nit's done.\n\tBye' )"
    assert parse_action(text, D) == Type("Dear Sam,\nit's done.\n\tBye")
    assert parse_action("  Finished( content = 'ok' ,  )  ", M) == Finished("ok")


def test_desktop_pointer_without_point_acts_at_cursor():
    assert parse_action("Click()", D) == Click(None)
    assert parse_action("Drag(end=(9, 9))", D) == Drag((9, 9), None)


def test_desktop_swipe_is_wheel_scroll_and_mobile_swipe_is_a_flick():
    assert parse_action("Swipe(amount=-5, axis='vertical')", D) == WheelScroll(-5, "vertical")
    with pytest.raises(ParseError):
        parse_action("Swipe(amount=-5)", M)


def test_browser_specific_actions():
    assert parse_action("Scroll(point=(5, 6), direction='Down')", B) == Scroll((5, 6), "down")
    assert parse_action("LongPress(point=(1, 1), duration=2.5)", B) == LongPress((1, 1), 2.5)
    assert parse_action("SelectOption(index=3)", B) == SelectOption(3)
    assert parse_action("Launch(url='https://example.org/a?b=c')", B) == Launch(
        "https://example.org/a?b=c")


def test_sequence_of_children():
    action = parse_action("Sequence(actions=[Click(box=(1, 2)), Type(content='x'), "
                          "Finished(content='done')])", D)
    assert action == Sequence((Click((1, 2)), Type("x"), Finished("done")))


@pytest.mark.parametrize(
    ("text", "surface", "fragment"),
    [
        ("Tap(point=(1, 2))", M, "Unknown action 'Tap'"),
        ("Click(point=(1, 2), force=True)", M, "no argument 'force'"),
        ("Click((1, 2))", M, "keyword arguments only"),
        ("Click(point=(1, 2), box=(3, 4))", M, "twice"),
        ("Click(point=(1, 2), point=(3, 4))", M, "twice"),
        ("Click(point=(1000, 2))", M, "outside the screen"),
        ("Click(point=(-1, 2))", M, "outside the screen"),
        ("Click(point=(1, 2, 3))", M, "must be a point"),
        ("Click()", M, "needs the argument 'point'"),
        ("Sequence(actions=[Click(box=(1, 2)), Sequence(actions=[Wait(), Wait()])])", D,
         "cannot contain another Sequence"),
        ("Sequence(actions=[Click(box=(1, 2))])", D, "2 to 32"),
        ("Sequence(actions=[Finished(content=''), Wait()])", D, "only be the last"),
        ("Hotkey(keys=('ctrl', 'alt', 'shift', 'x'))", B, "at most 3"),
        ("Type(content='" + "a" * 5000 + "')", M, "too long"),
        ("Swipe(amount=5000, axis='vertical')", D, "between -4096 and 4096"),
        ("Scroll(point=(1, 1), direction='sideways')", B, "must be one of"),
        ("Click(point=(1, 2)", M, "never closed"),
        ("Click(point=(1, 2)) extra", M, "unexpected text"),
        ("LaunchApp(app='')", M, "non-empty"),
        ("GetUrl()", M, "Unknown action"),
        ("Launch(url='http://[::1')", B, "not a valid address"),
        ("Launch(url='http://host:99999/')", B, "not a valid address"),
    ],
)
def test_rejections_explain_themselves(text, surface, fragment):
    with pytest.raises(ParseError, match=None) as info:
        parse_action(text, surface)
    assert fragment in str(info.value)


def test_more_than_one_action_block_is_rejected():
    with pytest.raises(ParseError, match="2 <action> blocks"):
        parse("<think>x</think><action>Wait()</action><action>Wait()</action>", M)


def test_missing_action_block_is_rejected_with_the_format():
    with pytest.raises(ParseError, match="No <action> block"):
        parse("<think>hmm</think> Click(point=(1, 2))", M)


def test_unclosed_action_block_is_read_to_the_end():
    assert parse("<think>t</think><action>PressHome()", M).action.NAME == "PressHome"


def test_model_text_is_never_executed(tmp_path: Path):
    marker = tmp_path / "pwned"
    payloads = [
        f"Click(point=__import__('os').system('touch {marker}'))",
        f"Type(content=open('{marker}', 'w').write('x'))",
        f"Type(content='a' + __import__('os').system('touch {marker}'))",
        f"__import__('os').system('touch {marker}')",
        f"Click(point=(1, 2)); __import__('os').system('touch {marker}')",
        "Type(content=[c for c in ().__class__.__base__.__subclasses__()])",
        f"exec(\"open('{marker}','w')\")",
        f"Type(content=eval(\"open('{marker}','w')\"))",
    ]
    for payload in payloads:
        with pytest.raises(ParseError):
            parse_action(payload, M)
    assert not marker.exists()


def test_render_uses_the_surface_coordinate_key():
    assert render(Click((5, 6)), D) == "Click(box=(5, 6))"
    assert render(Click((5, 6)), M) == "Click(point=(5, 6))"
    assert render(Hotkey(("ctrl", "c")), B) == "Hotkey(keys=('ctrl', 'c'))"
    assert render(Hotkey(("ctrl", "c"), 2), D) == "Hotkey(keys=['ctrl', 'c'], repeat=2)"
    assert render(Type("it's\nok"), M) == "Type(content='it\\'s\\nok')"


def test_describe_in_plain_words():
    assert describe(Click((5, 6))) == "click point (5, 6)"
    assert describe(Type("hello")) == "type content 'hello'"
    assert describe(CallUser("Which one?")) == "call user content 'Which one?'"
    assert describe(Hotkey(("ctrl", "s"))) == "hotkey ctrl+s"
