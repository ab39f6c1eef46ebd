"""What an action presses: every way of activating something, judged by what it activates.

A click is not the only press. Enter submits the focused field's form or presses
its dialog's default button; space presses a focused button; Tab moves the focus
somewhere the guard cannot see, so a following space or Enter may press any
button of the form; Alt+letter presses the widget whose mnemonic that is; Delete
acts on the selection; a drag that ends where it began is a click, and one that
ends on Trash drops something there; a `MouseUp` completes whatever the
`MouseDown` before it pressed. This module turns each leaf action into `Press`es:
the element acted on and how, which `facts.py` then makes matchable.

The element facts drivers supply (`Element.extra`: dialog, hint, default_button,
form_buttons, form_fields, mnemonics, selection, terminal, window_class,
process, frame_origin, nameless, unidentified) are described in docs/safety.md.
`PressMemory` carries what one step leaves for the next: the field clicked last,
the button held down, the keys held, the text typed since the last Enter.

Where the driver cannot tell what has the focus at all (a window without
accessibility, such as Tk's), a key that may press something (space, Enter, a
newline, Alt+letter, Delete) is judged as pressing the focused window: what that
window shows (`window_text`, read by OCR in the guard phase) stands for the label,
and a Delete there acts on a selection nobody could see.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from venusctl.core.actions import (
    Action,
    Click,
    DoubleClick,
    Drag,
    Hotkey,
    KeyDown,
    KeyUp,
    Launch,
    LaunchApp,
    LongPress,
    MiddleClick,
    MouseDown,
    MouseUp,
    Point,
    PressBack,
    PressEnter,
    PressHome,
    SelectOption,
    TripleClick,
    Type,
)
from venusctl.drivers.base import Element
from venusctl.safety.guard import FOCUS, POINTER, GuardRequest
from venusctl.safety.keynames import MODIFIERS
from venusctl.safety.keynames import combo as key_combo
from venusctl.safety.targets import leaves
from venusctl.safety.text import normalize

POINTING = (Click, DoubleClick, TripleClick, LongPress)
RESETS_FOCUS = (Launch, LaunchApp, PressBack, PressHome)
# keys by their canonical names (`keynames.key_name`: 'Return' is 'enter')
ENTER_KEYS = frozenset({"enter"})
SPACE_KEYS = frozenset({"space"})
TAB_KEYS = frozenset({"tab"})
DELETE_KEYS = frozenset({"delete"})
SHORTCUT_MODIFIERS = frozenset({"ctrl", "alt", "meta"})
CLICK_TOLERANCE = 10  # pixels: a drag shorter than this is a click
UNSEEN_SELECTION = "(unknown: the focused control could not be identified)"
CONTEXT_KEYS = ("dialog", "form_fields", "form_buttons", "frame_origin", "window_class",
                "process", "terminal")
_BUTTON_WORDS = re.compile(
    r"\b(button|link|check ?box|radio|switch|menu ?item|toggle|tab|option|submit|reset|a)\b")
_FIELD_WORDS = re.compile(
    r"\b(text ?box|text ?field|entry|edit ?text|edit|search ?box|searchbox|combo ?box|textarea|"
    r"text ?area|input|terminal|password text|document|paragraph|spin ?button|editable|text)\b")
_BUTTON_INPUTS = frozenset({"submit", "button", "reset", "image", "checkbox", "radio"})


@dataclass(frozen=True)
class Press:
    """One thing a leaf action does to one element."""

    action: Action
    element: Element | None
    how: str
    activates: bool = False
    submits: bool = False
    drops: bool = False
    types: bool = False
    line: str = ""
    """The text a shell would run: what was typed since the last Enter, with this."""
    keys: frozenset[frozenset[str]] = frozenset()
    selection: tuple[str, ...] = ()
    unknown_focus: bool = False
    """Tab moved the focus first: nothing is known about what is pressed."""


@dataclass
class PressMemory:
    """What the guard remembers between steps (it assumes every checked action runs)."""

    focus: Element | None = None
    pointer: Element | None = None
    pressed: tuple[Point | None, Element | None] | None = None
    held: frozenset[str] = frozenset()
    line: str = ""


@dataclass
class _Walk:
    """The state while walking the leaves of one action."""

    request: GuardRequest
    memory: PressMemory
    focus: Element | None = None
    focus_moved: bool = False
    presses: list[Press] = field(default_factory=list)


def presses_of(request: GuardRequest, memory: PressMemory) -> list[Press]:
    """Every press of the request's action, in order; `memory` is updated as it goes."""
    focus = request.element_at(FOCUS) if request.described(FOCUS) else None
    state = _Walk(request, memory, focus if focus is not None else memory.focus)
    for leaf in leaves(request.placed):
        _leaf(state, leaf)
    return state.presses


def _leaf(state: _Walk, leaf: Action) -> None:
    handlers = (
        (POINTING, _pointing), ((MouseDown,), _mouse_down), ((MouseUp,), _mouse_up),
        ((Drag,), _drag), ((Type,), _type), ((Hotkey, KeyDown), _keys), ((KeyUp,), _key_up),
        ((PressEnter,), _press_enter), ((SelectOption,), _select), ((MiddleClick,), _middle),
    )
    for classes, handler in handlers:
        if isinstance(leaf, classes):
            handler(state, leaf)
            return
    element = None
    if isinstance(leaf, RESETS_FOCUS):
        state.memory.focus = state.focus = None
        state.memory.line = ""
    if hasattr(leaf, "point"):  # Hover, RightClick, Scroll: the pointer goes there
        element = state.memory.pointer = _at(state, leaf.point)
    state.presses.append(Press(leaf, element, _name(leaf)))


# ------------------------------------------------------------------------ pointer


def _at(state: _Walk, point: Point | None) -> Element | None:
    """The element at a point, or under the pointer when the action carries none."""
    if point is None:
        described = state.request.element_at(POINTER)
        return described if described is not None else state.memory.pointer
    return state.request.element_at(point)


def _focus_on(state: _Walk, element: Element | None) -> None:
    """A click moves the focus (and ends the line being typed)."""
    state.focus = element
    state.memory.focus = element
    state.memory.pointer = element
    state.memory.line = ""
    state.focus_moved = False


def _pointing(state: _Walk, leaf: Any) -> None:
    element = _at(state, leaf.point)
    state.presses.append(Press(leaf, element, _name(leaf), activates=True))
    _focus_on(state, element)


def _middle(state: _Walk, leaf: MiddleClick) -> None:
    state.presses.append(Press(leaf, _at(state, leaf.point), "middle click"))


def _mouse_down(state: _Walk, leaf: MouseDown) -> None:
    """A press begins: judged as pressing what is under it, and remembered."""
    element = _at(state, leaf.point)
    state.presses.append(Press(leaf, element, "mouse down", activates=True))
    state.memory.pressed = (leaf.point, element)
    _focus_on(state, element)


def _mouse_up(state: _Walk, leaf: MouseUp) -> None:
    """The release completes the press: a click where it began, else a drop."""
    pressed, state.memory.pressed = state.memory.pressed, None
    here = _at(state, leaf.point)
    if pressed is None:
        state.presses.append(Press(leaf, here, "mouse up", activates=True))
        return
    start_point, start = pressed
    if leaf.point is None or start_point is None or _near(leaf.point, start_point):
        state.presses.append(Press(leaf, start, "release of the press", activates=True))
        if leaf.point is not None and here is not None and here != start:
            state.presses.append(Press(leaf, here, "mouse up", activates=True))
        return
    state.presses.append(Press(leaf, start, "drag from", activates=True))
    state.presses.append(Press(leaf, here, "drop on", activates=True, drops=True))


def _drag(state: _Walk, leaf: Drag) -> None:
    start = _at(state, leaf.start)
    end = _at(state, leaf.end)
    if leaf.start is not None and leaf.end is not None and _near(leaf.start, leaf.end):
        state.presses.append(Press(leaf, start, "drag that ends where it starts (a click)",
                                   activates=True))
        _focus_on(state, start)
        return
    state.presses.append(Press(leaf, start, "drag from", activates=True))
    state.presses.append(Press(leaf, end, "drop on", activates=True, drops=True))
    state.memory.pointer = end


def _near(a: Point, b: Point) -> bool:
    return abs(a[0] - b[0]) <= CLICK_TOLERANCE and abs(a[1] - b[1]) <= CLICK_TOLERANCE


def _select(state: _Walk, leaf: SelectOption) -> None:
    state.presses.append(Press(leaf, state.focus, "select an option", activates=True))


# ----------------------------------------------------------------------- keyboard


def _type(state: _Walk, leaf: Type) -> None:
    """Typed text goes to the focus; its Tab, space, newline and return are key presses."""
    line = state.memory.line + leaf.content
    state.presses.append(Press(leaf, state.focus, "type", types=True, line=line))
    typed_line = state.memory.line
    lone = not leaf.content.strip(" ")
    for char in leaf.content:
        if char in "\r\n":
            state.presses.extend(_enter(state, leaf, "Enter (typed newline)", typed_line))
            typed_line = ""
        elif char == "\t":
            state.focus_moved = True
            typed_line = ""
        elif char == " " and (lone or state.focus_moved or button_like(state.focus)):
            state.presses.extend(_space(state, leaf, "space"))
            typed_line += char
        else:
            typed_line += char
    state.memory.line = typed_line


def _keys(state: _Walk, leaf: Hotkey | KeyDown) -> None:
    combo = key_combo(leaf.keys) | state.memory.held
    how = "+".join(leaf.keys)
    state.presses.append(Press(leaf, state.focus, how, keys=frozenset({combo})))
    plain = combo - MODIFIERS
    if plain & TAB_KEYS and not combo & SHORTCUT_MODIFIERS:
        state.focus_moved = True
        state.memory.line = ""
    if plain & ENTER_KEYS:
        state.presses.extend(_enter(state, leaf, how, state.memory.line))
        state.memory.line = ""
    if plain & SPACE_KEYS and not combo & SHORTCUT_MODIFIERS:
        state.presses.extend(_space(state, leaf, how))
    state.presses.extend(_mnemonic(state, leaf, combo))
    state.presses.extend(_delete(state, leaf, combo))
    if isinstance(leaf, KeyDown):
        state.memory.held = state.memory.held | key_combo(leaf.keys)


def _key_up(state: _Walk, leaf: KeyUp) -> None:
    """Space presses a focused button when it is let go."""
    released = key_combo(leaf.keys)
    combo = released | state.memory.held
    state.presses.append(Press(leaf, state.focus, "+".join(leaf.keys), keys=frozenset({combo})))
    if released & SPACE_KEYS:
        state.presses.extend(_space(state, leaf, "release of space"))
    state.memory.held = state.memory.held - released


def _press_enter(state: _Walk, leaf: PressEnter) -> None:
    state.presses.extend(_enter(state, leaf, "Enter", state.memory.line))
    state.memory.line = ""


def _enter(state: _Walk, leaf: Action, how: str, line: str) -> Iterator[Press]:
    """Enter presses a focused button, or submits the focused field's form (its default
    button) or dialog; after a Tab, any button of the form may have the focus."""
    focus = state.focus
    if state.focus_moved:
        yield from _unknown_focus(state, leaf, f"{how} after Tab")
        return
    yield Press(leaf, focus, how, activates=not field_like(focus), submits=True, line=line)
    if unidentified_focus(focus):
        yield _window_press(leaf, focus, how, submits=True)
    default = _extra(focus, "default_button")
    if default:
        yield Press(leaf, _standing_for(default, focus, "default button"),
                    f"{how} presses the default button", activates=True, submits=True)
    elif field_like(focus):
        for label in _strings(_extra(focus, "form_buttons")):
            yield Press(leaf, _standing_for(label, focus, "form button"),
                        f"{how} submits the form", activates=True, submits=True)


def _space(state: _Walk, leaf: Action, how: str) -> Iterator[Press]:
    if state.focus_moved:
        yield from _unknown_focus(state, leaf, f"{how} after Tab")
    elif state.focus is None or button_like(state.focus):
        yield Press(leaf, state.focus, how, activates=True)
    elif unidentified_focus(state.focus):
        yield _window_press(leaf, state.focus, how)


def _unknown_focus(state: _Walk, leaf: Action, how: str) -> Iterator[Press]:
    """The focus moved where the guard cannot see: judge every button of the form or
    dialog, and the press itself as one on an unidentified control there."""
    focus = state.focus
    labels = [*_strings(_extra(focus, "form_buttons")), str(_extra(focus, "default_button") or "")]
    for label in dict.fromkeys(label for label in labels if label):
        yield Press(leaf, _standing_for(label, focus, "form button"), how, activates=True,
                    submits=True, unknown_focus=True)
    yield Press(leaf, _standing_for("", focus, "unknown"), how, activates=True, submits=True,
                unknown_focus=True)
    if unidentified_focus(focus):
        yield _window_press(leaf, focus, how, submits=True)


def _mnemonic(state: _Walk, leaf: Action, combo: frozenset[str]) -> Iterator[Press]:
    """Alt+letter presses the widget whose label has that letter underlined."""
    letters = [k for k in combo - MODIFIERS if len(k) == 1 and k.isalnum()]
    if "alt" not in combo or len(letters) != 1 or combo & {"ctrl", "meta"}:
        return
    mnemonics = _extra(state.focus, "mnemonics")
    if not isinstance(mnemonics, dict):
        if unidentified_focus(state.focus):  # any label of the window may be underlined
            yield _window_press(leaf, state.focus, f"Alt+{letters[0].upper()}")
        return
    label = next((str(v) for k, v in mnemonics.items() if str(k).lower() == letters[0]), None)
    if label:
        yield Press(leaf, _standing_for(label.replace("_", "").replace("&", ""), state.focus,
                                        "mnemonic"), f"Alt+{letters[0].upper()}", activates=True)


def _delete(state: _Walk, leaf: Action, combo: frozenset[str]) -> Iterator[Press]:
    """Delete (and Shift+Delete) acts on the selected items."""
    if not (combo - MODIFIERS) & DELETE_KEYS:
        return
    how = "+".join(sorted(combo))
    selection = tuple(_strings(_extra(state.focus, "selection")))
    if selection:
        yield Press(leaf, state.focus, how + " on the selection", keys=frozenset({combo}),
                    selection=selection)
    elif unidentified_focus(state.focus):  # not known to be a text field: a delete
        yield replace(_window_press(leaf, state.focus, how + " on whatever is selected"),
                      activates=False, keys=frozenset({combo}), selection=(UNSEEN_SELECTION,))


# ------------------------------------------------------------------------ helpers


def unidentified_focus(element: Element | None) -> bool:
    """The driver found the focused window but nothing about the control in it."""
    return element is not None and bool(element.extra.get("unidentified")) and not (
        element.role or element.tag or element.name or element.text or element.input_type)


def _window_press(leaf: Action, focus: Element, how: str, submits: bool = False) -> Press:
    """A key pressing some control of a window whose focus is unidentified: judged by
    everything the window shows, as read from the screen (`window_text`)."""
    extra = {k: focus.extra[k] for k in (*CONTEXT_KEYS, "window_title") if k in focus.extra}
    extra["stands_for"] = "the focused window"
    extra["unidentified"] = True
    if focus.extra.get("window_text"):
        extra["ocr"] = str(focus.extra["window_text"])
    return Press(leaf, Element(app=focus.app, extra=extra), how, activates=True, submits=submits)


def _standing_for(label: str, base: Element | None, kind: str) -> Element:
    """An element for a control known only by its label (a default button, a mnemonic),
    carrying the dialog, form and window facts of the element it was found through."""
    extra = {k: base.extra[k] for k in CONTEXT_KEYS if base is not None and k in base.extra}
    extra["stands_for"] = kind
    if not label:
        extra["unidentified"] = True
    return Element(name=label or None, role="button" if label else None,
                   form_action=base.form_action if base is not None else None,
                   app=base.app if base is not None else None, extra=extra)


def _extra(element: Element | None, key: str) -> Any:
    return element.extra.get(key) if element is not None else None


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v]
    return []


def _kind_words(element: Element | None) -> tuple[str, str]:
    if element is None:
        return "", ""
    kind = normalize(element.role or element.tag or "")
    return kind, (element.input_type or "").lower()


def button_like(element: Element | None) -> bool:
    """A control that space or Enter presses (button, link, check box, menu item...)."""
    kind, input_type = _kind_words(element)
    if input_type in _BUTTON_INPUTS:
        return True
    return bool(_BUTTON_WORDS.search(kind)) and not _FIELD_WORDS.search(kind)


def field_like(element: Element | None) -> bool:
    """A field text goes into: Enter submits it rather than pressing it."""
    if element is None or button_like(element):
        return False
    kind, input_type = _kind_words(element)
    return bool(input_type) or bool(_FIELD_WORDS.search(kind))


def _name(leaf: Action) -> str:
    return normalize(type(leaf).__name__) if not isinstance(leaf, Type) else "type"

