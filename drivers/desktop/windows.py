"""Which window is where: the window under a point and the active one.

The guard and the record need to know what an action lands on ("a click in
'Terminal — sudo rm'") and the prompt context which application is in front. On X11
this asks the X server directly through python-xlib, with or without a window
manager: top-level windows are walked in stacking order and the client window
(the one carrying WM_CLASS) is found inside a manager's frame. On Windows and macOS,
PyGetWindow (installed with pyautogui) answers where it can.

All coordinates here are pointer coordinates of the whole desktop.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from venusctl.drivers.desktop.terminals import is_terminal

log = logging.getLogger(__name__)

Box = tuple[int, int, int, int]

MAX_DEPTH = 4


@dataclass(frozen=True)
class WindowInfo:
    """A top-level window: its title, application and rectangle (pointer units)."""

    title: str | None = None
    app: str | None = None
    pid: int | None = None
    bounds: tuple[int, int, int, int] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Windows(Protocol):
    def at(self, x: int, y: int) -> WindowInfo | None: ...

    def active(self) -> WindowInfo | None: ...

    def boxes(self) -> list[Box]:
        """The rectangles of the viewable top-level windows, bottom to top."""
        ...

    def shield(self, x: int, y: int) -> Any:
        """A context manager: while it lasts, a window of ours covers (x, y)."""
        ...

    def close(self) -> None: ...


class X11Windows:
    """Window lookups over the driver's own X connection."""

    def __init__(self, display_name: str | None = None) -> None:
        from Xlib import X, display

        self._X = X
        self.display = display.Display(display_name)
        self.root = self.display.screen().root
        atom = self.display.intern_atom
        self._net_active = atom("_NET_ACTIVE_WINDOW")
        self._net_name = atom("_NET_WM_NAME")
        self._net_pid = atom("_NET_WM_PID")
        self._utf8 = atom("UTF8_STRING")
        self._wm_state = atom("WM_STATE")
        self._net_type = atom("_NET_WM_WINDOW_TYPE")
        self._dialog_types = {atom("_NET_WM_WINDOW_TYPE_DIALOG")}
        self._transient = atom("WM_TRANSIENT_FOR")

    def at(self, x: int, y: int) -> WindowInfo | None:
        """The topmost viewable window containing (x, y)."""
        for child, bounds in reversed(self._shown()):
            left, top, width, height = bounds
            if left <= x < left + width and top <= y < top + height:
                try:
                    return self._info(child, bounds)
                except self._errors() as exc:  # it went away after being listed
                    log.debug("window lookup at %s,%s failed: %s", x, y, exc)
        return None

    def active(self) -> WindowInfo | None:
        """The window with the keyboard focus (the manager's idea of it when there is one)."""
        try:
            window = self._active_window()
            if window is None:
                pointer = self.root.query_pointer()
                return self.at(pointer.root_x, pointer.root_y)
            top = self._top_level(window)
            geom = top.get_geometry()
            return self._info(top, (geom.x, geom.y, geom.width, geom.height))
        except self._errors() as exc:
            log.debug("active window lookup failed: %s", exc)
        return None

    def boxes(self) -> list[Box]:
        return [bounds for _, bounds in self._shown()]

    @contextmanager
    def shield(self, x: int, y: int) -> Iterator[None]:
        """A tiny override-redirect window of ours on top at (x, y), while the block runs.

        Whatever holds the pointer grab then sees the pointer leave its widget, and a
        drag in progress finds no drop target there (our window takes no drops).
        """
        window = None
        try:
            window = self.root.create_window(
                x - 2, y - 2, 5, 5, 0, self.display.screen().root_depth,
                self._X.InputOutput, self._X.CopyFromParent, override_redirect=True,
                background_pixel=self.display.screen().white_pixel)
            window.map()
            window.configure(stack_mode=self._X.Above)
            self.display.sync()
        except self._errors() as exc:
            log.debug("no shield window: %s", exc)
        try:
            yield
        finally:
            if window is not None:
                try:
                    window.destroy()
                    self.display.sync()
                except self._errors() as exc:
                    log.debug("removing the shield window: %s", exc)

    def close(self) -> None:
        try:
            self.display.close()
        except Exception as exc:  # the server may already be gone
            log.debug("closing the X connection: %s", exc)

    # -------------------------------------------------------------- helpers
    def _shown(self) -> list[tuple[Any, Box]]:
        """The root's viewable children, bottom first, with their bounds.

        Each child is asked on its own: a window that a starting application creates
        and destroys while it is being listed (GTK does so) answers BadWindow, and
        that must not hide the windows around it.
        """
        try:
            children = self.root.query_tree().children
        except self._errors() as exc:
            log.debug("listing windows failed: %s", exc)
            return []
        shown: list[tuple[Any, Box]] = []
        for child in children:
            try:
                attrs = child.get_attributes()
                if attrs.map_state != self._X.IsViewable or attrs.win_class == self._X.InputOnly:
                    continue
                geom = child.get_geometry()
            except self._errors() as exc:
                log.debug("window %s went away while listed: %s", hex(child.id), exc)
                continue
            shown.append((child, (geom.x, geom.y, geom.width, geom.height)))
        return shown

    def _active_window(self) -> Any:
        prop = self.root.get_full_property(self._net_active, self._X.AnyPropertyType)
        if prop is not None and prop.value and int(prop.value[0]):
            return self.display.create_resource_object("window", int(prop.value[0]))
        focus = self.display.get_input_focus().focus
        if isinstance(focus, int) or focus is None or focus == self.root:
            return None  # PointerRoot or None: keys go to the window under the pointer
        return focus

    def _top_level(self, window: Any) -> Any:
        """The ancestor that is a direct child of the root (a frame or the client)."""
        current = window
        for _ in range(32):
            tree = current.query_tree()
            if tree.parent == self.root or not tree.parent:
                return current
            current = tree.parent
        return current

    def _info(self, top: Any, bounds: tuple[int, int, int, int]) -> WindowInfo:
        client = self._client(top, 0) or top
        title = self._title(client)
        wm_class = client.get_wm_class()
        pid = self._pid(client)
        extra: dict[str, Any] = {"window_id": hex(client.id)}
        if wm_class:
            extra["wm_class"] = list(wm_class)
            extra["window_class"] = wm_class[1] or wm_class[0]
        process = _process_name(pid)
        if process:
            extra["process"] = process
        if wm_class or process:
            extra["terminal"] = is_terminal(wm_class or (), process)
        if self._is_dialog(client):  # its title is the dialog's, e.g. "Delete?"
            extra["dialog"] = title or "dialog"
        app = wm_class[1] if wm_class else process
        return WindowInfo(title=title, app=app, pid=pid, bounds=bounds, extra=extra)

    def _is_dialog(self, window: Any) -> bool:
        """A dialog by the window's own declaration: its type, or being transient for
        another window (what every toolkit's message boxes set, accessibility or not)."""
        kind = window.get_full_property(self._net_type, self._X.AnyPropertyType)
        if kind is not None and self._dialog_types & {int(v) for v in kind.value}:
            return True
        transient = window.get_full_property(self._transient, self._X.AnyPropertyType)
        return transient is not None and bool(len(transient.value)) and int(
            transient.value[0]) != 0

    def _client(self, window: Any, depth: int) -> Any:
        """The window inside `window` that a client owns (it has WM_CLASS or WM_STATE)."""
        if window.get_wm_class() or window.get_full_property(self._wm_state, 0) is not None:
            return window
        if depth >= MAX_DEPTH:
            return None
        for child in reversed(window.query_tree().children):
            found = self._client(child, depth + 1)
            if found is not None:
                return found
        return None

    def _title(self, window: Any) -> str | None:
        prop = window.get_full_property(self._net_name, self._utf8)
        if prop is not None and prop.value:
            value = prop.value
            return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        name = window.get_wm_name()
        if isinstance(name, bytes):
            name = name.decode("latin-1")
        return name or None

    def _pid(self, window: Any) -> int | None:
        prop = window.get_full_property(self._net_pid, self._X.AnyPropertyType)
        return int(prop.value[0]) if prop is not None and len(prop.value) else None

    def _errors(self) -> tuple[type[BaseException], ...]:
        from Xlib import error

        return (error.XError, error.ConnectionClosedError)


class PyGetWindowWindows:
    """Windows and macOS: what PyGetWindow can tell (titles; not every call exists everywhere)."""

    def __init__(self) -> None:
        import pygetwindow

        self.gw = pygetwindow

    def at(self, x: int, y: int) -> WindowInfo | None:
        try:
            found = self.gw.getWindowsAt(x, y)
        except Exception as exc:  # NotImplementedError on macOS, API errors elsewhere
            log.debug("getWindowsAt: %s", exc)
            return None
        return _from_gw(found[0]) if found else None

    def boxes(self) -> list[Box]:
        try:
            return [b for b in (_from_gw(w).bounds for w in self.gw.getAllWindows()) if b]
        except Exception as exc:
            log.debug("getAllWindows: %s", exc)
            return []

    @contextmanager
    def shield(self, x: int, y: int) -> Iterator[None]:
        yield  # no window of our own here: the pointer alone moves away

    def active(self) -> WindowInfo | None:
        try:
            window = self.gw.getActiveWindow()
        except Exception as exc:
            log.debug("getActiveWindow: %s", exc)
            return None
        if isinstance(window, str):  # macOS returns only a title
            return WindowInfo(title=window or None)
        return _from_gw(window) if window is not None else None

    def close(self) -> None:
        return None


class NoWindows:
    """When nothing can tell: every lookup answers None."""

    def at(self, x: int, y: int) -> WindowInfo | None:
        return None

    def active(self) -> WindowInfo | None:
        return None

    def boxes(self) -> list[Box]:
        return []

    @contextmanager
    def shield(self, x: int, y: int) -> Iterator[None]:
        yield

    def close(self) -> None:
        return None


def open_windows() -> Windows:
    """The best window source this platform offers."""
    try:
        if sys.platform.startswith("linux"):
            return X11Windows()
        return PyGetWindowWindows()
    except Exception as exc:  # a missing library must not stop the driver
        log.warning("window titles are not available: %s", exc)
        return NoWindows()


def _from_gw(window: Any) -> WindowInfo:
    title = getattr(window, "title", None) or None
    try:
        bounds = (int(window.left), int(window.top), int(window.width), int(window.height))
    except (AttributeError, TypeError, ValueError):
        bounds = None
    return WindowInfo(title=title, bounds=bounds)


def _process_name(pid: int | None) -> str | None:
    if not pid:
        return None
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() or None
    except OSError:
        return None
