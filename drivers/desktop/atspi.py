"""The accessible element under a point on Linux, through AT-SPI over D-Bus.

GTK, Qt, Firefox, Chromium (with accessibility on) and LibreOffice publish their
widgets on the AT-SPI accessibility bus. Knowing that a click lands on a
"push button 'Delete everything'" rather than just "a window of Nautilus" lets the
guard judge the action. This reads the bus with jeepney (pure Python, already
installed with keyring): no GObject introspection in the venv.

It is used only when the accessibility bus is already running (any GNOME or KDE
session; the driver never starts it). Every call has a short timeout, so an app that
hangs costs at most a fraction of a second, and nothing here can fail a run: every
error means "no element known". For the element facts only names, roles, states,
placeholders and key bindings are read; the text content of fields is read only for a
batch check's `window_text` (never of a password field: its role says it is one).

The element reported is the one that receives the action: a label inside a list row
or a button answers for the row or the button (its name, else the label's words), and
the window around it adds what keys would press there (`atspi_window`).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from venusctl.drivers.desktop.atspi_window import (
    DIALOG_ROLES,
    STATE_MODAL,
    Node,
    shown_text,
    window_facts,
)

log = logging.getLogger(__name__)

CALL_TIMEOUT_S = 0.4
MAX_DEPTH = 40
WALK_LIMIT = 300  # objects of one window read for its facts
WALK_BUDGET_S = 0.8
TEXT_WALK_LIMIT = 3000  # objects of one window read for its text (a batch check)
TEXT_WALK_BUDGET_S = 5.0
FRAME_SLACK = 64  # pixels a frame may stick out of its X window (decorations, shadows)
NULL_PATH = "/org/a11y/atspi/null"
ROOT_PATH = "/org/a11y/atspi/accessible/root"
SCREEN_COORDS = 0

# AT-SPI state bits (AtspiStateType) and roles (AtspiRole)
STATE_ACTIVE = 1
STATE_FOCUSED = 12
STATE_SHOWING = 25
# GTK's bridge compares Collection roles with ATK's numbering, where a password field is
# 39 (ATK has no FOCUS_TRAVERSABLE); asking for either and checking the role name after
# works with both bridges.
PASSWORD_ROLE_BITS = (39, 40)
MATCH_ALL, MATCH_ANY = 1, 2
SORT_CANONICAL = 1
MATCH_RULE = "(aiia{ss}iaiiasib)uib"

CLICKABLE_ROLES = frozenset({
    "push button", "toggle button", "check box", "radio button", "link", "menu item",
    "check menu item", "radio menu item", "page tab", "combo box", "list item", "icon",
    "button", "switch", "spin button", "tree item", "table cell",
})

Ref = tuple[str, str]  # (bus name, object path)


@dataclass(frozen=True)
class AccessibleInfo:
    """One accessible object: bounds are pointer coordinates (left, top, width, height)."""

    name: str | None = None
    role: str | None = None
    text: str | None = None
    app: str | None = None
    bounds: tuple[int, int, int, int] | None = None
    clickable: bool | None = None
    password: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Atspi:
    """Element lookups on the accessibility bus."""

    def __init__(self, connection: Any) -> None:
        self.conn = connection

    def element_at(self, x: int, y: int, pid: int | None = None,
                   window: tuple[int, int, int, int] | None = None) -> AccessibleInfo | None:
        """What receives a click at the point, in the app owning the X window there.

        When the X window's process is known, only its app is asked; another app's
        frame counts only when it lies within that X window (a sandboxed app reports
        another process id), so a window without accessibility (Tk, a game) never
        borrows the element of a window hidden behind it.
        """
        try:
            mine, others = self._apps_for(pid)
            for apps, inside in ((mine, None), (others, window)):
                for app in apps:
                    frame = self._frame_at(app, x, y, inside)
                    if frame is not None:
                        return self._info(self._path_at(frame, x, y), self._name(app), False)
        except Exception as exc:  # a vanished or hung app: no element known
            log.debug("AT-SPI lookup at %s,%s failed: %s", x, y, exc)
        return None

    def focused(self, pid: int | None = None) -> AccessibleInfo | None:
        """The object with the keyboard focus (where typed text and keys go)."""
        try:
            mine, _others = self._apps_for(pid)
            for app in mine:
                found = self._matches(app, (STATE_FOCUSED,), (), MATCH_ALL, 1)
                if found:
                    return self._info(self._ancestry(found[0]), self._name(app), True)
        except Exception as exc:
            log.debug("AT-SPI focus lookup failed: %s", exc)
        return None

    def password_fields(self, limit: int = 20) -> list[tuple[int, int, int, int]]:
        """Bounds (pointer units) of the password fields showing in any application."""
        boxes: list[tuple[int, int, int, int]] = []
        try:
            for app in self._apps_for(None)[0]:
                for ref in self._matches(app, (STATE_SHOWING,), PASSWORD_ROLE_BITS, MATCH_ANY,
                                         limit):
                    if self._role(ref) == "password text":
                        boxes.append(self._extents(ref))
        except Exception as exc:
            log.debug("AT-SPI password field lookup failed: %s", exc)
        return boxes

    def window_text(self, pid: int | None = None,
                    window: tuple[int, int, int, int] | None = None) -> str:
        """The names and text contents of the showing objects of the app's window lying
        in the X window `window` (the active one first); "" when none is published."""
        deadline = time.monotonic() + TEXT_WALK_BUDGET_S
        try:
            for app in self._apps_for(pid)[0]:
                frame = self._frame_within(app, window)
                if frame is not None:
                    nodes = self.walk(frame, TEXT_WALK_LIMIT, deadline)
                    return shown_text(self, nodes, deadline)
        except Exception as exc:  # a vanished or hung app: no text known
            log.debug("AT-SPI window text failed: %s", exc)
        return ""

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception as exc:
            log.debug("closing the AT-SPI connection: %s", exc)

    # -------------------------------------------------------------- walking
    def _apps_for(self, pid: int | None) -> tuple[list[Ref], list[Ref]]:
        """(the apps of process `pid`, the others); every app is 'mine' without a pid."""
        apps = self._children(("org.a11y.atspi.Registry", ROOT_PATH))
        if pid is None:
            return apps, []
        same = [app for app in apps if self._pid_of(app[0]) == pid]
        return same, [app for app in apps if app not in same]

    def _frame_at(self, app: Ref, x: int, y: int,
                  inside: tuple[int, int, int, int] | None = None) -> Ref | None:
        """The showing top-level window of `app` containing the point (active first);
        with `inside`, only a frame lying within that rectangle counts."""
        hits: list[tuple[bool, Ref]] = []
        for frame in self._children(app):
            states = self._states(frame)
            box = self._extents(frame)
            if STATE_SHOWING not in states or not _contains(box, x, y):
                continue
            if inside is not None and not _within(box, inside, FRAME_SLACK):
                continue
            hits.append((STATE_ACTIVE in states, frame))
        hits.sort(key=lambda hit: not hit[0])
        return hits[0][1] if hits else None

    def _frame_within(self, app: Ref, window: tuple[int, int, int, int] | None) -> Ref | None:
        """The showing top-level window of `app` inside `window` (anywhere without one),
        the active one first."""
        hits: list[tuple[bool, Ref]] = []
        for frame in self._children(app):
            states = self._states(frame)
            if STATE_SHOWING not in states:
                continue
            if window is not None and not _within(self._extents(frame), window, FRAME_SLACK):
                continue
            hits.append((STATE_ACTIVE in states, frame))
        hits.sort(key=lambda hit: not hit[0])
        return hits[0][1] if hits else None

    def _path_at(self, frame: Ref, x: int, y: int) -> list[Ref]:
        """The frame and its descendants down to the deepest one at the point."""
        path = [frame]
        for _ in range(MAX_DEPTH):
            child = self._call(path[-1], "org.a11y.atspi.Component", "GetAccessibleAtPoint",
                               "iiu", (x, y, SCREEN_COORDS))[0]
            ref = (str(child[0]), str(child[1]))
            if ref[1] == NULL_PATH or ref in path:
                break
            path.append(ref)
        return path

    def _ancestry(self, ref: Ref) -> list[Ref]:
        """The top-level window down to `ref` (parents up to the application)."""
        path = [ref]
        for _ in range(MAX_DEPTH):
            parent = self._parent(path[0])
            if parent is None or parent[1] in (NULL_PATH, ROOT_PATH) or parent in path:
                break
            if self._role(parent) == "application":
                break
            path.insert(0, parent)
        return path

    def _info(self, path: list[Ref], app_name: str | None, keys: bool) -> AccessibleInfo:
        """The element for the end of `path`: for a click, the nearest control that
        receives it; for keys, the focused object itself. `keys` adds key facts."""
        leaf = path[-1]
        target = leaf if keys else self._receiver(path)
        role = self._role(target)
        name = self._name(target)
        extra: dict[str, Any] = {"source": "at-spi"}
        if target != leaf:
            leaf_name = self._name(leaf)
            name = name or leaf_name
            if leaf_name:
                extra["leaf"] = f"{self._role(leaf)} {leaf_name!r}"
        self._own_words(target, extra)
        if not (name or extra.get("description") or extra.get("hint")):
            extra["nameless"] = True  # drawn, or an icon: the safety layer reads the pixels
            extra.update(self._inside(path))
        if role == "terminal":
            extra["terminal"] = True
        extra.update(self._window(path[0], keys))
        return AccessibleInfo(
            name=name, role=role, app=app_name, bounds=self._extents(target),
            clickable=role in CLICKABLE_ROLES if role else None,
            password=role == "password text", extra=extra,
        )

    def _receiver(self, path: list[Ref]) -> Ref:
        """The nearest control on the path that a click activates (else the leaf)."""
        for ref in reversed(path[1:]):
            if self._role(ref) in CLICKABLE_ROLES:
                return ref
        return path[-1]

    def _own_words(self, target: Ref, extra: dict[str, Any]) -> None:
        described = self._property(target, "Description")
        if described:
            extra["description"] = described[:200]
        hint = self._attributes(target).get("placeholder-text")
        if hint:
            extra["hint"] = " ".join(hint.split())[:200]

    def _inside(self, path: list[Ref]) -> dict[str, str]:
        """For an unnamed target: the named object it sits in, said as such."""
        for ancestor in reversed(path[1:-1]):
            label = self._name(ancestor)
            if label:
                return {"inside": f"{self._role(ancestor)} {label!r}"}
        return {}

    def _window(self, frame: Ref, keys: bool) -> dict[str, Any]:
        """The window's own facts: its name, and (in a dialog, or for keys) what the
        window's buttons, default button, mnemonics and selection are."""
        out: dict[str, Any] = {}
        title = self._name(frame)
        if title:
            out["accessible_window"] = title
        role = self._role(frame)
        if keys or role in DIALOG_ROLES or STATE_MODAL in self._states(frame):
            out.update(window_facts(self, frame, role, keys))
        return out

    # ----------------------------------------------------- for window facts
    def walk(self, frame: Ref, limit: int = WALK_LIMIT, deadline: float | None = None,
             ) -> list[Node]:
        """The showing objects of a window, breadth first, within a size and time budget."""
        nodes: list[Node] = []
        queue: deque[tuple[Ref, int | None]] = deque([(frame, None)])
        if deadline is None:
            deadline = time.monotonic() + WALK_BUDGET_S
        while queue and len(nodes) < limit and time.monotonic() < deadline:
            ref, parent = queue.popleft()
            states = frozenset(self._states(ref))
            if parent is not None and STATE_SHOWING not in states:
                continue
            nodes.append(Node(ref, self._role(ref) or "", self._name(ref) or "", states, parent))
            index = len(nodes) - 1
            queue.extend((child, index) for child in self._children(ref))
        return nodes

    def key_binding(self, ref: Ref) -> str:
        return str(self._call(ref, "org.a11y.atspi.Action", "GetKeyBinding", "i", (0,))[0])

    def text(self, ref: Ref) -> str:
        """The whole text content of a text object (-1: to its end)."""
        return str(self._call(ref, "org.a11y.atspi.Text", "GetText", "ii", (0, -1))[0])

    def _matches(self, app: Ref, states: tuple[int, ...], roles: tuple[int, ...],
                 role_match: int, count: int) -> list[Ref]:
        """Objects of `app` with all `states` and the roles asked for (Collection API)."""
        rule = (_bits(states, 2), MATCH_ALL, {}, MATCH_ALL, _bits(roles, 4), role_match, [],
                MATCH_ALL, False)
        found = self._call(app, "org.a11y.atspi.Collection", "GetMatches", MATCH_RULE,
                           (rule, SORT_CANONICAL, count, True))[0]
        return [(str(bus), str(path)) for bus, path in found]

    # ----------------------------------------------------------- D-Bus calls
    def _call(self, ref: Ref, interface: str, method: str, signature: str | None = None,
              body: tuple[Any, ...] = ()) -> tuple[Any, ...]:
        from jeepney import DBusAddress, new_method_call
        from jeepney.low_level import MessageType

        address = DBusAddress(ref[1], bus_name=ref[0], interface=interface)
        message = new_method_call(address, method, signature, body)
        reply = self.conn.send_and_get_reply(message, timeout=CALL_TIMEOUT_S)
        if reply.header.message_type == MessageType.error:
            raise RuntimeError(f"{method}: {reply.body[0] if reply.body else 'error'}")
        return tuple(reply.body)

    def _children(self, ref: Ref) -> list[Ref]:
        children = self._call(ref, "org.a11y.atspi.Accessible", "GetChildren")[0]
        return [(str(bus), str(path)) for bus, path in children]

    def _property(self, ref: Ref, name: str) -> str | None:
        value = self._call(ref, "org.freedesktop.DBus.Properties", "Get", "ss",
                           ("org.a11y.atspi.Accessible", name))[0]
        text = value[1] if isinstance(value, tuple) else value
        return " ".join(str(text).split()) or None

    def _name(self, ref: Ref) -> str | None:
        return self._property(ref, "Name")

    def _parent(self, ref: Ref) -> Ref | None:
        value = self._call(ref, "org.freedesktop.DBus.Properties", "Get", "ss",
                           ("org.a11y.atspi.Accessible", "Parent"))[0]
        found = value[1] if isinstance(value, tuple) and len(value) == 2 and isinstance(
            value[1], tuple) else value
        return (str(found[0]), str(found[1])) if found else None

    def _attributes(self, ref: Ref) -> dict[str, str]:
        try:
            pairs = self._call(ref, "org.a11y.atspi.Accessible", "GetAttributes")[0]
        except RuntimeError:
            return {}
        return {str(k): str(v) for k, v in dict(pairs).items()}

    def _role(self, ref: Ref) -> str | None:
        return str(self._call(ref, "org.a11y.atspi.Accessible", "GetRoleName")[0]) or None

    def _states(self, ref: Ref) -> set[int]:
        words = self._call(ref, "org.a11y.atspi.Accessible", "GetState")[0]
        return {i * 32 + bit for i, word in enumerate(words) for bit in range(32)
                if word & (1 << bit)}

    def _extents(self, ref: Ref) -> tuple[int, int, int, int]:
        box = self._call(ref, "org.a11y.atspi.Component", "GetExtents", "u",
                         (SCREEN_COORDS,))[0]
        return (int(box[0]), int(box[1]), int(box[2]), int(box[3]))

    def _pid_of(self, bus_name: str) -> int | None:
        try:
            return int(self._call(("org.freedesktop.DBus", "/org/freedesktop/DBus"),
                                  "org.freedesktop.DBus", "GetConnectionUnixProcessID", "s",
                                  (bus_name,))[0])
        except Exception:
            return None


def open_atspi() -> Atspi | None:
    """A connection to the running accessibility bus, or None when there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        address = _bus_address()
        if address is None:
            return None
        from jeepney.io.blocking import open_dbus_connection

        return Atspi(open_dbus_connection(address))
    except Exception as exc:  # no session bus, no jeepney, a refused socket: no AT-SPI
        log.debug("AT-SPI is not available: %s", exc)
        return None


def _bus_address() -> str | None:
    """The accessibility bus's address, asked of the session bus without starting it."""
    if os.environ.get("AT_SPI_BUS_ADDRESS"):
        return os.environ["AT_SPI_BUS_ADDRESS"]
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return None
    from jeepney import DBusAddress, new_method_call
    from jeepney.bus_messages import message_bus
    from jeepney.io.blocking import open_dbus_connection

    with open_dbus_connection(bus="SESSION") as session:
        owned = session.send_and_get_reply(message_bus.NameHasOwner("org.a11y.Bus"),
                                           timeout=CALL_TIMEOUT_S).body[0]
        if not owned:
            return None
        bus = DBusAddress("/org/a11y/bus", bus_name="org.a11y.Bus", interface="org.a11y.Bus")
        reply = session.send_and_get_reply(new_method_call(bus, "GetAddress"),
                                           timeout=CALL_TIMEOUT_S)
        return str(reply.body[0]) or None


def _bits(values: tuple[int, ...], words: int) -> list[int]:
    """AT-SPI's bit-set encoding: value v sets bit v % 32 of word v // 32."""
    out = [0] * words
    for value in values:
        out[value // 32] |= 1 << (value % 32)
    return [word - (1 << 32) if word >= 1 << 31 else word for word in out]  # as int32


def _contains(box: tuple[int, int, int, int], x: int, y: int) -> bool:
    left, top, width, height = box
    return left <= x < left + width and top <= y < top + height


def _within(box: tuple[int, int, int, int], outer: tuple[int, int, int, int],
            slack: int) -> bool:
    """`box` lies inside `outer`, give or take `slack` pixels on each side."""
    left, top, width, height = box
    o_left, o_top, o_width, o_height = outer
    return (left >= o_left - slack and top >= o_top - slack
            and left + width <= o_left + o_width + slack
            and top + height <= o_top + o_height + slack)
