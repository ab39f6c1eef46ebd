"""One name for each key, whichever way the model, a policy or a driver spells it.

The model writes 'control', 'Return', 'Cmd' or 'ArrowUp'; a policy may list
'ctrl+enter' or 'cmd+return'. Matched as strings, each spelling a policy did not list
is a way past it ('control+enter' sends as 'ctrl+enter' does). So the guard reads every
key name, on both sides, as one canonical name first: left and right modifiers are
the modifier, Command, Windows, Super and Meta are `meta`, Option and AltGr `alt`.
"""

from __future__ import annotations

_SAME = {
    "control": "ctrl", "ctl": "ctrl", "lctrl": "ctrl", "rctrl": "ctrl", "ctrlleft": "ctrl",
    "ctrlright": "ctrl", "controlleft": "ctrl", "controlright": "ctrl", "leftctrl": "ctrl",
    "rightctrl": "ctrl",
    "cmd": "meta", "command": "meta", "super": "meta", "win": "meta", "windows": "meta",
    "os": "meta", "lwin": "meta", "rwin": "meta", "winleft": "meta", "winright": "meta",
    "metaleft": "meta", "metaright": "meta", "superl": "meta", "superr": "meta",
    "commandleft": "meta", "commandright": "meta",
    "opt": "alt", "option": "alt", "altgr": "alt", "altleft": "alt", "altright": "alt",
    "lalt": "alt", "ralt": "alt", "optionleft": "alt", "optionright": "alt", "altl": "alt",
    "altr": "alt",
    "lshift": "shift", "rshift": "shift", "shiftleft": "shift", "shiftright": "shift",
    "shiftl": "shift", "shiftr": "shift",
    "return": "enter", "kpenter": "enter", "numpadenter": "enter", "\n": "enter",
    "\r": "enter", "ret": "enter",
    "escape": "esc",
    "del": "delete", "kpdelete": "delete", "forwarddelete": "delete", "numpaddelete": "delete",
    "ins": "insert",
    "arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right",
    "uparrow": "up", "downarrow": "down", "leftarrow": "left", "rightarrow": "right",
    "pgup": "pageup", "pgdn": "pagedown", "prior": "pageup", "next": "pagedown",
    "spacebar": "space", " ": "space",
    "bksp": "backspace", "back": "backspace",
    "\t": "tab",
    "prtsc": "printscreen", "prtscr": "printscreen", "print": "printscreen",
}
MODIFIERS = frozenset({"ctrl", "alt", "shift", "meta", "fn"})


def key_name(name: str) -> str:
    """The canonical name of one key: case, spaces, '_' and '-' inside a name, and
    synonyms ignored ('Page_Down', 'page down' and 'PgDn' are 'pagedown'); a single
    character is itself (a letter lower-cased), whitespace characters named."""
    if len(name) == 1:
        return _SAME.get(name, name.lower())
    squeezed = name.strip().lower()
    if len(squeezed) > 1:
        squeezed = squeezed.replace(" ", "").replace("_", "").replace("-", "")
    return _SAME.get(squeezed, squeezed) if squeezed else name


def combo(keys: list[str] | tuple[str, ...] | frozenset[str]) -> frozenset[str]:
    """Keys pressed together, by their canonical names (order does not matter)."""
    return frozenset(key_name(k) for k in keys if k.strip() or k in _SAME)
