"""Mouse and keyboard through pyautogui, with every held key and button remembered.

`MouseDown` and `KeyDown` leave something pressed across steps, by design. If the
run then ends (finished, failed, Ctrl-C, a crash) with a key still down, the user's
desktop is left with Shift or the left button stuck. So this layer records what it
pressed and `release_all` lets go of all of it, even when interrupted again or when
the pointer rests on a fail-safe corner.

A button is never let go where the pointer happens to rest: that could click the
Delete button the guard just refused, or drop a file on Trash. Unless an action lets
go of it (`MouseUp`, the end of a `Drag`), it is released at a neutral place the
driver chooses (`Input.neutral`, see `release`).

pyautogui connects to the display when it is imported, so it is imported only
through `load_pyautogui`, after `DISPLAY` is known.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from types import ModuleType
from typing import Protocol

from venusctl.core.errors import ActionFailed, DeviceError, UsageError
from venusctl.core.text import first_line
from venusctl.drivers.desktop.keys import (
    KeyNameError,
    case_runs,
    is_plain,
    normalize_key,
    split_text,
)

log = logging.getLogger(__name__)

Point = tuple[int, int]
LEFT = "left"
DRAG_SECONDS = 0.4
XDOTOOL_DELAY_MS = 12  # xdotool's default; 2 ms loses characters in xterm (measured)
PASTE_SETTLE_S = 0.15


def load_pyautogui() -> ModuleType:
    """Import pyautogui for the current display, with its pause off and fail-safe on."""
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        raise DeviceError(
            "no X display: set DISPLAY (the desktop driver needs X11; on Wayland only "
            "XWayland windows can be operated)"
        )
    try:
        import pyautogui
    except Exception as exc:
        where = os.environ.get("DISPLAY", "the display")
        raise DeviceError(f"cannot open {where}: {first_line(exc)}") from None
    pyautogui.PAUSE = 0
    pyautogui.FAILSAFE = True
    return pyautogui


class UnicodeTyper(Protocol):
    """Types text pyautogui cannot (anything beyond printable ASCII).

    `shift_for_upper` says whether upper-case letters must be typed with Shift held;
    `whole_lines` whether a line with any such character is best typed whole.
    """

    name: str
    shift_for_upper: bool
    whole_lines: bool

    def type(self, text: str) -> None: ...

    def close(self) -> None: ...


class XdotoolTyper:
    """X11's own typing tool: it maps each character to a keysym, whatever the layout."""

    name = "xdotool"
    shift_for_upper = True
    whole_lines = False

    def __init__(self, program: str) -> None:
        self.program = program

    def type(self, text: str) -> None:
        timeout = 10 + len(text) * 0.05
        try:
            done = subprocess.run(
                [self.program, "type", "--delay", str(XDOTOOL_DELAY_MS), "--", text],
                capture_output=True, timeout=timeout, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise ActionFailed(f"xdotool could not type the text: {exc}") from None
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip() or f"exit {done.returncode}"
            raise ActionFailed(f"xdotool could not type the text: {first_line(message)}")

    def close(self) -> None:
        """Nothing is kept between calls."""


def _sleep_after(action: Callable[[], None]) -> None:
    action()
    time.sleep(PASTE_SETTLE_S)


class ClipboardTyper:
    """Paste through the clipboard, putting the user's clipboard back afterwards.

    The application reads the clipboard whenever it gets to it, so the old content is
    put back only once the paste has shown on screen (`watch` runs the paste and
    waits for the frame to change); without a screen to watch it waits a moment.
    """

    name = "clipboard"
    shift_for_upper = False
    whole_lines = True

    def __init__(self, gui: ModuleType, paste_keys: tuple[str, ...],
                 watch: Callable[[Callable[[], None]], None] | None = None) -> None:
        self.gui = gui
        self.paste_keys = paste_keys
        self.watch = watch or _sleep_after

    def type(self, text: str) -> None:
        import pyperclip

        try:
            previous = pyperclip.paste()
            pyperclip.copy(text)
        except pyperclip.PyperclipException as exc:
            raise ActionFailed(
                f"cannot type non-ASCII text: no clipboard tool ({first_line(exc)}); "
                "install xdotool or xclip") from None
        try:
            self.watch(lambda: self.gui.hotkey(*self.paste_keys))
        finally:
            try:
                pyperclip.copy(previous)
            except pyperclip.PyperclipException as exc:
                log.debug("could not restore the clipboard: %s", exc)

    def close(self) -> None:
        """Nothing is kept between calls: the clipboard is put back after each paste."""


def unicode_typer(gui: ModuleType, prefer: str | None = None,
                  watch: Callable[[Callable[[], None]], None] | None = None) -> UnicodeTyper:
    """On X11 spare keycodes held until the application has read them (`keymap`), else
    xdotool, else the clipboard (Cmd+V on macOS, Ctrl+V elsewhere); `prefer` names one.

    `watch` runs a paste and returns once it shows on screen (see `ClipboardTyper`).
    """
    paste = ("command", "v") if sys.platform == "darwin" else ("ctrl", "v")
    linux = sys.platform.startswith("linux")
    if prefer not in (None, "keymap", "xdotool", "clipboard"):
        raise UsageError(f"unknown typing method {prefer!r}: keymap, xdotool or clipboard")
    if linux and prefer in (None, "keymap") and os.environ.get("DISPLAY"):
        from venusctl.drivers.desktop.keymap import KeymapTyper

        try:
            return KeymapTyper()
        except DeviceError as exc:
            if prefer == "keymap":
                raise
            log.info("typing through xdotool or the clipboard: %s", exc)
    xdotool = shutil.which("xdotool") if linux else None
    if prefer == "clipboard" or xdotool is None:
        return ClipboardTyper(gui, paste, watch)
    return XdotoolTyper(xdotool)


Neutral = Callable[[Point], AbstractContextManager[Point | None]]
"""Given where a held button went down, a context in which to let go of it and the
pointer position to let go at (None: where the pointer is)."""


def _here(pressed: Point) -> AbstractContextManager[Point | None]:
    return nullcontext(None)


class Input:
    """pyautogui's mouse and keyboard, remembering what is held down, and where."""

    def __init__(self, gui: ModuleType, typer: UnicodeTyper, neutral: Neutral | None = None
                 ) -> None:
        self.gui = gui
        self.typer = typer
        self.neutral: Neutral = neutral or _here
        self.held_keys: list[str] = []
        self.held_buttons: list[str] = []
        self.pressed_at: dict[str, Point] = {}
        mapping = getattr(gui.platformModule, "keyboardMapping", None)
        self._mapping: dict[str, object] = mapping if isinstance(mapping, dict) else {}

    # ------------------------------------------------------------------ keys
    def key(self, name: str) -> str:
        """The pyautogui name of a key the model named, or `ActionFailed` if none."""
        try:
            key = normalize_key(name)
        except KeyNameError as exc:
            raise ActionFailed(str(exc)) from None
        known = key in self.gui.KEY_NAMES and self._mapping.get(key, True) is not None
        if not known:
            raise ActionFailed(f"unknown key '{name}' (for example: ctrl, shift, alt, enter, "
                               "tab, esc, up, pagedown, f5, a)")
        return key

    def key_down(self, names: tuple[str, ...]) -> None:
        for key in [self.key(n) for n in names]:
            if key not in self.held_keys:
                self.gui.keyDown(key)
                self.held_keys.append(key)

    def key_up(self, names: tuple[str, ...]) -> None:
        for key in [self.key(n) for n in names]:
            self.gui.keyUp(key)
            if key in self.held_keys:
                self.held_keys.remove(key)

    def hotkey(self, names: tuple[str, ...], repeat: int) -> None:
        """Press the chord `repeat` times; keys held before stay held after."""
        keys: list[str] = []
        for key in (self.key(n) for n in names):
            if key not in keys:
                keys.append(key)
        for _ in range(repeat):
            pressed: list[str] = []
            try:
                for key in keys:
                    if key not in self.held_keys:
                        self.gui.keyDown(key)
                        pressed.append(key)
            finally:
                for key in reversed(pressed):
                    self.gui.keyUp(key)

    def type_text(self, content: str) -> None:
        """ASCII through pyautogui, other characters through the Unicode typer, newline = Enter.

        A clipboard typer gets each line holding non-ASCII text whole: one paste, one wait.
        """
        lines = content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        for index, line in enumerate(lines):
            if index:
                self.gui.press("enter")
            if self.typer.whole_lines and not all(is_plain(c) for c in line):
                self.typer.type(line)
                continue
            for chunk in split_text(line):
                if chunk.kind == "ascii":
                    self.gui.write(chunk.text)
                else:
                    self._type_unicode(chunk.text)

    def _type_unicode(self, text: str) -> None:
        if not self.typer.shift_for_upper:
            self.typer.type(text)
            return
        for upper, run in case_runs(text):
            if not upper or "shift" in self.held_keys:
                self.typer.type(run)
                continue
            self.gui.keyDown("shift")
            try:
                self.typer.type(run)
            finally:
                self.gui.keyUp("shift")

    # ----------------------------------------------------------------- mouse
    def move(self, point: Point) -> None:
        self.gui.moveTo(*point)

    def click(self, point: Point | None, button: str = LEFT, clicks: int = 1) -> None:
        if point is not None:
            self.gui.click(*point, clicks=clicks, button=button)
        else:
            self.gui.click(clicks=clicks, button=button)

    def scroll(self, amount: int, horizontal: bool) -> None:
        """`amount` wheel clicks at the cursor: positive is up, or right."""
        if horizontal:
            self.gui.hscroll(amount)
        else:
            self.gui.vscroll(amount)

    def mouse_down(self, point: Point | None, button: str = LEFT) -> None:
        if point is not None:
            self.move(point)
        if button not in self.held_buttons:
            self.pressed_at[button] = point or _position(self.gui)
            self.gui.mouseDown(button=button)
            self.held_buttons.append(button)

    def mouse_up(self, point: Point | None, button: str = LEFT) -> None:
        if point is not None:
            self.move(point)
        self.gui.mouseUp(button=button)
        self._forget(button)

    def drag(self, start: Point | None, end: Point, seconds: float = DRAG_SECONDS) -> None:
        """Press at `start` (or the cursor), glide to `end` in `seconds`, release there.

        Cut short (Ctrl-C, the fail-safe, an error), it lets go at a neutral place, not
        wherever the glide had got to.
        """
        if start is not None:
            self.move(start)
        self.mouse_down(None)
        try:
            self.gui.moveTo(*end, duration=seconds)
        except BaseException:
            self._let_go_safely(LEFT)
            raise
        self.mouse_up(None)

    def hold(self, point: Point | None, seconds: float) -> None:
        self.mouse_down(point)
        try:
            time.sleep(seconds)
        except BaseException:
            self._let_go_safely(LEFT)
            raise
        self.mouse_up(None)

    def _forget(self, button: str) -> None:
        if button in self.held_buttons:
            self.held_buttons.remove(button)
        self.pressed_at.pop(button, None)

    def let_go(self, button: str) -> None:
        """Release a held button at the neutral place (see the module's docstring)."""
        pressed = self.pressed_at.get(button) or _position(self.gui)
        with self.neutral(pressed) as spot:
            if spot is not None:
                self.gui.moveTo(*spot)
            self.gui.mouseUp(button=button)
        self._forget(button)

    def _let_go_safely(self, button: str) -> None:
        """`let_go`, finished even if Ctrl-C arrives meanwhile, with the fail-safe off."""
        saved, self.gui.FAILSAFE = self.gui.FAILSAFE, False
        try:
            _, interrupted = _release_one(self.let_go, button)
        finally:
            self.gui.FAILSAFE = saved
        if interrupted:
            raise KeyboardInterrupt

    # --------------------------------------------------------------- release
    def release_all(self) -> list[str]:
        """Let go of every held key, then every held button; return what was released.

        Keys go first, while the pointer still rests where they were pressed (without a
        window manager the window under the pointer receives them).

        Runs with the fail-safe off (a pointer on a corner must not keep Shift down)
        and finishes even if Ctrl-C arrives meanwhile, re-raising it at the end.
        """
        released: list[str] = []
        interrupted = False
        saved, self.gui.FAILSAFE = self.gui.FAILSAFE, False
        try:
            for kind, items, release in (("key", self.held_keys, self.gui.keyUp),
                                         ("button", self.held_buttons, self.let_go)):
                while items:
                    item = items[-1]
                    done, hit = _release_one(release, item)
                    if item in items:
                        items.remove(item)
                    interrupted = interrupted or hit
                    if done:
                        released.append(f"{kind} {item}")
        finally:
            self.gui.FAILSAFE = saved
        if interrupted:
            raise KeyboardInterrupt
        return released


def _position(gui: ModuleType) -> Point:
    x, y = gui.position()
    return (int(x), int(y))


def _release_one(release: Callable[[str], None], item: str) -> tuple[bool, bool]:
    """Release one item, trying again if Ctrl-C cut the first try: (done, interrupted)."""
    interrupted = False
    for _attempt in range(2):
        try:
            release(item)
            return True, interrupted
        except KeyboardInterrupt:
            interrupted = True
        except Exception as exc:  # the display may be gone; then nothing is held either
            log.debug("could not release %s: %s", item, exc)
            return False, interrupted
    return False, interrupted
