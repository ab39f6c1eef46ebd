"""Key names and text, as the model writes them, in the words pyautogui understands.

The model was trained on names such as 'ctrl', 'cmd', 'Return', 'ArrowUp' or
'page_down'; pyautogui knows one spelling each ('ctrl', 'command' or 'win', 'enter',
'up', 'pagedown') and silently ignores a name it does not know. So every name is
normalised here and checked against the live keyboard before anything is pressed:
an unknown key is an error the model reads, never a key press that did not happen.

Typing is split the same way: printable ASCII goes through pyautogui; any other
character goes through a Unicode-capable path (xdotool on X11, else the clipboard);
each newline is a press of Enter. Nothing here imports pyautogui, so it is unit-tested
without a display.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

_ALIASES = {
    "control": "ctrl", "ctl": "ctrl", "lctrl": "ctrlleft", "rctrl": "ctrlright",
    "lshift": "shiftleft", "rshift": "shiftright", "lalt": "altleft", "ralt": "altright",
    "altgr": "altright", "opt": "alt", "option": "alt",
    "return": "enter", "escape": "esc", "del": "delete", "ins": "insert",
    "arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right",
    "uparrow": "up", "downarrow": "down", "leftarrow": "left", "rightarrow": "right",
    "pgup": "pageup", "pgdn": "pagedown", "prior": "pageup", "next": "pagedown",
    "spacebar": "space", "bksp": "backspace", "back": "backspace", "caps": "capslock",
    "prtsc": "printscreen", "prtscr": "printscreen", "print": "printscreen",
    "menu": "apps", "context_menu": "apps", "contextmenu": "apps",
    "plus": "+", "minus": "-", "comma": ",", "period": ".", "slash": "/",
    "backslash": "\\", "semicolon": ";", "quote": "'", "apostrophe": "'",
    "equal": "=", "equals": "=", "grave": "`", "backquote": "`",
    "bracketleft": "[", "bracketright": "]",
}

_META = frozenset({"cmd", "command", "meta", "super", "win", "windows", "os", "lwin", "rwin"})
_MODIFIERS = frozenset({"ctrl", "ctrlleft", "ctrlright", "shift", "shiftleft", "shiftright",
                        "alt", "altleft", "altright", "win", "winleft", "winright", "command",
                        "option", "optionleft", "optionright", "fn"})


class KeyNameError(ValueError):
    """A key name the keyboard cannot press; the message is written for the model."""


def normalize_key(name: str, platform: str = sys.platform) -> str:
    """The pyautogui name of one key the model named (case, separators, synonyms).

    Single characters stay as they are, except letters, which are lower-cased: in a
    hotkey 'ctrl'+'A' means the A key, not Shift+A. The Command/Windows/Super key is
    'command' on macOS and 'win' elsewhere.
    """
    if len(name) == 1:
        return name.lower() if name.isalpha() else name
    key = name.strip().lower().replace(" ", "").replace("-", "")
    if len(key) == 1:
        return key
    if key in _META:
        return "command" if platform == "darwin" else "win"
    sided = _sided(key, platform)
    if sided:
        return sided
    if "_" in key and key not in _ALIASES:
        key = key.replace("_", "")
    key = _ALIASES.get(key, key)
    if key.startswith("kp") and key[2:].isdigit():
        key = f"num{key[2:]}"
    if not key:
        raise KeyNameError(f"'{name}' is not a key name")
    return key


def _sided(key: str, platform: str) -> str | None:
    """'ctrl_l', 'Shift_R', 'super_l' and the like: the modifier on that side."""
    for suffix, side in (("_l", "left"), ("_r", "right")):
        if not key.endswith(suffix):
            continue
        base = key[: -len(suffix)]
        base = _ALIASES.get(base, base)
        if base in _META:
            return "command" if platform == "darwin" else f"win{side}"
        if base in ("ctrl", "shift", "alt"):
            return f"{base}{side}"
    return None


def is_modifier(key: str) -> bool:
    """True for keys that change what other keys do (held first, released last)."""
    return key in _MODIFIERS


@dataclass(frozen=True)
class TextChunk:
    """A run of text typed one way: `kind` is 'ascii', 'unicode' or 'enter'."""

    kind: str
    text: str = ""


def is_plain(char: str) -> bool:
    """Characters pyautogui types reliably: printable ASCII and the tab."""
    return char == "\t" or " " <= char <= "~"


def split_text(content: str) -> list[TextChunk]:
    """The content as runs to type: ASCII runs, other runs, and one Enter per newline.

    `\\r\\n` and a lone `\\r` count as one newline, as they would in a text field.
    """
    text = content.replace("\r\n", "\n").replace("\r", "\n")
    chunks: list[TextChunk] = []
    for char in text:
        if char == "\n":
            chunks.append(TextChunk("enter"))
            continue
        kind = "ascii" if is_plain(char) else "unicode"
        if chunks and chunks[-1].kind == kind:
            chunks[-1] = TextChunk(kind, chunks[-1].text + char)
        else:
            chunks.append(TextChunk(kind, char))
    return chunks


def case_runs(text: str) -> list[tuple[bool, str]]:
    """The text as runs of upper-case letters (True) and everything else (False).

    xdotool types a character by binding its keysym to a spare key; X then reads an
    unshifted press of a cased Latin letter such as 'Ø' or 'É' as its lower case, so
    upper-case runs are typed with Shift held.
    """
    runs: list[tuple[bool, str]] = []
    for char in text:
        upper = char.isupper()
        if runs and runs[-1][0] == upper:
            runs[-1] = (upper, runs[-1][1] + char)
        else:
            runs.append((upper, char))
    return runs
