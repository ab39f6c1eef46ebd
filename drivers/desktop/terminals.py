"""Is this window a terminal emulator? Decided by what the window is, never by its title.

A title is whatever the shell or the program running in it last set ("Build log",
"vim notes.txt", or the command given to `xterm -e`), so the safety layer must not
rely on it. The window's class (WM_CLASS on X11), the process that owns the window
and, through AT-SPI, the role "terminal" (VTE-based terminals publish it) say what
the program is. Typed text in a terminal is a command, which the guard then judges.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# class or process names, normalised (lower case, letters and digits only)
TERMINAL_NAMES = frozenset({
    "xterm", "uxterm", "koi8rxterm", "lxterm", "rxvt", "urxvt", "rxvtunicode", "urxvtd",
    "aterm", "eterm", "mlterm", "kterm", "st", "st256color", "stterm", "zutty",
    "gnometerminal", "gnometerminalserver", "orggnometerminal", "orggnomeconsole", "kgx",
    "ptyxis", "orggnomeptyxis", "konsole", "orgkdekonsole", "yakuake", "kitty", "alacritty",
    "orgalacritty", "wezterm", "weztermgui", "orgwezfurlongwezterm", "xfce4terminal",
    "mateterminal", "lxterminal", "qterminal", "terminator", "tilix",
    "comgexpertstilix", "terminology", "sakura", "guake", "tilda", "foot", "footclient",
    "coolretroterm", "deepinterminal", "hyper", "tabby", "warp", "ghostty",
    "commitchellhghostty", "blackbox", "comragesilverblackbox", "contour", "extraterm",
    "roxterm", "termite", "cutefishterminal", "ioelementaryterminal", "pantheonterminal",
    "terminal", "appleterminal", "comappleterminal", "iterm", "iterm2", "comgooglecodeiterm2",
    "windowsterminal", "wt", "conhost", "cmd", "powershell", "pwsh", "mintty", "putty",
    "qtermwidget", "xiterm", "evilvte", "lilyterm", "termit", "xvt", "vte",
})
_NOT_NAME = re.compile(r"[^a-z0-9]+")


def normalised(name: str | None) -> str:
    """'gnome-terminal-server' -> 'gnometerminalserver', 'WindowsTerminal.exe' -> ..."""
    text = (name or "").lower()
    return _NOT_NAME.sub("", text.removesuffix(".exe"))


def is_terminal(classes: Iterable[str] = (), process: str | None = None,
                role: str | None = None) -> bool:
    """True when the window class, the owning process or the accessible role is a terminal's.

    Process names on Linux are cut to 15 characters ("gnome-terminal-" for
    gnome-terminal-server), so a process name also counts when a known name starts
    with it.
    """
    if (role or "").lower() == "terminal":
        return True
    if any(normalised(c) in TERMINAL_NAMES for c in classes):
        return True
    name = normalised(process)
    if not name:
        return False
    if name in TERMINAL_NAMES:
        return True
    return len(process or "") >= 15 and any(known.startswith(name) for known in TERMINAL_NAMES)
