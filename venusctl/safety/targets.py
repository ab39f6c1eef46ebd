"""Asking the driver about every place an action touches, before it runs.

A `Sequence` clicks at several points, a `Drag` presses at one and lets go at
another, a key goes to whatever has the focus: the guard can only judge what it
has been told about, so the guard phase describes each distinct point once, the
focused element when any key or text is involved, and the element under the
pointer when a desktop action carries no point of its own.

Drivers answer through `describe(x, y)` and, where they declare they can
(`Capability.FOCUSED_ELEMENT`, `POINTER_ELEMENT`), `focused_element()` and
`pointer_element()`; a driver may move the pointer to a point before describing
it, so hover-revealed controls are what is described.
"""

from __future__ import annotations

import logging
from typing import Any

from venusctl.core.actions import (
    Action,
    Drag,
    Hotkey,
    KeyDown,
    KeyUp,
    Point,
    PressEnter,
    SelectOption,
    Sequence,
    Type,
    points_of,
    walk,
)
from venusctl.core.errors import DeviceError
from venusctl.drivers.base import Driver, Element
from venusctl.drivers.capabilities import Capability, able
from venusctl.safety.guard import FOCUS, POINTER, Target

log = logging.getLogger(__name__)

KEYED = (Type, Hotkey, KeyDown, KeyUp, PressEnter, SelectOption)
POINTER_FIELDS = ("point", "start")


def leaves(action: Action) -> list[Action]:
    """The actions that do something: a Sequence's children, else the action itself."""
    return [a for a in walk(action) if not isinstance(a, Sequence)]


def points_in_order(leaf: Action) -> list[Point]:
    """A leaf's points in the order it visits them (a Drag's start before its end)."""
    if isinstance(leaf, Drag):
        return [p for p in (leaf.start, leaf.end) if p is not None]
    return points_of(leaf)


def describe_targets(driver: Driver, placed: Action) -> tuple[Target, ...]:
    """Every distinct point of `placed`, then the focus and the pointer where needed."""
    found: dict[Any, Element | None] = {}
    for leaf in leaves(placed):
        for point in points_in_order(leaf):
            if point not in found:
                found[point] = _ask(driver.describe, *point)
        if isinstance(leaf, KEYED) and FOCUS not in found:
            found[FOCUS] = _focused(driver)
        if _uses_pointer(leaf) and POINTER not in found:
            found[POINTER] = _under_pointer(driver)
    return tuple(Target(where, element) for where, element in found.items())


def _uses_pointer(leaf: Action) -> bool:
    """A desktop pointer action without a point acts where the pointer already is."""
    if isinstance(leaf, Drag):
        return leaf.start is None
    return any(hasattr(leaf, name) and getattr(leaf, name) is None for name in POINTER_FIELDS)


def _focused(driver: Driver) -> Element | None:
    """Where keys go, or None (unidentified) for a driver that cannot tell."""
    able_driver = able(driver, Capability.FOCUSED_ELEMENT)
    return _ask(able_driver.focused_element) if able_driver is not None else None


def _under_pointer(driver: Driver) -> Element | None:
    """What the pointer is over, or None for a driver that cannot tell."""
    able_driver = able(driver, Capability.POINTER_ELEMENT)
    return _ask(able_driver.pointer_element) if able_driver is not None else None


def _ask(ask: Any, *args: Any) -> Element | None:
    """A description, or None when the driver fails at it (the guard then treats the
    target as unidentified); a device that is gone still ends the run."""
    try:
        return ask(*args)
    except DeviceError:
        raise
    except Exception as exc:  # a flaky accessibility query must not crash the loop
        log.warning("could not describe the target: %s", exc)
        return None


def first_element(targets: tuple[Target, ...]) -> Element | None:
    """The element the record and the progress line show: the first one described."""
    return next((t.element for t in targets if t.element is not None), None)
