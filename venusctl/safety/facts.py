"""What the guard knows about one action, reduced to plain fields rules can match.

Everything here comes from the action itself, the driver's description of its
target and the screen's context: the guard never reads free text on the screen
beyond the target's own label, so a page cannot talk its way past a rule. When the
driver could not describe the target (`blind`), rules fall back on the page, the
app, the typed text and the model's stated reason, which only ever add gates.
"""

from __future__ import annotations

from dataclasses import dataclass

from venusctl.actions import (
    OBSERVING,
    Action,
    Click,
    DoubleClick,
    Drag,
    Hotkey,
    KeyDown,
    Launch,
    LaunchApp,
    LongPress,
    MouseUp,
    PressBack,
    PressEnter,
    PressHome,
    PressRecent,
    Scroll,
    SelectOption,
    Sequence,
    Swipe,
    TripleClick,
    Type,
    WheelScroll,
    walk,
)
from venusctl.drivers.base import Element, ScreenContext
from venusctl.safety.detect import detected
from venusctl.safety.guard import GuardRequest, changes_state
from venusctl.safety.places import host_of
from venusctl.safety.text import normalize
from venusctl.secrets import names_in

ACTIVATING = (Click, DoubleClick, TripleClick, LongPress, MouseUp, SelectOption)
POINTING = (Click, DoubleClick, TripleClick, LongPress)
VIEWING = (Scroll, Swipe, WheelScroll)
RETREATING = (PressBack, PressHome)
NAVIGATING = (Launch, LaunchApp, PressBack, PressHome, PressRecent)
ENTER_KEYS = frozenset({"enter", "return", "kp_enter", "numpadenter"})

GROUPS = ("activate", "submit", "type", "keys", "navigate", "view", "observe", "change",
          "retreat", "drag", "any")


@dataclass(frozen=True)
class Facts:
    """The matchable view of one action; text fields are normalized (see `text.py`)."""

    kinds: frozenset[str]
    groups: frozenset[str]
    target: str = ""
    target_raw: str = ""
    role: str = ""
    input_types: frozenset[str] = frozenset()
    dialog: str = ""
    form: str = ""
    link: str = ""
    page: str = ""
    page_raw: str = ""
    apps: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    destinations: tuple[str, ...] = ()
    typed: tuple[str, ...] = ()
    keys: frozenset[frozenset[str]] = frozenset()
    reason: str = ""
    reason_raw: str = ""
    detectors: frozenset[str] = frozenset()
    secrets: tuple[str, ...] = ()
    blind: bool = True
    launched_apps: tuple[str, ...] = ()
    secret_permitted: bool = False

    @property
    def typed_raw(self) -> str:
        return "\n".join(self.typed)


def kinds_and_groups(action: Action) -> tuple[frozenset[str], frozenset[str]]:
    kinds: set[str] = set()
    groups: set[str] = {"any"}
    for one in walk(action):
        if isinstance(one, Sequence):
            continue
        kinds.add(type(one).__name__)
        groups.update(_groups_of(one))
    if changes_state(action):
        groups.add("change")
    return frozenset(kinds), frozenset(groups)


def _groups_of(action: Action) -> set[str]:
    groups: set[str] = set()
    checks = (
        (ACTIVATING, "activate"), (VIEWING, "view"), (NAVIGATING, "navigate"),
        (RETREATING, "retreat"), (OBSERVING, "observe"), ((Type,), "type"),
        ((Hotkey, KeyDown), "keys"), ((Drag,), "drag"),
    )
    for classes, name in checks:
        if isinstance(action, classes):
            groups.add(name)
    if _submits(action):
        groups.update({"submit", "activate"})
    return groups


def _submits(action: Action) -> bool:
    """Enter on the focused control: a form is submitted or a message sent."""
    if isinstance(action, PressEnter):
        return True
    if isinstance(action, Type):
        return "\n" in action.content
    if isinstance(action, (Hotkey, KeyDown)):
        return any(k.strip().lower() in ENTER_KEYS for k in action.keys)
    return False


def element_label(element: Element | None) -> str:
    """The words that name an element: its name, text, ids (raw, not normalized)."""
    if element is None:
        return ""
    parts = [element.name, element.text, element.resource_id,
             str(element.extra.get("id") or ""), str(element.extra.get("value") or ""),
             str(element.extra.get("description") or "")]
    return " | ".join(dict.fromkeys(p for p in parts if p))


def input_types_of(element: Element | None) -> frozenset[str]:
    if element is None:
        return frozenset()
    found = set()
    if element.input_type:
        found.add(element.input_type.lower())
    autocomplete = str(element.extra.get("autocomplete") or "")
    found.update(t.lower() for t in autocomplete.split() if t)
    if element.password:
        found.add("password")
    return frozenset(found)


def page_text(context: ScreenContext) -> str:
    """Where the screen is, as words: the URL's host and path, the title, app, activity."""
    parts = [context.url, context.title, context.app, context.activity]
    return " | ".join(p for p in parts if p)


def facts_of(request: GuardRequest, element: Element | None = None) -> Facts:
    """The facts of a guard request; `element` replaces the request's (focus memory)."""
    action, context = request.action, request.context
    element = element if element is not None else request.element
    kinds, groups = kinds_and_groups(action)
    typed = tuple(a.content for a in walk(action) if isinstance(a, Type))
    label = element_label(element)
    page = page_text(context)
    return Facts(
        kinds=kinds,
        groups=groups,
        target=normalize(label),
        target_raw=label,
        role=normalize(" ".join(p for p in (element.role, element.tag) if p) if element else ""),
        input_types=input_types_of(element),
        dialog=normalize(str(element.extra.get("dialog") or "")) if element else "",
        form=normalize(element.form_action) if element else "",
        link=(element.href or "") if element else "",
        page=normalize(page),
        page_raw=page,
        apps=_apps(action, context, element),
        hosts=tuple(h for h in (host_of(context.url),) if h),
        destinations=_destinations(action, element),
        typed=typed,
        keys=frozenset(_combo(a.keys) for a in walk(action) if isinstance(a, (Hotkey, KeyDown))),
        reason=normalize(request.thought),
        reason_raw=request.thought or "",
        detectors=detected(list(typed)),
        secrets=tuple(n for text in typed for n in names_in(text)),
        blind=not normalize(label),
        launched_apps=tuple(a.app for a in walk(action) if isinstance(a, LaunchApp)),
    )


def _apps(action: Action, context: ScreenContext, element: Element | None) -> tuple[str, ...]:
    found = [context.app, element.app if element else None]
    found.extend(a.app for a in walk(action) if isinstance(a, LaunchApp))
    return tuple(dict.fromkeys(a for a in found if a))


def _destinations(action: Action, element: Element | None) -> tuple[str, ...]:
    """Hosts the action leads to: a launched URL, or the link under a click."""
    found = [host_of(a.url) for a in walk(action) if isinstance(a, Launch)]
    if element is not None and element.href and any(isinstance(a, POINTING) for a in walk(action)):
        found.append(host_of(element.href))
    return tuple(dict.fromkeys(h for h in found if h))


def _combo(keys: tuple[str, ...]) -> frozenset[str]:
    return frozenset(k.strip().lower() for k in keys)


def combo_of(text: str) -> frozenset[str]:
    """`"ctrl+alt+t"` as the set of its keys (order does not matter)."""
    return frozenset(k.strip().lower() for k in text.split("+") if k.strip())
