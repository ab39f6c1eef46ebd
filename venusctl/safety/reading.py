"""The guard phase's OCR: what the screen shows where the action lands.

Three things are read from the screenshot the model saw. Every point the action
presses (anything but hovering and scrolling: `pressed_points`) is read whatever
the driver called it, so a transparent "Continue" over a picture of "Pay", an `alt`
text, a web font that draws other letters or a WebView's image button is judged
by what a person sees there too (`ocr.read_points`; the label is then both
readings, so either one being consequential gates the action). A point whose
target has no words of its own (a canvas, a Tk button, a popup menu's item) is
read even when it is only hovered. And when a key that may press something
(space, Enter, a newline, Alt+letter, Delete) goes to a focus the driver could not
identify (a window without accessibility), the focused window is read whole: any
of its controls may be the one pressed, so `pressing.py` judges the key by
everything the window shows (`window_text` on the focus element).

A target costs one or two reads of a few tens of milliseconds, a window more
(`benchmarks/safety_guard.py`); the reader remembers what it made of each crop, so
pixels already read cost nothing.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import Any

from venusctl.core.actions import (
    Action,
    Hotkey,
    Hover,
    KeyDown,
    KeyUp,
    PressEnter,
    Scroll,
    Type,
    WheelScroll,
)
from venusctl.drivers.base import Screen
from venusctl.safety.guard import FOCUS, Target
from venusctl.safety.keynames import MODIFIERS, combo
from venusctl.safety.ocr import TextReader, image_box, needs_reading, read_points, unread
from venusctl.safety.pressing import TAB_KEYS, unidentified_focus
from venusctl.safety.targets import leaves, points_in_order

log = logging.getLogger(__name__)

LOOKING = (Hover, Scroll, WheelScroll)  # move over or along the screen, press nothing
WINDOW_TEXT_LIMIT = 2000  # characters kept of a window's text (the record keeps them)
MOVING_KEYS = TAB_KEYS | frozenset({  # canonical names (`keynames`)
    "up", "down", "left", "right", "home", "end", "pageup", "pagedown", "esc"})


def key_may_press(leaf: Action) -> bool:
    """Whether a leaf sends a key that may press a control (not only move the focus or
    type words): a newline or a lone space typed, or any key but Tab, arrows, paging,
    Escape and modifiers alone (a modifier held since an earlier step may make a
    plain letter a mnemonic)."""
    if isinstance(leaf, Type):
        content = leaf.content
        return any(c in "\r\n" for c in content) or (bool(content) and not content.strip(" "))
    if isinstance(leaf, PressEnter):
        return True
    if isinstance(leaf, (Hotkey, KeyDown, KeyUp)):
        return bool(combo(leaf.keys) - MOVING_KEYS - MODIFIERS)
    return False


def needs_window_reading(placed: Action, targets: tuple[Target, ...]) -> bool:
    """A key that may press something goes to a focus nobody identified, not read yet."""
    focus = next((t.element for t in targets if t.where == FOCUS), None)
    if not unidentified_focus(focus) or focus is None or "window_text" in focus.extra:
        return False
    return bool(focus.extra.get("window_bounds")) and any(
        key_may_press(leaf) for leaf in leaves(placed))


def pressed_points(placed: Action) -> frozenset[tuple[int, int]]:
    """The points where the action may change something: every point of every leaf but
    those that only hover or scroll (a drag's and a swipe's too: a slider, a drop)."""
    return frozenset(point for leaf in leaves(placed)
                     if not isinstance(leaf, LOOKING) for point in points_in_order(leaf))


def needs_ocr(placed: Action, targets: tuple[Target, ...]) -> bool:
    """Whether the guard phase has anything to read on the screen."""
    pressed = pressed_points(placed)
    return any(unread(t.element) and (t.where in pressed or needs_reading(t.element))
               for t in targets if isinstance(t.where, tuple)) or \
        needs_window_reading(placed, targets)


def read_unnamed(reader: TextReader, placed: Action, targets: tuple[Target, ...],
                 screen: Screen) -> tuple[Target, ...]:
    """The targets with what OCR read: at every pressed point and every nameless one,
    and in the focused window when keys go to a focus nobody identified."""
    targets = read_points(reader, targets, screen, pressed_points(placed))
    if needs_window_reading(placed, targets):
        targets = read_focused_window(reader, targets, screen)
    return targets


def read_focused_window(reader: TextReader, targets: tuple[Target, ...], screen: Screen,
                        ) -> tuple[Target, ...]:
    """The focus target with `window_text`: every line its window shows."""
    found = []
    for target in targets:
        element = target.element
        if target.where == FOCUS and element is not None:
            text = _read_window(reader, screen, element.extra.get("window_bounds"))
            target = Target(FOCUS, replace(element, extra={**element.extra,
                                                           "window_text": text}))
        found.append(target)
    return tuple(found)


def _read_window(reader: TextReader, screen: Screen, bounds: Any) -> str:
    """What the window shows; "" when it cannot be read (the key is then judged as one
    on an unidentified control, by the window's title and the model's reason)."""
    image = screen.image
    box = image_box(bounds, (screen.size.width, screen.size.height), image.size)
    if box is None:
        return ""
    started = time.perf_counter()
    try:
        text = reader.read_window(image, box, screen.context)
    except Exception as exc:  # a reader that fails leaves the focus unidentified
        log.warning("could not read the focused window: %s", exc)
        return ""
    log.debug("read the focused window in %.0f ms", (time.perf_counter() - started) * 1000)
    return text[:WINDOW_TEXT_LIMIT]
