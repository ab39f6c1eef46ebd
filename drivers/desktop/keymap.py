"""Typing any character on X11 through spare keycodes, and knowing the application took it.

X delivers a key press as a keycode; the application turns it into a character with
the keyboard map *as it reads it when it gets to the event*, not as it was when the
key was pressed. A tool that binds a character to a spare keycode, presses it and
puts the map back at once (xdotool does) races the application: one that reads its
events a moment late finds the keycode bound to nothing, or to the next character,
and a character is lost (`Grüße, 你好` arrived as `Grüße, 你` under load).

So the binding stays until the application has read the press. Each character gets
a spare keycode of its own for as long as spare keycodes last (bound to the same
keysym on every level, so Shift and Caps Lock cannot change it); a keycode is bound
again only once the focused application has answered an EWMH `_NET_WM_PING` sent
after the press (its events arrive in order, so an answer means it read them), or,
for an application that does not list `_NET_WM_PING` among its protocols, once
`REBIND_AFTER_S` has passed. Only a window that lists it is pinged: xterm closes on
any `WM_PROTOCOLS` message it does not know.

A new binding must also reach the application before the press that uses it. Tk
turns a key press into a character as it moves the event off the connection, and
takes in a keyboard-map change only when it handles that event, so a press that
arrives together with the change is read by the old map: nothing, or the previous
character (measured: one Tk field in three lost a character of a 24-letter Greek
text). So the characters a Type action needs are bound together before its first
press, and the application is then pinged once, or, when it takes no pings, given
`TAKE_IN_S` to wake up and read the change; a keycode rebound mid-text is handled
the same way. Every Type action ends with a ping too, so the action is reported done
only when the application has the text; the bindings are put back when the driver
closes.
"""

from __future__ import annotations

import logging
import time
import unicodedata
from collections import OrderedDict
from typing import Any

from venusctl.core.errors import ActionFailed, DeviceError
from venusctl.core.text import first_line

log = logging.getLogger(__name__)

PING_TIMEOUT_S = 10.0
"""How long a focused application that answers pings may take to read its input."""
REBIND_AFTER_S = 0.5
"""For an application that does not answer pings: how long a keycode it was sent stays
bound before it may carry another character."""
TAKE_IN_S = 0.1
"""For an application that does not answer pings: how long it is given to read a change
of the keyboard map before a key press relies on it (it needs to run once in between;
50 ms already removed every loss measured on a loaded 2-core machine)."""
SPARE_RESERVE = 2
"""Spare keycodes left alone for other tools that bind a scratch key (xdotool binds the
last free one)."""


def keysym_of(char: str) -> int:
    """X's keysym for one character: Latin-1 as itself, the rest as 0x01000000 + code."""
    code = ord(char)
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code
    return 0x01000000 | code


def typeable(char: str) -> bool:
    """Whether a key press can carry `char` (not a control or unassigned character)."""
    return unicodedata.category(char) not in ("Cc", "Cs", "Cn")


class KeymapTyper:
    """Types text through spare keycodes bound for as long as the application needs them."""

    name = "keymap"
    shift_for_upper = False
    whole_lines = False

    def __init__(self, display: Any = None) -> None:
        from Xlib import X, error
        from Xlib import display as xdisplay
        from Xlib.ext import xtest

        self._X, self._xtest, self._error = X, xtest, error
        try:
            self.display = display or xdisplay.Display()
        except Exception as exc:  # no display, or no permission to open it
            raise DeviceError(f"cannot open the display for typing: {first_line(exc)}") from None
        if not self.display.has_extension("XTEST"):
            self.display.close()
            raise DeviceError("the X server has no XTEST extension: it cannot be typed into")
        info = self.display.display.info
        self.low = info.min_keycode
        count = info.max_keycode - info.min_keycode + 1
        rows = self.display.get_keyboard_mapping(self.low, count)
        self.width = max(1, len(rows[0]) if rows else 1)
        spare = [self.low + i for i, row in enumerate(rows) if not any(row)]
        self.spare = spare[:-SPARE_RESERVE] if len(spare) > SPARE_RESERVE else spare
        self.bound: OrderedDict[int, str] = OrderedDict()  # keycode -> char, oldest first
        self.sent_at: dict[int, float] = {}  # keycode -> when it was last pressed
        self.unconfirmed: set[int] = set()  # pressed since the application last answered
        self.root = self.display.screen().root
        self.root.change_attributes(event_mask=X.SubstructureNotifyMask)
        self._ping = self.display.intern_atom("_NET_WM_PING")
        self._protocols = self.display.intern_atom("WM_PROTOCOLS")
        self._stamp = 0
        if not self.spare:
            self.display.close()
            raise DeviceError("the keyboard map has no spare keycode to type other characters")

    # ------------------------------------------------------------------ typing
    def type(self, text: str) -> None:
        for char in text:
            if not typeable(char):
                raise ActionFailed(f"cannot type the character U+{ord(char):04X}: "
                                   "no key press carries it")
        self._bind_ahead(text)
        for char in text:
            code = self._keycode(char)
            self._xtest.fake_input(self.display, self._X.KeyPress, code)
            self._xtest.fake_input(self.display, self._X.KeyRelease, code)
            self.display.sync()
            self.sent_at[code] = time.monotonic()
            self.unconfirmed.add(code)
            self.bound.move_to_end(code)
        self.confirm()

    def _bind_ahead(self, text: str) -> None:
        """Bind the characters of `text` that have no keycode yet to free ones, all
        before the first press, and let the application take the change in once."""
        new = [char for char in dict.fromkeys(text) if char not in self.bound.values()]
        free = [code for code in self.spare if code not in self.bound]
        for char, code in zip(new, free, strict=False):
            self.display.change_keyboard_mapping(code, [(keysym_of(char),) * self.width])
            self.bound[code] = char
        if new and free:
            self.display.sync()
            self._take_in()

    def _take_in(self) -> None:
        """Return once the focused application has read the keyboard-map changes made so
        far: its answer to a ping, or `TAKE_IN_S` when it takes no pings."""
        if not self.confirm(changed=True):
            time.sleep(TAKE_IN_S)  # no ping to ask: the bound is all there is

    def _keycode(self, char: str) -> int:
        """A keycode bound to `char`: one already bound, a free one, else the oldest
        once the application has read the press it last carried."""
        for code, bound in self.bound.items():
            if bound == char:
                return code
        free = [c for c in self.spare if c not in self.bound]
        code = free[0] if free else next(iter(self.bound))
        if code in self.unconfirmed:
            self.confirm()
            wait = REBIND_AFTER_S - (time.monotonic() - self.sent_at.get(code, 0.0))
            if code in self.unconfirmed and wait > 0:
                time.sleep(wait)  # no ping answered: the bound is all there is
        self.display.change_keyboard_mapping(code, [(keysym_of(char),) * self.width])
        self.display.sync()
        self.bound[code] = char
        self.unconfirmed.discard(code)
        self._take_in()
        return code

    # ------------------------------------------------------------------ confirming
    def confirm(self, changed: bool = False) -> bool:
        """Return once the focused application has read every press sent so far (and
        with `changed`, the keyboard-map changes): its answer to a ping sent after them,
        or at once when it does not take pings; whether it answered. An application
        that takes longer than `PING_TIMEOUT_S` is an error said plainly: the text may
        not all have arrived."""
        if not self.unconfirmed and not changed:
            return True
        found = self._focused_top_level()
        if found is None:
            return False
        window, listed = found
        if not listed:
            return False
        self._stamp = (self._stamp + 1) & 0xFFFFFFFF
        self._send_ping(window, self._stamp)
        deadline = time.monotonic() + PING_TIMEOUT_S
        while time.monotonic() < deadline:
            while self.display.pending_events():
                event = self.display.next_event()
                if self._is_answer(event, window, self._stamp):
                    self.unconfirmed.clear()
                    return True
            time.sleep(0.005)
        raise ActionFailed(f"the focused application did not take the typed text within "
                           f"{PING_TIMEOUT_S:.0f} s; some of it may be missing")

    def _focused_top_level(self) -> tuple[Any, bool] | None:
        """The top-level window that gets the keys, and whether it lists `_NET_WM_PING`.

        The focus window, or with the focus following the pointer (PointerRoot, as on
        a bare X server) the root's child under the pointer; from there the first
        window with `WM_PROTOCOLS` up, or else down (a window manager's frame holds
        the client window). None when there is none.
        """
        try:
            window = self.display.get_input_focus().focus
            if not hasattr(window, "query_tree"):  # PointerRoot or None
                window = self.root.query_pointer().child
            start = window
            while hasattr(window, "query_tree") and window.id != self.root.id:
                if (found := self._protocols_of(window)) is not None:
                    return found
                window = window.query_tree().parent
            level = [start] if hasattr(start, "query_tree") else []
            for _ in range(3):
                level = [c for w in level for c in w.query_tree().children]
                for child in level:
                    if (found := self._protocols_of(child)) is not None:
                        return found
        except self._error.XError as exc:  # the window went away meanwhile
            log.debug("finding the focused window: %s", exc)
        return None

    def _protocols_of(self, window: Any) -> tuple[Any, bool] | None:
        protocols = window.get_full_property(self._protocols, self._X.AnyPropertyType)
        return None if protocols is None else (window, self._ping in protocols.value)

    def _send_ping(self, window: Any, stamp: int) -> None:
        from Xlib.protocol import event as xevent

        message = xevent.ClientMessage(window=window, client_type=self._protocols,
                                       data=(32, [self._ping, stamp, window.id, 0, 0]))
        window.send_event(message, event_mask=0)
        self.display.flush()

    def _is_answer(self, event: Any, window: Any, stamp: int) -> bool:
        if event.type != self._X.ClientMessage or event.client_type != self._protocols:
            return False
        data = event.data[1]
        return data[0] == self._ping and data[1] == stamp and data[2] == window.id

    # ------------------------------------------------------------------ closing
    def close(self) -> None:
        """Put every keycode this typer bound back to nothing."""
        try:
            if self.bound:
                self.confirm()
            for code in list(self.bound):
                self.display.change_keyboard_mapping(code, [(0,) * self.width])
            self.bound.clear()
            self.display.sync()
        except Exception as exc:  # the display is gone: nothing left to put back
            log.debug("restoring the keyboard map: %s", exc)
        finally:
            self.display.close()
