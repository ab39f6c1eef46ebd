"""The desktop surface: the user's own screen, seen with mss and operated with pyautogui.

Coordinates arrive in pixels of the captured image (the grid was mapped onto the
image by `venusctl.core.grid`); `PointerMap` turns them into pointer coordinates of the
monitor, which differ on HiDPI screens and for monitors not at the origin.

Held keys and buttons (`KeyDown`, `MouseDown`) persist across steps until released,
and are always released by `close()`, which `venusctl.run.build` calls however the run
ends; an `atexit` hook and a SIGHUP handler cover an interpreter exit and a closed
terminal. A held button is let go at a neutral place (`release`), never over
whatever the pointer rests on. pyautogui's fail-safe stays on: moving the mouse into
a screen corner stops the run (exit code 4) and still releases everything.

`describe` moves the pointer to the point first, so what it reports is what a click
there will reach, hover-revealed controls included. Without accessibility (Tk,
games, remote desktops) it cannot tell what is there: the element is then marked
`unidentified`/`nameless` and the safety layer reads the screenshot instead; the
window's title is context, never a target's label.

`surface_text` (a batch's `text_present` check) is the active window's title and, where
the app publishes them on AT-SPI, the names and text of its showing objects; for a
window without accessibility it is the title alone, and the check reads the window's
pixels (`venusctl.batch.shown_text`: OCR belongs to the safety engine, above drivers).
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageChops

from venusctl.core.actions import (
    Action,
    Click,
    DoubleClick,
    Drag,
    Hotkey,
    Hover,
    KeyDown,
    KeyUp,
    LongPress,
    MiddleClick,
    MouseDown,
    MouseUp,
    RightClick,
    Sequence,
    Surface,
    TripleClick,
    Type,
    Wait,
    WheelScroll,
    is_terminal,
    render,
)
from venusctl.core.errors import Aborted, ActionFailed, DeviceError, UsageError
from venusctl.core.grid import ScreenSize
from venusctl.core.text import first_line
from venusctl.drivers.base import ActionResult, Element, Screen, ScreenContext
from venusctl.drivers.capabilities import Capability
from venusctl.drivers.desktop.capture import Capturer, list_monitors
from venusctl.drivers.desktop.geometry import Monitor, PointerMap, avoid_corners, choose_monitor
from venusctl.drivers.desktop.input import Input, load_pyautogui, unicode_typer
from venusctl.drivers.desktop.release import neutral_point
from venusctl.drivers.desktop.windows import WindowInfo, open_windows
from venusctl.drivers.settle import wait_until_stable

log = logging.getLogger(__name__)

__all__ = ["DesktopDriver", "DesktopOptions", "list_monitors"]

WAIT_SECONDS = 1.0
LONG_PRESS_SECONDS = 1.0
SEQUENCE_SETTLE_CAP_S = 1.0
CACHE_MAX_AGE_S = 1.0
PASTE_SHOW_CAP_S = 1.0
HOVER_SETTLE_CAP_S = 0.5
FAILSAFE_MESSAGE = ("stopped by pyautogui's fail-safe: the mouse pointer is in a corner of "
                    "the screen (move it away before the next run)")


@dataclass
class DesktopOptions:
    """How to open the desktop; `monitor` and `image_format` have command-line flags.

    `region` operates a rectangle of the desktop instead of a whole monitor (a kiosk
    window, or a test); `unicode_typing` forces 'keymap', 'xdotool' or 'clipboard'.
    """

    monitor: int | None = None
    image_format: str = "jpeg"
    jpeg_quality: int = 80
    region: Monitor | None = None
    unicode_typing: str | None = None
    accessibility: bool = True


class DesktopDriver:
    """One monitor of the local desktop as a surface."""

    surface = Surface.DESKTOP
    name = "desktop"
    capabilities = frozenset({Capability.FOCUSED_ELEMENT, Capability.POINTER_ELEMENT,
                              Capability.SENSITIVE_REGIONS, Capability.SURFACE_TEXT})

    def __init__(self, options: DesktopOptions | None = None) -> None:
        self.options = options or DesktopOptions()
        self._closed = False
        if os.environ.get("XDG_SESSION_TYPE") == "wayland":
            log.warning("this is a Wayland session: only XWayland windows can be seen and "
                        "operated; log in to an X11 session for the whole desktop")
        self.capturer = Capturer(self.options.image_format, self.options.jpeg_quality)
        try:
            self.monitor = self.options.region or choose_monitor(
                self.capturer.monitors(), self.options.monitor)
            self.gui = load_pyautogui()
            self._failsafe_error: type[BaseException] = self.gui.FailSafeException
            self.input = Input(self.gui, unicode_typer(
                self.gui, self.options.unicode_typing, self._until_shown))
            first = self.capturer.grab(self.monitor)
        except LookupError as exc:
            self.capturer.close()
            raise UsageError(f"--monitor: {exc}") from None
        except BaseException:
            self.capturer.close()
            raise
        self.map = PointerMap(self.monitor, ScreenSize(*first.size))
        self._cached: tuple[Image.Image, float] | None = None  # settle's last frame
        self.windows = open_windows()
        self.input.neutral = self._neutral_place
        self.accessible = _open_accessibility() if self.options.accessibility else None
        self._previous_sighup = _catch_hangup()
        atexit.register(self.close)

    # ---------------------------------------------------------------- observing
    def screenshot(self) -> Screen:
        image = self._take_cached() or self.capturer.grab(self.monitor)
        self.map = PointerMap(self.monitor, ScreenSize(*image.size))
        data, mime = self.capturer.encode(image)
        return Screen(data, mime, self.map.image, self.context(), time.time())

    def _take_cached(self) -> Image.Image | None:
        cached, self._cached = self._cached, None
        if cached is None or time.monotonic() - cached[1] > CACHE_MAX_AGE_S:
            return None
        return cached[0]

    def context(self) -> ScreenContext:
        window = self.windows.active()
        if window is None:
            return ScreenContext()
        return ScreenContext(app=window.app, title=window.title)

    def describe(self, x: int, y: int) -> Element | None:
        """What a click at the image pixel reaches, once the pointer hovers there.

        The pointer is moved first (unless a button is held: moving would drag), so a
        control that appears on hover is the one described.
        """
        target = avoid_corners(self.map.to_pointer(x, y), self.gui.FAILSAFE_POINTS, self.monitor)
        if not self.input.held_buttons:
            self.input.move(target)
            self.settle(HOVER_SETTLE_CAP_S)
        return self._element_at(*target)

    def pointer_element(self) -> Element | None:
        """What is under the pointer now (for actions that carry no point)."""
        px, py = self.gui.position()
        return self._element_at(int(px), int(py))

    def _element_at(self, px: int, py: int) -> Element | None:
        window = self.windows.at(px, py)
        accessible = None
        if self.accessible is not None:
            accessible = self.accessible.element_at(
                px, py, window.pid if window else None, window.bounds if window else None)
        if window is None and accessible is None:
            return None
        return self._element(window or WindowInfo(), accessible, pointed=True)

    def focused_element(self) -> Element | None:
        """Where typed text and keys go: the focused accessible object, with what keys
        would press in its window; else the active window, as an unidentified target."""
        window = self.windows.active()
        found = None
        if self.accessible is not None:
            found = self.accessible.focused(window.pid if window else None)
        if window is None and found is None:
            return None
        return self._element(window or WindowInfo(), found, pointed=False)

    def sensitive_regions(self) -> list[tuple[int, int, int, int]]:
        """Password fields showing on this monitor, in image pixels (blurred in records)."""
        if self.accessible is None:
            return []
        boxes = [self.map.rect_to_image(*box) for box in self.accessible.password_fields()]
        return [box for box in boxes if box[2] > 0 and box[3] > 0]

    def surface_text(self) -> str:
        """What the active window says: its title, then (through AT-SPI) the names and
        text contents of its showing objects, within a bound on their count and time."""
        window = self.windows.active()
        parts = [window.title] if window is not None and window.title else []
        if self.accessible is not None:
            parts.append(self.accessible.window_text(window.pid if window else None,
                                                     window.bounds if window else None))
        return "\n".join(part for part in parts if part)

    def _element(self, window: WindowInfo, found: Any, pointed: bool) -> Element:
        """The element facts for the record and the guard; the window's title is kept
        as context (`window_title`) and never becomes the element's name."""
        extra: dict[str, Any] = dict(window.extra)
        if window.title:
            extra["window_title"] = window.title
        if window.bounds:
            extra["window_bounds"] = list(self.map.rect_to_image(*window.bounds))
        if found is None:  # no accessibility here: nothing is known of the element
            extra["unidentified"] = True
            if pointed:
                extra["nameless"] = True
            return Element(app=window.app, extra=extra)
        terminal = extra.get("terminal") or found.extra.get("terminal")
        extra.update(found.extra)
        if terminal:
            extra["terminal"] = True
        bounds = self.map.rect_to_image(*found.bounds) if found.bounds else None
        return Element(
            text=found.text, name=found.name, role=found.role, app=window.app or found.app,
            clickable=found.clickable, password=found.password, bounds=bounds, extra=extra,
        )

    def settle(self, cap_s: float) -> float:
        """Wait for two matching frames (at most `cap_s`); keep the last for the next look."""
        start = time.monotonic()
        last: list[Image.Image] = []

        def grab() -> Image.Image:
            frame = self.capturer.grab(self.monitor)
            last.append(frame)
            return frame

        wait_until_stable(grab, cap_s)
        if last:
            self._cached = (last[-1], time.monotonic())
        return time.monotonic() - start

    def _until_shown(self, action: Callable[[], None], cap_s: float = PASTE_SHOW_CAP_S) -> None:
        """Run `action` and return once the screen has changed and come to rest.

        Compared pixel for pixel: a few pasted characters are too small a change for
        the settle's thumbnails.
        """
        before = self.capturer.grab(self.monitor)
        action()
        start = time.monotonic()
        while time.monotonic() - start < cap_s:
            if ImageChops.difference(before, self.capturer.grab(self.monitor)).getbbox():
                self.settle(max(cap_s - (time.monotonic() - start), 0.0))
                return
            time.sleep(0.02)

    # ------------------------------------------------------------------- acting
    def perform(self, action: Action) -> ActionResult:
        self._cached = None
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise ActionFailed(f"{type(action).__name__} is not a desktop action")
        try:
            return handler(self, action)
        except (ActionFailed, DeviceError, Aborted):
            raise
        except self._failsafe_error:
            raise Aborted(FAILSAFE_MESSAGE) from None
        except Exception as exc:
            if _display_gone(exc):
                raise DeviceError(f"the display is gone: {first_line(exc)}") from None
            raise ActionFailed(f"could not perform {type(action).__name__}: "
                               f"{first_line(exc)}") from None

    def pointer(self, point: tuple[int, int] | None) -> tuple[int, int] | None:
        """An image pixel as the pointer position to use (off the fail-safe corners)."""
        if point is None:
            return None
        target = self.map.to_pointer(*point)
        return avoid_corners(target, self.gui.FAILSAFE_POINTS, self.monitor)

    def _click(self, action: Click | DoubleClick | TripleClick | RightClick | MiddleClick
               ) -> ActionResult:
        button, clicks = _CLICKS[type(action)]
        self.input.click(self.pointer(action.point), button, clicks)
        return ActionResult()

    def _hover(self, action: Hover) -> ActionResult:
        target = self.pointer(action.point)
        if target is not None:
            self.input.move(target)
        return ActionResult()

    def _long_press(self, action: LongPress) -> ActionResult:
        self.input.hold(self.pointer(action.point), action.duration or LONG_PRESS_SECONDS)
        return ActionResult()

    def _drag(self, action: Drag) -> ActionResult:
        end = self.pointer(action.end)
        if end is None:
            raise ActionFailed("Drag needs an end point")
        self.input.drag(self.pointer(action.start), end)
        return ActionResult()

    def _wheel(self, action: WheelScroll) -> ActionResult:
        self.input.scroll(action.amount, action.axis == "horizontal")
        return ActionResult()

    def _type(self, action: Type) -> ActionResult:
        self.input.type_text(action.content)
        return ActionResult()

    def _hotkey(self, action: Hotkey) -> ActionResult:
        self.input.hotkey(action.keys, action.repeat or 1)
        return ActionResult()

    def _key_down(self, action: KeyDown) -> ActionResult:
        self.input.key_down(action.keys)
        return ActionResult(details=self._held())

    def _key_up(self, action: KeyUp) -> ActionResult:
        self.input.key_up(action.keys)
        return ActionResult(details=self._held())

    def _mouse_down(self, action: MouseDown) -> ActionResult:
        self.input.mouse_down(self.pointer(action.point))
        return ActionResult(details=self._held())

    def _mouse_up(self, action: MouseUp) -> ActionResult:
        self.input.mouse_up(self.pointer(action.point))
        return ActionResult(details=self._held())

    @contextmanager
    def _neutral_place(self, pressed: tuple[int, int]) -> Iterator[tuple[int, int] | None]:
        """Where to let go of a held button: off the window it went down in and the
        one under the pointer now, under a window of ours (see `release`)."""
        try:
            px, py = self.gui.position()
            here = [(int(px), int(py))]
        except Exception as exc:  # no pointer position: keep away from the press alone
            log.debug("pointer position: %s", exc)
            here = []
        monitor = (self.monitor.left, self.monitor.top, self.monitor.width, self.monitor.height)
        spot = neutral_point(monitor, self.windows.boxes(), [pressed, *here])
        with self.windows.shield(*spot):
            yield spot

    def _held(self) -> dict[str, Any]:
        return {"held_keys": list(self.input.held_keys),
                "held_buttons": list(self.input.held_buttons)}

    def _wait(self, action: Wait) -> ActionResult:
        time.sleep(WAIT_SECONDS)
        return ActionResult()

    def _sequence(self, action: Sequence) -> ActionResult:
        """Each child in order, stopping at a terminal child; a failure says how far it got."""
        done = 0
        for position, child in enumerate(action.actions, start=1):
            if is_terminal(child):
                return ActionResult(details={"sequence_done": done, "stopped_at": child.NAME})
            if isinstance(child, Sequence):
                raise ActionFailed("a Sequence cannot contain another Sequence")
            if position > 1:
                self.settle(SEQUENCE_SETTLE_CAP_S)
            try:
                self.perform(child)
            except ActionFailed as exc:
                raise ActionFailed(
                    f"action {position} of the Sequence, {render(child, self.surface)}, failed "
                    f"after {done} done: {exc}") from None
            done += 1
        return ActionResult(details={"sequence_done": done})

    # ----------------------------------------------------------------- closing
    def release_all(self) -> list[str]:
        """Let go of every key and button this driver holds; say what was released."""
        released = self.input.release_all()
        if released:
            log.info("released %s", ", ".join(released))
        return released

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)
        try:
            self.release_all()
        finally:
            _restore_hangup(self._previous_sighup)
            for closer in (self.input.typer.close, self.windows.close, self.capturer.close,
                           getattr(self.accessible, "close", lambda: None)):
                try:
                    closer()
                except Exception as exc:  # already gone; nothing more to release
                    log.debug("closing the desktop driver: %s", exc)


_CLICKS: dict[type, tuple[str, int]] = {
    Click: ("left", 1),
    DoubleClick: ("left", 2),
    TripleClick: ("left", 3),
    RightClick: ("right", 1),
    MiddleClick: ("middle", 1),
}

_HANDLERS: dict[type, Any] = {
    **{cls: DesktopDriver._click for cls in _CLICKS},
    Hover: DesktopDriver._hover,
    LongPress: DesktopDriver._long_press,
    Drag: DesktopDriver._drag,
    WheelScroll: DesktopDriver._wheel,
    Type: DesktopDriver._type,
    Hotkey: DesktopDriver._hotkey,
    KeyDown: DesktopDriver._key_down,
    KeyUp: DesktopDriver._key_up,
    MouseDown: DesktopDriver._mouse_down,
    MouseUp: DesktopDriver._mouse_up,
    Wait: DesktopDriver._wait,
    Sequence: DesktopDriver._sequence,
}


def _open_accessibility() -> Any:
    """The AT-SPI reader when this desktop runs AT-SPI, else None."""
    try:
        from venusctl.drivers.desktop.atspi import open_atspi
    except ImportError:
        return None
    return open_atspi()


def _catch_hangup() -> Any:
    """Make a closed terminal (SIGHUP) end the run like Ctrl-C, so keys get released."""
    hangup = getattr(signal, "SIGHUP", None)
    if hangup is None or threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(hangup)
    if previous is not signal.SIG_DFL:
        return None
    signal.signal(hangup, _raise_interrupt)
    return previous


def _restore_hangup(previous: Any) -> None:
    if previous is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGHUP, previous)


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _display_gone(exc: BaseException) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"ConnectionClosedError", "DisplayConnectionError", "DisplayError"})
