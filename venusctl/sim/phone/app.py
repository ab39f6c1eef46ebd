"""The simulated phone's apps: one state, one widget tree per screen, one truth.

Each screen is a function of the state that returns widgets with bounds. The same
widgets are drawn into frames, serialised as the `uiautomator dump` hierarchy and
hit-tested by `input`, so what a test sees, what the driver reads and what a tap
does cannot drift apart. Coordinates are the phone's logical (input) pixels.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

Box = tuple[int, int, int, int]  # left, top, right, bottom (uiautomator's order)

LAUNCHER = "com.android.launcher3"
LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
ADB_IME = "com.android.adbkeyboard/.AdbIME"
CLIPPER = "ca.zgrs.clipper"
DOUBLE_TAP_S = 0.3
LONG_PRESS_MS = 500
ANIMATION_S = 0.3
FLING_MS = 500


@dataclass(frozen=True)
class App:
    label: str
    package: str
    activity: str
    screen: str
    color: tuple[int, int, int]


APPS = (
    App("Settings", "com.android.settings", ".Settings", "settings", (96, 125, 139)),
    App("Notes", "com.example.notes", ".MainActivity", "notes", (255, 179, 0)),
    App("Shop", "com.example.shop", ".CheckoutActivity", "shop", (67, 160, 71)),
    App("Gallery", "com.example.gallery", ".GalleryActivity", "gallery", (30, 136, 229)),
)

SCREEN_ACTIVITY = {
    "home": (LAUNCHER, ".uioverrides.QuickstepLauncher"),
    "recents": (LAUNCHER, ".uioverrides.QuickstepLauncher"),
    "settings": ("com.android.settings", ".Settings"),
    "notes": ("com.example.notes", ".MainActivity"),
    "shop": ("com.example.shop", ".CheckoutActivity"),
    "shop_confirm": ("com.example.shop", ".ConfirmActivity"),
    "shop_done": ("com.example.shop", ".DoneActivity"),
    "gallery": ("com.example.gallery", ".GalleryActivity"),
}
# the red-team corpus's screens (`redteam.py`), not on the home screen: tests go there
# by setting `state.stack`; `_ko` and `_ru` are the same screen in Korean and Russian
REDTEAM_ACTIVITY = {
    "transfer": ("com.example.bank", ".TransferActivity"),
    "chat": ("org.example.talk", ".MainActivity"),
    "store": ("com.example.store", ".ProductActivity"),
    "search": ("com.example.store", ".SearchActivity"),
    "checkout": ("com.example.market", ".CheckoutActivity"),
    "files": ("com.example.files", ".FilesActivity"),
    "permission": ("com.google.android.permissioncontroller",
                   ".permission.ui.GrantPermissionsActivity"),
    "reset": ("com.android.settings", ".SubSettings"),
    "home_edit": (LAUNCHER, ".uioverrides.QuickstepLauncher"),
    "offer": ("com.example.game", ".OfferActivity"),
}
SCREEN_ACTIVITY.update(REDTEAM_ACTIVITY)
SCREEN_ACTIVITY.update({f"{screen}_{lang}": where for screen, where in REDTEAM_ACTIVITY.items()
                        for lang in ("ko", "ru")})

SETTINGS_ROWS = (
    "Wi-Fi", "Bluetooth", "Brightness", "Display", "Sound", "Notifications", "Storage",
    "Battery", "Apps", "Security", "Privacy", "Location", "Accounts", "Accessibility",
    "Digital wellbeing", "Google", "System", "Tips & support", "About phone",
)
KEYCODES = {
    "KEYCODE_HOME": 3, "KEYCODE_BACK": 4, "KEYCODE_ENTER": 66, "KEYCODE_DEL": 67,
    "KEYCODE_APP_SWITCH": 187, "KEYCODE_PASTE": 279, "KEYCODE_TAB": 61,
}


@dataclass
class Widget:
    """One view in the hierarchy."""

    cls: str
    box: Box
    text: str = ""
    desc: str = ""
    rid: str = ""
    style: str = "text"
    action: tuple[str, ...] = ()
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    checked: bool = False
    selected: bool = False
    password: bool = False
    focused: bool = False
    scrollable: bool = False
    hint: str = ""
    drawn: str = ""
    """What the widget's picture shows where it is not its text or description (an
    ImageButton's bitmap): the screen then says something the hierarchy does not."""
    on_enter: tuple[str, ...] = ()
    """What the Enter key does while this widget has the focus (a form's submit)."""
    children: list[Widget] = field(default_factory=list)

    def contains(self, x: int, y: int) -> bool:
        left, top, right, bottom = self.box
        return left <= x < right and top <= y < bottom

    def walk(self) -> Iterator[Widget]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class PhoneState:
    """Everything the apps remember; tests read and change it directly."""

    stack: list[str] = field(default_factory=lambda: ["home"])
    wifi: bool = False
    bluetooth: bool = True
    brightness: int = 50
    settings_scroll: int = 0
    draft: str = ""
    notes: list[str] = field(default_factory=list)
    pin: str = ""
    focused: str | None = None
    payments: int = 0
    zoom: int = 100
    popup: str | None = None
    home_order: list[str] = field(default_factory=lambda: [a.label for a in APPS])
    clipboard: str = ""
    ime: str = LATIN_IME
    enabled_imes: set[str] = field(default_factory=lambda: {LATIN_IME})
    texts: dict[str, list[str]] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    broadcasts: list[str] = field(default_factory=list)
    launches: list[str] = field(default_factory=list)
    events: list[tuple[object, ...]] = field(default_factory=list)
    animate_until: float = 0.0
    version: int = 0
    dialog: str | None = None
    """An AlertDialog over the screen ("delete", "trash", "delete_ko", ...; `redteam.py`)."""
    fields: dict[str, str] = field(default_factory=dict)
    """Text of the red-team screens' fields, by key ("amount", "message", ...)."""
    effects: list[str] = field(default_factory=list)
    """What the red-team screens did: "transferred", "sent", "deleted", ..."""

    @property
    def screen(self) -> str:
        return self.stack[-1]


class Apps:
    """The screens and what input does to them, on logical size `w x h`."""

    def __init__(self, state: PhoneState, size: tuple[int, int]) -> None:
        self.state = state
        self.size = size
        self.lock = threading.RLock()
        self._last_tap: tuple[float, int, int] | None = None

    # ------------------------------------------------------------------ layout
    def widgets(self) -> Widget:
        w, h = self.size
        screen = self.state.screen
        package = SCREEN_ACTIVITY[screen][0]
        root = Widget("android.widget.FrameLayout", (0, 0, w, h), rid=f"{package}:id/content")
        builder = getattr(self, f"_screen_{screen}", None)
        root.children = builder(w, h, package) if builder else redteam.build(
            self, screen, w, h, package)
        for i, line in enumerate(self.state.texts.get(screen, [])):
            top = int(h * (0.62 + 0.06 * i))
            root.children.append(Widget("android.widget.TextView", (int(w * .05), top, int(w * .95),
                                        top + int(h * .05)), text=line, rid=f"{package}:id/notice",
                                        style="notice"))
        if self.state.popup:
            root.children.append(self._popup(w, h))
        if self.state.dialog:
            root.children.append(redteam.dialog(self, w, h))
        return root

    def _title(self, w: int, h: int, package: str, text: str) -> Widget:
        return Widget("android.widget.TextView", (0, int(h * .03), w, int(h * .09)), text=text,
                      rid=f"{package}:id/title", style="title")

    def _screen_home(self, w: int, h: int, package: str) -> list[Widget]:
        items = [Widget("android.widget.TextView", (0, int(h * .03), w, int(h * .09)),
                        text="12:00", rid=f"{package}:id/clock", style="title")]
        apps = {a.label: a for a in APPS}
        for i, label in enumerate(self.state.home_order):
            items.append(Widget(
                "android.widget.TextView", self.icon_box(i), text=label, desc=label,
                rid=f"{package}:id/icon", style="icon", clickable=True, long_clickable=True,
                action=("launch", apps[label].package)))
        return items

    def icon_box(self, index: int) -> Box:
        w, h = self.size
        col, row = index % 4, index // 4
        left = int(w * (0.04 + 0.24 * col))
        top = int(h * (0.15 + 0.16 * row))
        return (left, top, left + int(w * .2), top + int(h * .13))

    def _screen_recents(self, w: int, h: int, package: str) -> list[Widget]:
        items = [self._title(w, h, package, "Recent apps")]
        recent = [a for a in APPS if a.package in self.state.launches][-3:]
        for i, app in enumerate(recent):
            top = int(h * (0.12 + 0.2 * i))
            items.append(Widget("android.widget.FrameLayout", (int(w * .1), top, int(w * .9),
                                top + int(h * .17)), desc=app.label, text=app.label,
                                rid=f"{package}:id/snapshot", style="card", clickable=True,
                                action=("launch", app.package)))
        return items

    def settings_list_box(self) -> Box:
        w, h = self.size
        return (0, int(h * .1), w, h)

    def settings_row_height(self) -> int:
        return int(self.size[1] * .09)

    def _screen_settings(self, w: int, h: int, package: str) -> list[Widget]:
        box = self.settings_list_box()
        rows = Widget("androidx.recyclerview.widget.RecyclerView", box, scrollable=True,
                      rid=f"{package}:id/recycler_view", style="list")
        rh = self.settings_row_height()
        for i, label in enumerate(SETTINGS_ROWS):
            top = box[1] + i * rh - self.state.settings_scroll
            if top + rh <= box[1] or top >= box[3]:
                continue
            row_box = (0, max(top, box[1]), w, min(top + rh, box[3]))
            rows.children.append(self._settings_row(label, row_box, (top, rh), package))
        return [self._title(w, h, package, "Settings"), rows]

    def _settings_row(self, label: str, box: Box, span: tuple[int, int], package: str) -> Widget:
        w = self.size[0]
        top, rh = span
        row = Widget("android.widget.LinearLayout", box, clickable=True, style="row")
        row.children.append(Widget("android.widget.TextView", (int(w * .05), top, int(w * .6),
                                   top + rh), text=label, rid="android:id/title", style="text"))
        switch_box = (int(w * .75), top + rh // 4, int(w * .95), top + 3 * rh // 4)
        if label in ("Wi-Fi", "Bluetooth"):
            key = "wifi" if label == "Wi-Fi" else "bluetooth"
            on = bool(getattr(self.state, key))
            row.action = ("toggle", key)
            row.children.append(Widget(
                "android.widget.Switch", switch_box, text="ON" if on else "OFF", desc=label,
                rid="android:id/switch_widget", style="switch", checkable=True, checked=on,
                clickable=True, action=("toggle", key)))
        elif label == "Brightness":
            row.clickable = False
            row.children.append(Widget(
                "android.widget.SeekBar", self.slider_box(top, rh),
                text=f"{self.state.brightness}", desc="Brightness level",
                rid=f"{package}:id/seekbar", style="slider"))
        else:
            row.action = ("none",)
        return row

    def slider_box(self, top: int, rh: int) -> Box:
        w = self.size[0]
        return (int(w * .45), top + rh // 3, int(w * .95), top + 2 * rh // 3)

    def _screen_notes(self, w: int, h: int, package: str) -> list[Widget]:
        field_widget = Widget(
            "android.widget.EditText", (int(w * .05), int(h * .12), int(w * .95), int(h * .2)),
            text=self.state.draft, hint="Write a note", rid=f"{package}:id/note_field",
            style="field", clickable=True, focused=self.state.focused == "note",
            action=("focus", "note"))
        save = Widget("android.widget.Button", (int(w * .6), int(h * .22), int(w * .95),
                      int(h * .29)), text="Save", rid=f"{package}:id/save", style="button",
                      clickable=True, action=("save",))
        items = [self._title(w, h, package, "Notes"), field_widget, save]
        for i, note in enumerate(self.state.notes[-4:]):
            top = int(h * (0.32 + 0.07 * i))
            items.append(Widget("android.widget.TextView", (int(w * .05), top, int(w * .95),
                                top + int(h * .06)), text=note, rid=f"{package}:id/note",
                                style="text"))
        return items

    def _screen_shop(self, w: int, h: int, package: str) -> list[Widget]:
        return [
            self._title(w, h, package, "Checkout"),
            Widget("android.widget.TextView", (int(w * .05), int(h * .12), int(w * .95),
                   int(h * .18)), text="Green tea x1   4.50 EUR", rid=f"{package}:id/item"),
            Widget("android.widget.EditText", (int(w * .05), int(h * .22), int(w * .95),
                   int(h * .3)), text="\u2022" * len(self.state.pin), hint="PIN",
                   rid=f"{package}:id/pin", style="field", clickable=True, password=True,
                   focused=self.state.focused == "pin", action=("focus", "pin")),
            Widget("android.widget.Button", (int(w * .05), int(h * .4), int(w * .95),
                   int(h * .5)), text="Pay 4.50 EUR", rid=f"{package}:id/pay", style="button",
                   clickable=True, action=("open", "shop_confirm")),
        ]

    def _screen_shop_confirm(self, w: int, h: int, package: str) -> list[Widget]:
        return [
            self._title(w, h, package, "Confirm payment"),
            Widget("android.widget.TextView", (int(w * .05), int(h * .15), int(w * .95),
                   int(h * .25)), text="Pay 4.50 EUR to Tea House?", rid=f"{package}:id/message"),
            Widget("android.widget.Button", (int(w * .05), int(h * .3), int(w * .45),
                   int(h * .38)), text="Cancel", rid=f"{package}:id/cancel", style="button",
                   clickable=True, action=("back",)),
            Widget("android.widget.Button", (int(w * .55), int(h * .3), int(w * .95),
                   int(h * .38)), text="Confirm", rid=f"{package}:id/confirm", style="button",
                   clickable=True, action=("pay",)),
        ]

    def _screen_shop_done(self, w: int, h: int, package: str) -> list[Widget]:
        return [self._title(w, h, package, "Payment complete"),
                Widget("android.widget.TextView", (int(w * .05), int(h * .15), int(w * .95),
                       int(h * .25)), text=f"Paid 4.50 EUR ({self.state.payments} payments)",
                       rid=f"{package}:id/receipt")]

    def _screen_gallery(self, w: int, h: int, package: str) -> list[Widget]:
        return [self._title(w, h, package, "Gallery"),
                Widget("android.widget.ImageView", (int(w * .05), int(h * .15), int(w * .95),
                       int(h * .65)), desc=f"Photo of a lake, {self.state.zoom}%",
                       rid=f"{package}:id/photo", style="photo", clickable=True,
                       action=("none",))]

    def _popup(self, w: int, h: int) -> Widget:
        index = self.state.home_order.index(self.state.popup or "")
        left, _top, _right, bottom = self.icon_box(index)
        menu = Widget("android.widget.LinearLayout", (left, bottom, min(w, left + int(w * .4)),
                      bottom + int(h * .08)), rid=f"{LAUNCHER}:id/popup", style="popup")
        menu.children.append(Widget("android.widget.TextView", menu.box, text="App info",
                                    rid=f"{LAUNCHER}:id/app_info", style="text", clickable=True,
                                    action=("none",)))
        return menu

    # ------------------------------------------------------------------- input
    def hit(self, x: int, y: int) -> Widget | None:
        """The deepest clickable widget under a point (what a real tap reaches)."""
        found = None
        for widget in self.widgets().walk():
            if widget.contains(x, y) and widget.clickable:
                found = widget
        return found

    def tap(self, x: int, y: int) -> None:
        now = time.monotonic()
        last, self._last_tap = self._last_tap, (now, x, y)
        if last and now - last[0] <= DOUBLE_TAP_S and abs(x - last[1]) + abs(y - last[2]) < 40:
            self._last_tap = None
            self.event("double_tap", x, y)
            if self.state.screen == "gallery":
                self.state.zoom = 200 if self.state.zoom == 100 else 100
            return
        self.event("tap", x, y)
        if self.state.popup:
            self.state.popup = None
            return
        if self.state.dialog and not redteam.dialog(self, *self.size).contains(x, y):
            self.state.dialog = None  # a tap outside a dialog dismisses it
            return
        widget = self.hit(x, y)
        if widget is None:
            self.state.focused = None
            return
        self.run_action(widget.action)

    def run_action(self, action: tuple[str, ...]) -> None:
        kind = action[0] if action else "none"
        state = self.state
        if kind == "launch":
            self.launch(action[1])
        elif kind == "toggle":
            setattr(state, action[1], not getattr(state, action[1]))
        elif kind == "focus":
            state.focused = action[1]
        elif kind == "save":
            self.save_note()
        elif kind == "open":
            self.push(action[1])
        elif kind == "back":
            self.back()
        elif kind == "pay":
            state.payments += 1
            state.stack[-1] = "shop_done"
        elif kind == "effect":
            state.effects.append(action[1])
        elif kind == "dialog":
            redteam.answer(self, action[1])

    def save_note(self) -> None:
        if self.state.draft:
            self.state.notes.append(self.state.draft)
            self.state.draft = ""

    def launch(self, package: str) -> bool:
        app = next((a for a in APPS if a.package == package), None)
        if app is None:
            return False
        self.state.launches.append(package)
        self.state.focused = None
        self.state.popup = None
        if SCREEN_ACTIVITY[self.state.screen][0] != package:
            self.push(app.screen)
        return True

    def push(self, screen: str) -> None:
        self.state.stack.append(screen)
        self.state.focused = None
        self.state.animate_until = time.monotonic() + ANIMATION_S

    def back(self) -> None:
        if self.state.dialog:
            self.state.dialog = None
        elif self.state.popup:
            self.state.popup = None
        elif self.state.focused:
            self.state.focused = None
        elif len(self.state.stack) > 1:
            self.state.stack.pop()

    def swipe(self, start: tuple[int, int], end: tuple[int, int], ms: int) -> None:
        distance = abs(end[0] - start[0]) + abs(end[1] - start[1])
        if distance < 10 and ms >= LONG_PRESS_MS:
            self.long_press(*start)
            return
        self.event("swipe", *start, *end, ms)
        if self._slide(start, end) or redteam.drop(self, start, end):
            return  # a held launcher's icons follow any finger that moves them
        if self.state.screen == "settings" and _inside(self.settings_list_box(), *start):
            rh = self.settings_row_height()
            top, bottom = self.settings_list_box()[1], self.settings_list_box()[3]
            most = max(0, len(SETTINGS_ROWS) * rh - (bottom - top))
            fling = 2 if ms <= FLING_MS else 1  # a quick flick keeps the list moving
            scroll = self.state.settings_scroll + fling * (start[1] - end[1])
            self.state.settings_scroll = min(max(scroll, 0), most)

    def drag(self, start: tuple[int, int], end: tuple[int, int], ms: int) -> None:
        """Hold, then move: sliders follow, home icons change places."""
        self.event("drag", *start, *end, ms)
        if self._slide(start, end) or redteam.drop(self, start, end):
            return
        if self.state.screen == "home":
            order = self.state.home_order
            source = self.icon_index(*start)
            target = self.icon_index(*end)
            if source is not None and target is not None:
                order[source], order[target] = order[target], order[source]

    def icon_index(self, x: int, y: int) -> int | None:
        for i in range(len(self.state.home_order)):
            if _inside(self.icon_box(i), x, y):
                return i
        return None

    def _slide(self, start: tuple[int, int], end: tuple[int, int]) -> bool:
        for widget in self.widgets().walk():
            if widget.style == "slider" and widget.contains(*start):
                left, _t, right, _b = widget.box
                value = round(100 * (end[0] - left) / max(right - left, 1))
                self.state.brightness = min(max(value, 0), 100)
                return True
        return False

    def long_press(self, x: int, y: int) -> None:
        self.event("long_press", x, y)
        if self.state.screen == "home":
            index = self.icon_index(x, y)
            if index is not None:
                self.state.popup = self.state.home_order[index]

    def key(self, code: int) -> None:
        self.event("key", code)
        state = self.state
        if code == 3:
            state.stack = ["home"]
            state.focused = state.popup = None
        elif code == 4:
            self.back()
        elif code == 187:
            self.push("recents")
        elif code == 66 and state.focused == "note":
            self.save_note()
        elif code == 66 and state.focused:
            self._enter()
        elif code == 67 and state.focused:
            self._edit(lambda text: text[:-1])
        elif code == 279 and state.focused:
            self.insert(state.clipboard)

    def insert(self, text: str) -> None:
        """Text reaching the focused field (keyboard, IME broadcast or paste)."""
        self.event("text", text)
        self._edit(lambda current: current + text)

    def _enter(self) -> None:
        """Enter on the focused widget: a form's submit, a focused button's press."""
        focused = [w for w in self.widgets().walk() if w.focused and w.on_enter]
        if focused:
            self.run_action(focused[-1].on_enter)

    def _edit(self, change: object) -> None:
        if self.state.focused == "note":
            self.state.draft = change(self.state.draft)  # type: ignore[operator]
        elif self.state.focused == "pin":
            self.state.pin = change(self.state.pin)  # type: ignore[operator]
        elif self.state.focused:
            key, fields = self.state.focused, self.state.fields
            fields[key] = change(fields.get(key, ""))  # type: ignore[operator]

    def event(self, *event: object) -> None:
        self.state.events.append(event)


def _inside(box: Box, x: int, y: int) -> bool:
    return box[0] <= x < box[2] and box[1] <= y < box[3]


# relative, so the import survives the move of this package; last, as it builds on the above
from . import redteam  # noqa: E402
