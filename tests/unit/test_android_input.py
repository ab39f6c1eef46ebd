"""The shell lines the Android driver sends: quoting, `input text` pieces, IME choice."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venusctl.core.errors import ActionFailed
from venusctl.drivers.android import input as keys
from venusctl.sim.phone.shell import split_lists, tokenize

PRINTABLE = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40)


def typed_by(command: str) -> str:
    """What the phone types for a line of `input text` calls, read as its shell reads it."""
    typed = ""
    for pipeline, _sep in split_lists(tokenize(command)):
        argv = pipeline[0]
        assert argv[:2] == ["input", "text"], argv
        assert len(argv) == 3, f"one word per call: {argv}"
        typed += argv[2].replace("%s", " ")
    return typed


@settings(max_examples=300, deadline=None)
@given(PRINTABLE.filter(bool))
def test_input_text_types_exactly_the_text(text: str) -> None:
    assert typed_by(keys.input_text_command(text)) == text


@pytest.mark.parametrize("text", [
    "a b", "%s", "50%s off", "it's", "$HOME `id` $(reboot)", "a;b&&c||d|e", 'say "hi"',
    "back\\slash", "%", "%%ss", " lead and trail ", "*?[]{}~#!<>",
])
def test_shell_special_characters_survive(text: str) -> None:
    assert typed_by(keys.input_text_command(text)) == text


def test_spaces_become_percent_s_and_quotes_are_closed() -> None:
    assert keys.input_text_command("it's a test") == "input text 'it'\\''s%sa%stest'"


def test_plain_means_printable_ascii() -> None:
    assert keys.is_plain("Hello, World! ~")
    assert not keys.is_plain("Grüße")
    assert not keys.is_plain("tab\there")
    assert not keys.is_plain("🎉")


def test_touch_commands() -> None:
    assert keys.tap(10, 20) == "input tap 10 20"
    assert keys.long_press(5, 6) == "input swipe 5 6 5 6 500"
    assert keys.swipe((1, 2), (3, 4)) == "input swipe 1 2 3 4 1000"
    assert keys.drag((1, 2), (3, 4)) == "input swipe 1 2 3 4 1000"
    assert keys.keyevent(keys.KEY_RECENT) == "input keyevent 187"


def test_double_tap_starts_both_taps_within_the_window() -> None:
    command = keys.double_tap(7, 8)
    lists = split_lists(tokenize(command))
    assert [p[0] for p, _ in lists] == [["input", "tap", "7", "8"], ["sleep", "0.08"],
                                        ["input", "tap", "7", "8"], ["wait"]]
    assert lists[0][1] == "&", "the first tap runs in the background"
    assert keys.DOUBLE_TAP_GAP_S < 0.3


def test_ime_broadcast_is_base64_of_utf8() -> None:
    command = keys.ime_broadcast("Grüße 你好 🎉")
    argv = tokenize(command)
    assert argv[:5] == ["am", "broadcast", "-a", "ADB_INPUT_B64", "--es"]
    assert base64.b64decode(argv[6]).decode() == "Grüße 你好 🎉"


class PhoneShell:
    """Records lines and answers like a phone with the given packages."""

    def __init__(self, packages: set[str], ime: str = "com.android.inputmethod.latin/.LatinIME"):
        self.lines: list[str] = []
        self.installed = packages
        self.ime = ime

    def run(self, line: str) -> str:
        self.lines.append(line)
        if line.startswith("settings get secure default_input_method"):
            return self.ime
        if line.startswith("am broadcast"):
            return "Broadcast completed: result=0"
        return ""


@pytest.fixture(autouse=True)
def _no_ime_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(keys, "IME_SWITCH_S", 0.0)


def test_ascii_goes_through_input_text_and_newlines_press_enter() -> None:
    shell = PhoneShell(set())
    entry = keys.TextEntry(shell.run, lambda: shell.installed)
    assert entry.type("one\ntwo") == "input"
    assert shell.lines == ["input text 'one'", "input keyevent 66", "input text 'two'"]


def test_unicode_switches_to_adb_keyboard_once_and_restores() -> None:
    shell = PhoneShell({"com.android.adbkeyboard"})
    entry = keys.TextEntry(shell.run, lambda: shell.installed)
    assert entry.type("é") == "adb_keyboard"
    entry.type("ü")
    assert shell.lines[:2] == [
        "settings get secure default_input_method",
        f"ime enable {keys.ADB_KEYBOARD} && ime set {keys.ADB_KEYBOARD}"]
    assert sum(line.startswith("ime enable") for line in shell.lines) == 1
    entry.restore()
    assert shell.lines[-1] == "ime set 'com.android.inputmethod.latin/.LatinIME'"


def test_unicode_falls_back_to_the_clipboard() -> None:
    shell = PhoneShell({keys.CLIPPER_PACKAGE})
    entry = keys.TextEntry(shell.run, lambda: shell.installed)
    assert entry.type("你好") == "clipboard"
    assert shell.lines == ["am broadcast -a clipper.set -e text '你好'", "input keyevent 279"]


def test_unicode_without_any_way_names_the_fix() -> None:
    shell = PhoneShell(set())
    entry = keys.TextEntry(shell.run, lambda: shell.installed)
    with pytest.raises(ActionFailed, match="ADB Keyboard"):
        entry.type("Grüße")
    assert shell.lines == []


@pytest.mark.parametrize(("start", "end", "ms"), [
    ((0, 0), (0, 0), 1000),            # no distance: the shortest swipe, 1 s
    ((0, 0), (0, 1000), 1000),         # 1000 px: 1000² / 1000 = 1000 ms
    ((0, 0), (0, 1200), 1440),         # in between: the squared distance over 1000
    ((0, 0), (1080, 2400), 2000),      # a long diagonal: capped at 2 s
])
def test_swipes_and_drags_take_longer_the_longer_they_are(start, end, ms) -> None:
    assert keys.swipe_ms(start, end) == ms
    assert keys.swipe(start, end).endswith(f" {ms}")
    assert keys.drag(start, end) == keys.swipe(start, end)


def test_clearing_a_field_presses_end_then_backspace_and_delete_per_character() -> None:
    assert keys.clear_field(0) == []
    assert keys.clear_field(3) == ["input keyevent 123 67 67 67 112 112 112"]
    lines = keys.clear_field(300)
    assert len(lines) == 3 and all(len(line.split()) <= 2 + keys.CLEAR_CHUNK for line in lines)
    codes = " ".join(line.removeprefix("input keyevent ") for line in lines).split()
    assert codes == ["123"] + ["67"] * 300 + ["112"] * 300
    huge = [line.removeprefix("input keyevent ") for line in keys.clear_field(10**6)]
    assert len(" ".join(huge).split()) == 2 * keys.CLEAR_MOST + 1
