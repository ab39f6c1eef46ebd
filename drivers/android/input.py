"""The shell lines that carry out touches, keys and text on a phone.

Every `input` call starts a Java process on the phone (a few hundred ms on real
hardware), which shapes these commands: a double tap starts its two taps in
parallel, a small delay apart, so both land inside the 300 ms double-tap window.
Gesture timings follow the authors' executor (`venusctl.interface.profile`, mobile): a swipe
takes longer the longer it is, between 1 and 2 seconds; a long press is a swipe of
500 ms that does not move; a drag is the same slow swipe as a Swipe.

`Type` replaces what the focused field holds, as the model was trained ("auto-clear"):
the field is emptied with the End key then Backspace and Delete once per character
it holds (read from the screen's hierarchy), and only when it is a text field, so
no Delete key ever reaches a list or a page.

Text: `input text` types printable ASCII only and reads `%s` as a space, so spaces
become `%s`, a literal `%s` is split across two calls, and everything is
single-quoted for the phone's shell. Other text (accents, Chinese, emoji) goes
through the ADB Keyboard IME broadcast (base64, so no quoting issue), else the
clipboard (Clipper app broadcast, then the paste key), else an error naming the fix.
"""

from __future__ import annotations

import base64
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from venusctl.core.errors import ActionFailed
from venusctl.interface.profile import authors_profile

log = logging.getLogger(__name__)

PROFILE = authors_profile("mobile")
DOUBLE_TAP_GAP_S = 0.08
LONG_PRESS_MS = PROFILE.long_press_ms or 500
KEY_ENTER, KEY_BACK, KEY_HOME, KEY_RECENT, KEY_PASTE = 66, 4, 3, 187, 279
KEY_DEL, KEY_FORWARD_DEL, KEY_MOVE_END = 67, 112, 123
CLEAR_MOST = 2000
"""Most characters a clear removes (a longer field keeps its tail)."""
CLEAR_CHUNK = 250
"""Key codes per `input keyevent` call, to keep each shell line short."""
ADB_KEYBOARD = "com.android.adbkeyboard/.AdbIME"
CLIPPER_PACKAGE = "ca.zgrs.clipper"
IME_SWITCH_S = 0.5
UNICODE_FIX = ("install ADB Keyboard (https://github.com/senzhk/ADBKeyBoard: "
               "'adb install ADBKeyboard.apk'); venusctl switches to it by itself when it "
               "must type such text")


def quote(text: str) -> str:
    """One word for the phone's shell, whatever the characters."""
    return "'" + text.replace("'", "'\\''") + "'"


def is_plain(text: str) -> bool:
    """True when `input text` can type it: printable ASCII only."""
    return all(32 <= ord(ch) <= 126 for ch in text)


def input_text_pieces(text: str) -> list[str]:
    """Arguments for successive `input text` calls that type exactly `text`.

    `input text` turns `%s` into a space, so spaces are written `%s`, and a literal
    `%s` is broken between two calls (`...%` then `s...`).
    """
    pieces = text.split("%s")
    words = []
    for index, piece in enumerate(pieces):
        chunk = piece + ("%" if index < len(pieces) - 1 else "")
        if index > 0:
            chunk = "s" + chunk
        if chunk:
            words.append(chunk.replace(" ", "%s"))
    return words


def input_text_command(text: str) -> str:
    """One shell line typing printable-ASCII `text` with `input text`."""
    return " && ".join(f"input text {quote(word)}" for word in input_text_pieces(text))


def tap(x: int, y: int) -> str:
    return f"input tap {x} {y}"


def double_tap(x: int, y: int) -> str:
    """Two taps started in parallel, `DOUBLE_TAP_GAP_S` apart, then wait for both."""
    return f"input tap {x} {y} & sleep {DOUBLE_TAP_GAP_S}; input tap {x} {y}; wait"


def long_press(x: int, y: int, ms: int = LONG_PRESS_MS) -> str:
    return f"input swipe {x} {y} {x} {y} {ms}"


def swipe_ms(start: tuple[int, int], end: tuple[int, int]) -> int:
    """How long a swipe between two points takes: slower the longer (the authors'
    executor: the squared distance over 1000, within 1 to 2 seconds)."""
    return PROFILE.swipe_ms(end[0] - start[0], end[1] - start[1])


def swipe(start: tuple[int, int], end: tuple[int, int], ms: int | None = None) -> str:
    duration = swipe_ms(start, end) if ms is None else ms
    return f"input swipe {start[0]} {start[1]} {end[0]} {end[1]} {duration}"


def drag(start: tuple[int, int], end: tuple[int, int]) -> str:
    """A drag is the same slow swipe (sliders follow it, as the model was trained)."""
    return swipe(start, end)


def keyevent(code: int) -> str:
    return f"input keyevent {code}"


def clear_field(length: int) -> list[str]:
    """Shell lines that empty a focused field holding `length` characters: End, then
    Backspace and Delete that many times (Delete catches text after the cursor)."""
    count = min(max(length, 0), CLEAR_MOST)
    if count == 0:
        return []
    codes = [KEY_MOVE_END] + [KEY_DEL] * count + [KEY_FORWARD_DEL] * count
    return ["input keyevent " + " ".join(map(str, codes[i:i + CLEAR_CHUNK]))
            for i in range(0, len(codes), CLEAR_CHUNK)]


def ime_broadcast(text: str) -> str:
    encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f"am broadcast -a ADB_INPUT_B64 --es msg {encoded}"


def clipper_broadcast(text: str) -> str:
    return f"am broadcast -a clipper.set -e text {quote(text)}"


@dataclass
class TextEntry:
    """Types text on one phone, choosing the way once and remembering the IME to restore."""

    run: Callable[[str], str]  # shell line -> output; raises ActionFailed on failure
    packages: Callable[[], set[str]]
    _ime_ready: bool = False
    _previous_ime: str | None = None
    _way: str | None = None

    def check(self, content: str) -> None:
        """Raise `ActionFailed` now if some of `content` cannot be typed on this phone,
        before anything (a clear, the first line) has changed the field."""
        if self._way is None and not all(is_plain(line) for line in content.split("\n")):
            self._choose()

    def type(self, content: str) -> str:
        """Type `content`, Enter for each newline; return the way used."""
        used = "input"
        for index, line in enumerate(content.split("\n")):
            if index:
                self.run(keyevent(KEY_ENTER))
            if not line:
                continue
            if is_plain(line):
                self.run(input_text_command(line))
            else:
                used = self._unicode(line)
        return used

    def _unicode(self, text: str) -> str:
        way = self._way or self._choose()
        if way == "adb_keyboard":
            self._switch_ime()
            output = self.run(ime_broadcast(text))
            if "result=0" not in output and "Broadcast completed" not in output:
                raise ActionFailed(f"ADB Keyboard did not take the text: {output[:200]}")
        else:
            self.run(clipper_broadcast(text))
            self.run(keyevent(KEY_PASTE))
        return way

    def _choose(self) -> str:
        installed = self.packages()
        if ADB_KEYBOARD.split("/")[0] in installed:
            self._way = "adb_keyboard"
        elif CLIPPER_PACKAGE in installed:
            self._way = "clipboard"
        else:
            raise ActionFailed(f"cannot type non-ASCII text on this phone: {UNICODE_FIX}")
        return self._way

    def _switch_ime(self) -> None:
        if self._ime_ready:
            return
        current = self.run("settings get secure default_input_method").strip()
        if current != ADB_KEYBOARD:
            self._previous_ime = current if current and current != "null" else None
            self.run(f"ime enable {ADB_KEYBOARD} && ime set {ADB_KEYBOARD}")
            time.sleep(IME_SWITCH_S)  # the new IME binds to the focused field asynchronously
        self._ime_ready = True

    def restore(self) -> None:
        """Give the user back the keyboard they had (called when the driver closes)."""
        if self._previous_ime:
            self.run(f"ime set {quote(self._previous_ime)}")
            self._previous_ime = None
            self._ime_ready = False
