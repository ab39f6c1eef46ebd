"""The phone surface: an Android device over adb (USB or `adb connect`).

Coordinates are the phone's touch pixels (`wm size`, turned with the screen).
Each action is one shell line on the phone (see `input`); screenshots take
the faster of two paths (`screen`); what is under a point comes from
`uiautomator dump` (`ui`), one per screen, started in the background when
the screen is observed and waited for only when asked (`dump`); apps start
by their visible name (`apps`). A phone that goes away raises `DeviceError`;
a command the phone refuses raises `ActionFailed`, which the model reads.
"""

from __future__ import annotations

import logging
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from platformdirs import user_cache_path, user_config_path

from venusctl.core.actions import (
    Action,
    Click,
    DoubleClick,
    Drag,
    GetScreenshot,
    LaunchApp,
    LongPress,
    PressBack,
    PressEnter,
    PressHome,
    PressRecent,
    Surface,
    Swipe,
    Type,
    Wait,
)
from venusctl.core.errors import ActionFailed, DeviceError, UsageError
from venusctl.core.grid import ScreenSize
from venusctl.drivers.android import input as keys
from venusctl.drivers.android.adb import AdbAddress, Link, attached, choose_serial, client
from venusctl.drivers.android.apps import AppLauncher
from venusctl.drivers.android.dump import UiDumps
from venusctl.drivers.android.screen import (
    Capturer,
    Frame,
    encode,
    orient,
    parse_density,
    parse_wm_size,
)
from venusctl.drivers.android.ui import (
    Node,
    element_at,
    focused_element,
    hierarchy_text,
    parse_hierarchy,
    password_regions,
)
from venusctl.drivers.base import ActionResult, Element, Screen, ScreenContext
from venusctl.drivers.capabilities import Capability
from venusctl.drivers.settle import wait_until_stable

log = logging.getLogger(__name__)

WAIT_S = 2.0
DUMP_PATH = "/data/local/tmp/venusctl-ui.xml"
DUMP_TIMEOUT_S = 30.0


def unidentified() -> Element:
    """What `describe` says when the phone could not dump its screen: the safety engine
    then reads the screenshot around the point instead."""
    return Element(extra={"unidentified": True})

GALLERY_DIR = "/sdcard/Pictures/Screenshots"
FOCUS_QUERY = "dumpsys window windows | grep -E 'mCurrentFocus|mFocusedApp'"
RESUMED_QUERY = "dumpsys activity activities | grep -E 'mResumedActivity|topResumedActivity'"


@dataclass
class AndroidOptions:
    """How to reach the phone; every field has a command-line flag or a default."""

    device: str | None = None
    image_format: str = "jpeg"
    capture: str = "auto"  # auto | raw | png
    address: AdbAddress | None = None
    cache_dir: Path | None = field(default_factory=lambda: user_cache_path("venusctl") / "android")
    aliases_file: Path | None = field(
        default_factory=lambda: user_config_path("venusctl") / "android-apps.yaml")


def parse_focus(text: str) -> tuple[str | None, str | None]:
    """(package, activity) from `dumpsys window` focus lines; activity in full form."""
    for key in ("mCurrentFocus", "mFocusedApp", "topResumedActivity", "mResumedActivity"):
        match = re.search(key + r"[=:]\s*\S*\{[^}]*?\s([\w.]+)/([\w.$]+)", text)
        if match:
            package, activity = match.group(1), match.group(2)
            return package, package + activity if activity.startswith(".") else activity
    return None, None


class AndroidDriver:
    """One phone as the agent's surface."""

    surface = Surface.MOBILE
    name = "android"
    capabilities = frozenset({Capability.FOCUSED_ELEMENT, Capability.SENSITIVE_REGIONS,
                              Capability.SURFACE_TEXT})

    def __init__(self, options: AndroidOptions) -> None:
        if options.image_format not in ("jpeg", "png"):
            raise UsageError("--image-format must be jpeg or png")
        if options.capture not in ("auto", "raw", "png"):
            raise UsageError("the capture path must be auto, raw or png")
        self.options = options
        adb = client(options.address)
        wanted = options.device or os.environ.get("ANDROID_SERIAL") or None
        self.serial = choose_serial(attached(adb), wanted)
        self.link = Link(adb, self.serial)
        self.capturer = Capturer(self.link.binary,
                                 None if options.capture == "auto" else options.capture)
        self.typing = keys.TextEntry(self._input, self._packages)
        self.apps = AppLauncher(self.serial, self._input, options.cache_dir, options.aliases_file)
        self.input_size: tuple[int, int] = (0, 0)
        self.density: int | None = None
        self._frame_size: tuple[int, int] | None = None
        self._pending: Frame | None = None
        self.dumps = UiDumps(self._dump)
        self._nodes_before: list[Node] | None = None  # the screen an action meets
        self._typed = False  # text went in since the last observation (see sensitive_regions)
        self._installed: set[str] | None = None
        self._read_display()

    # ---------------------------------------------------------------- observing
    def screenshot(self) -> Screen:
        frame, self._pending = self._pending or self.capturer.grab(), None
        self.dumps.start()  # the screen stays still while the model decides
        size = self._size_for(frame.image.size)
        if self.options.image_format == "png" and frame.png is not None:
            data, mime = frame.png, "image/png"
        else:
            data, mime = encode(frame.image, self.options.image_format)
        return Screen(data, mime, size, self.context(), time.time())

    def context(self) -> ScreenContext:
        """The focused app; an unreadable answer leaves it blank rather than stop the run."""
        try:
            package, activity = parse_focus(self.link.run(FOCUS_QUERY).out)
            if package is None:
                package, activity = parse_focus(self.link.run(RESUMED_QUERY).out)
        except ActionFailed as exc:
            log.debug("no focused app: %s", exc)
            return ScreenContext()
        return ScreenContext(app=package, activity=activity)

    def describe(self, x: int, y: int) -> Element | None:
        nodes = self._hierarchy()
        if nodes is None:
            return unidentified()
        return element_at(nodes, x, y)

    def focused_element(self) -> Element | None:
        """Where keys and typed text go (Type, PressEnter): the focused node, with its
        hint, form and dialog; a showing dialog when nothing has the focus."""
        nodes = self._hierarchy()
        if nodes is None:
            return unidentified()
        return focused_element(nodes)

    def sensitive_regions(self) -> list[tuple[int, int, int, int]]:
        """Password fields (left, top, width, height), to blur in kept screenshots.

        Android draws a password field's characters as dots itself, except the one
        just typed, which shows for a moment. So the dump is waited for here (before
        the model sees the screen) only when text was typed since the last
        observation; otherwise the fields the dump has already found are given and
        the model is not held up for one."""
        nodes = self._hierarchy() if self._typed else self.dumps.ready()
        self._typed = False
        return password_regions(nodes or [])

    def surface_text(self) -> str:
        """Every label of the screen's UI hierarchy (text, description, hint), one a
        line, from a dump taken now: a check must see the screen as it is, and a dump
        that fails says why rather than passing for an empty screen."""
        command = f"uiautomator dump {DUMP_PATH} && cat {DUMP_PATH}"
        return hierarchy_text(parse_hierarchy(self.link.run(command, DUMP_TIMEOUT_S).out))

    def settle(self, cap_s: float) -> float:
        """Capture until two frames match (or `cap_s`); the last frame is the next look."""
        frames: list[Frame] = []

        def grab() -> Any:
            frames.append(self.capturer.grab())
            return frames[-1].image

        self.dumps.stale()
        waited = wait_until_stable(grab, cap_s)
        self._pending = frames[-1] if frames else None
        return waited

    # ------------------------------------------------------------------- acting
    def perform(self, action: Action) -> ActionResult:
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise ActionFailed(f"{type(action).__name__} is not a phone action")
        self._pending = None
        self._nodes_before = self.dumps.ready()  # the screen the action meets, if dumped
        self.dumps.stale()
        try:
            result: ActionResult = handler(self, action)
        finally:
            self._nodes_before = None  # the action changed the screen, and any dump
            self.dumps.stale()         # taken while acting (to clear a field) is old
        return result

    def _click(self, action: Click) -> ActionResult:
        self._input(keys.tap(*_point(action.point, "Click")))
        return ActionResult()

    def _double_click(self, action: DoubleClick) -> ActionResult:
        self._input(keys.double_tap(*_point(action.point, "DoubleClick")))
        return ActionResult()

    def _long_press(self, action: LongPress) -> ActionResult:
        ms = round(action.duration * 1000) if action.duration else keys.LONG_PRESS_MS
        self._input(keys.long_press(*_point(action.point, "LongPress"), ms=min(ms, 60000)))
        return ActionResult()

    def _swipe(self, action: Swipe) -> ActionResult:
        self._input(keys.swipe(_point(action.start, "Swipe"), _point(action.end, "Swipe")))
        return ActionResult()

    def _drag(self, action: Drag) -> ActionResult:
        self._input(keys.drag(_point(action.start, "Drag"), _point(action.end, "Drag")))
        return ActionResult()

    def _type(self, action: Type) -> ActionResult:
        """Replace what the focused field holds (the model expects "auto-clear")."""
        self.typing.check(action.content)  # refuse before the field is touched
        details: dict[str, Any] = {}
        if keys.PROFILE.type_clears_field:
            details["cleared"] = self._clear_focused_field()
        details["typed_with"] = self.typing.type(action.content)
        self._typed = True
        return ActionResult(details=details)

    def _clear_focused_field(self) -> int | None:
        """Empty the focused text field; the characters removed, or None when no text
        field has the focus (then nothing is pressed: a Delete key could act on a list)."""
        nodes = self._nodes_before or self._hierarchy() or []
        fields = [n for n in nodes if n.flag("focused") and n.area > 0 and _editable(n)]
        if not fields:
            return None
        node = min(fields, key=lambda n: n.area)
        text = node.attrs.get("text", "")
        if not text or text == node.attrs.get("hint"):
            return 0
        for line in keys.clear_field(len(text)):
            self._input(line)
        return len(text)

    def _launch_app(self, action: LaunchApp) -> ActionResult:
        started = self.apps.launch(action.app)
        return ActionResult(details={"launched": started})

    def _key(self, code: int) -> ActionResult:
        self._input(keys.keyevent(code))
        return ActionResult()

    def _get_screenshot(self, action: GetScreenshot) -> ActionResult:
        path = f"{GALLERY_DIR}/venusctl-{time.strftime('%Y%m%d-%H%M%S')}.png"
        self._input(f"mkdir -p {GALLERY_DIR} && screencap -p {path}")
        self._input("am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE "
                    f"-d file://{path}")
        return ActionResult(f"Saved a screenshot to the phone's gallery ({path}).",
                            {"saved": path})

    def _wait(self, action: Wait) -> ActionResult:
        time.sleep(WAIT_S)
        return ActionResult()

    # ----------------------------------------------------------------- plumbing
    def _input(self, command: str) -> str:
        """Run an input-like command; the phone's complaints become `ActionFailed`."""
        result = self.link.run(command)
        text = result.text
        if result.code != 0 or "Exception" in text or text.startswith(("Error", "Usage")):
            raise ActionFailed(f"the phone refused '{command[:80]}': {result.first_line()}")
        return text

    def _packages(self) -> set[str]:
        if self._installed is None:
            listing = self.link.run("pm list packages").out
            self._installed = {line[8:].strip() for line in listing.splitlines()
                               if line.startswith("package:")}
        return self._installed

    def _read_display(self) -> None:
        """`wm size` and `wm density`; a phone that cannot say its size is not usable."""
        try:
            output = self.link.run("wm size; wm density").out
        except ActionFailed as exc:
            raise DeviceError(f"cannot read the screen size of {self.serial}: {exc}") from None
        size = parse_wm_size(output)
        if size is None:
            raise DeviceError(f"cannot read the screen size of {self.serial} "
                              f"('wm size' said: {output.strip()[:100]})")
        self.input_size = size
        self.density = parse_density(output)

    def _size_for(self, frame: tuple[int, int]) -> ScreenSize:
        """Touch-space size for a frame; re-read `wm size` when the frame changed shape."""
        if frame != self._frame_size:
            if self._frame_size is not None:
                self._read_display()
            self._frame_size = frame
        return orient(self.input_size, frame)

    def _hierarchy(self) -> list[Node] | None:
        """The current screen's UI nodes (None: the phone could not dump it, twice)."""
        return self.dumps.nodes()

    def _dump(self) -> list[Node] | None:
        """One `uiautomator dump` of the screen. The old file goes first: a failed dump
        ("could not get idle state" while the screen animates) exits 0 on some
        phones, and `cat` must not then read the previous screen's."""
        command = f"rm -f {DUMP_PATH}; uiautomator dump {DUMP_PATH} && cat {DUMP_PATH}"
        try:
            result = self.link.run(command, DUMP_TIMEOUT_S)
        except ActionFailed as exc:  # a timeout: the phone is there, the dump is not
            log.debug("no UI hierarchy: %s", exc)
            return None
        try:
            return parse_hierarchy(result.out)
        except (ValueError, SyntaxError) as exc:  # "could not get idle state" and the like
            log.debug("no UI hierarchy (%s): %s", exc, result.first_line())
            return None

    def info(self) -> dict[str, Any]:
        """What `venusctl device info` shows."""
        screen = self.screenshot()
        return {
            "serial": self.serial, "input_size": f"{screen.size}",
            "image_size": f"{screen.image.width}x{screen.image.height}",
            "density": self.density, "app": screen.context.app,
            "activity": screen.context.activity, "capture_path": self.capturer.path,
            "capture_ms": {k: round(v * 1000, 1) for k, v in self.capturer.timings.items()},
        }

    def close(self) -> None:
        try:
            self.typing.restore()
        except Exception as exc:  # the phone may be gone; nothing more to give back
            log.debug("restoring the keyboard: %s", exc)


def _editable(node: Node) -> bool:
    """A text field: an EditText (or a subclass the dump names), not a label or a list."""
    kind = node.attrs.get("class", "")
    return kind.endswith(("EditText", "AutoCompleteTextView", "SearchView$SearchAutoComplete"))


def _point(point: tuple[int, int] | None, name: str) -> tuple[int, int]:
    if point is None:
        raise ActionFailed(f"{name} needs a point on the phone screen")
    return point


_HANDLERS: dict[type, Any] = {
    Click: AndroidDriver._click,
    DoubleClick: AndroidDriver._double_click,
    LongPress: AndroidDriver._long_press,
    Swipe: AndroidDriver._swipe,
    Drag: AndroidDriver._drag,
    Type: AndroidDriver._type,
    LaunchApp: AndroidDriver._launch_app,
    PressBack: lambda self, _a: self._key(keys.KEY_BACK),
    PressHome: lambda self, _a: self._key(keys.KEY_HOME),
    PressEnter: lambda self, _a: self._key(keys.KEY_ENTER),
    PressRecent: lambda self, _a: self._key(keys.KEY_RECENT),
    GetScreenshot: AndroidDriver._get_screenshot,
    Wait: AndroidDriver._wait,
}
