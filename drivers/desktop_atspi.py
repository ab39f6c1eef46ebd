"""The accessible element under a point on Linux, through AT-SPI over D-Bus.

GTK, Qt, Firefox, Chromium (with accessibility on) and LibreOffice publish their
widgets on the AT-SPI accessibility bus. Knowing that a click lands on a
"push button 'Delete everything'" rather than just "a window of Nautilus" lets the
guard judge the action. This reads the bus with jeepney (pure Python, already
installed with keyring): no GObject introspection in the venv.

It is used only when the accessibility bus is already running (any GNOME or KDE
session; the driver never starts it). Every call has a short timeout, so an app that
hangs costs at most a fraction of a second, and nothing here can fail a run: every
error means "no element known". Text content of fields is never read (it may be a
password); only names, roles and states.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

CALL_TIMEOUT_S = 0.4
MAX_DEPTH = 40
NULL_PATH = "/org/a11y/atspi/null"
ROOT_PATH = "/org/a11y/atspi/accessible/root"
SCREEN_COORDS = 0

# AT-SPI state bits (AtspiStateType) and roles (AtspiRole)
STATE_ACTIVE = 1
STATE_FOCUSED = 12
STATE_SHOWING = 25
STATE_VISIBLE = 30
ROLE_PASSWORD_TEXT = 40
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

    def element_at(self, x: int, y: int, pid: int | None = None) -> AccessibleInfo | None:
        """The deepest accessible object at the point, in the app with `pid` if known."""
        try:
            for app in self._apps(pid):
                frame = self._frame_at(app, x, y)
                if frame is not None:
                    return self._deepest(frame, x, y, self._name(app))
        except Exception as exc:  # a vanished or hung app: no element known
            log.debug("AT-SPI lookup at %s,%s failed: %s", x, y, exc)
        return None

    def focused(self, pid: int | None = None) -> AccessibleInfo | None:
        """The object with the keyboard focus (where typed text goes)."""
        try:
            for app in self._apps(pid):
                found = self._matches(app, (STATE_FOCUSED,), (), MATCH_ALL, 1)
                if found:
                    return self._info([found[0]], self._name(app))
        except Exception as exc:
            log.debug("AT-SPI focus lookup failed: %s", exc)
        return None

    def password_fields(self, limit: int = 20) -> list[tuple[int, int, int, int]]:
        """Bounds (pointer units) of the password fields showing in any application."""
        boxes: list[tuple[int, int, int, int]] = []
        try:
            for app in self._apps(None):
                for ref in self._matches(app, (STATE_SHOWING,), PASSWORD_ROLE_BITS, MATCH_ANY,
                                         limit):
                    if self._role(ref) == "password text":
                        boxes.append(self._extents(ref))
        except Exception as exc:
            log.debug("AT-SPI password field lookup failed: %s", exc)
        return boxes

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception as exc:
            log.debug("closing the AT-SPI connection: %s", exc)

    # -------------------------------------------------------------- walking
    def _apps(self, pid: int | None) -> list[Ref]:
        apps = self._children(("org.a11y.atspi.Registry", ROOT_PATH))
        if pid is None:
            return apps
        same = [app for app in apps if self._pid_of(app[0]) == pid]
        return same or apps

    def _frame_at(self, app: Ref, x: int, y: int) -> Ref | None:
        """The showing top-level window of `app` containing the point (active first)."""
        hits: list[tuple[bool, Ref]] = []
        for frame in self._children(app):
            states = self._states(frame)
            if STATE_SHOWING not in states or not _contains(self._extents(frame), x, y):
                continue
            hits.append((STATE_ACTIVE in states, frame))
        hits.sort(key=lambda hit: not hit[0])
        return hits[0][1] if hits else None

    def _deepest(self, frame: Ref, x: int, y: int, app_name: str | None) -> AccessibleInfo:
        path = [frame]
        for _ in range(MAX_DEPTH):
            child = self._call(path[-1], "org.a11y.atspi.Component", "GetAccessibleAtPoint",
                               "iiu", (x, y, SCREEN_COORDS))[0]
            ref = (str(child[0]), str(child[1]))
            if ref[1] == NULL_PATH or ref in path:
                break
            path.append(ref)
        return self._info(path, app_name)

    def _info(self, path: list[Ref], app_name: str | None) -> AccessibleInfo:
        target = path[-1]
        role = self._role(target)
        name = self._name(target)
        extra: dict[str, Any] = {"source": "at-spi"}
        described = self._property(target, "Description")
        if described:
            extra["description"] = described[:200]
        if not name:  # an unnamed leaf (an icon, a filler): say what it is inside
            for ancestor in reversed(path[:-1]):
                label = self._name(ancestor)
                if label:
                    extra["inside"] = f"{self._role(ancestor)} {label!r}"
                    break
        window = self._name(path[0])
        if window:
            extra["accessible_window"] = window
        return AccessibleInfo(
            name=name, role=role, app=app_name, bounds=self._extents(target),
            clickable=role in CLICKABLE_ROLES if role else None,
            password=role == "password text", extra=extra,
        )

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
