"""Key names the model writes, as pyautogui spells them; text split for typing."""

from __future__ import annotations

import pytest

from venusctl.drivers.desktop.keys import (
    TextChunk,
    case_runs,
    is_modifier,
    normalize_key,
    split_text,
)


@pytest.mark.parametrize(("name", "expected"), [
    ("ctrl", "ctrl"), ("Control", "ctrl"), ("CTRL", "ctrl"), ("Return", "enter"),
    ("Escape", "esc"), ("ArrowUp", "up"), ("page_down", "pagedown"), ("Page Up", "pageup"),
    ("PgDn", "pagedown"), ("BackSpace", "backspace"), ("del", "delete"), ("F5", "f5"),
    ("caps_lock", "capslock"), ("Shift_L", "shiftleft"), ("ctrl_r", "ctrlright"),
    ("option", "alt"), ("space", "space"), ("plus", "+"), ("A", "a"), ("7", "7"),
    ("+", "+"), ("KP_5", "num5"), ("Print", "printscreen"),
])
def test_names_are_normalised(name, expected):
    assert normalize_key(name, "linux") == expected


@pytest.mark.parametrize("name", ["cmd", "Command", "super", "win", "meta", "Windows"])
def test_the_system_key_depends_on_the_platform(name):
    assert normalize_key(name, "linux") == "win"
    assert normalize_key(name, "win32") == "win"
    assert normalize_key(name, "darwin") == "command"
    assert normalize_key("super_l", "linux") == "winleft"


def test_modifiers_are_known():
    assert all(is_modifier(k) for k in ("ctrl", "shift", "alt", "win", "command"))
    assert not any(is_modifier(k) for k in ("a", "enter", "f5"))


def test_split_text_separates_ascii_other_characters_and_newlines():
    assert split_text("Grüße\r\nA ✓\rb\tc") == [
        TextChunk("ascii", "Gr"), TextChunk("unicode", "üß"), TextChunk("ascii", "e"),
        TextChunk("enter"), TextChunk("ascii", "A "), TextChunk("unicode", "✓"),
        TextChunk("enter"), TextChunk("ascii", "b\tc")]
    assert split_text("") == []
    assert split_text("\n\n") == [TextChunk("enter"), TextChunk("enter")]


def test_upper_case_runs_are_found_for_the_shifted_typing_path():
    assert case_runs("éÉØx ΩΣ") == [(False, "é"), (True, "ÉØ"), (False, "x "), (True, "ΩΣ")]
