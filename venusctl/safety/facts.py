"""What the guard knows about one press, reduced to plain fields rules can match.

Everything here comes from the action, the driver's description of what it acts
on (see `pressing.py` for how keys, drags and releases find that) and the
screen's context: the guard never reads free text on the screen beyond the
target's own label, hint and the facts of its dialog and form, so a page cannot
talk its way past a rule. When the target could not be identified (`blind`:
no label, or a nameless drawing OCR could not read), rules fall back on the page,
the app, the dialog, the typed text and the model's stated reason, which only
ever add gates.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote_plus, urlsplit

from venusctl.core.actions import (
    OBSERVING,
    Action,
    Drag,
    Launch,
    LaunchApp,
    PressBack,
    PressEnter,
    PressHome,
    PressRecent,
    Scroll,
    Swipe,
    WheelScroll,
    walk,
)
from venusctl.drivers.base import Element, ScreenContext
from venusctl.safety.detect import detected
from venusctl.safety.guard import GuardRequest, changes_state
from venusctl.safety.keynames import combo
from venusctl.safety.places import host_of, href_of
from venusctl.safety.pressing import Press
from venusctl.safety.secrets import names_in
from venusctl.safety.text import names, normalize, reads_as_words, scripts_of, symbol_names

VIEWING = (Scroll, Swipe, WheelScroll)
RETREATING = (PressBack, PressHome)
NAVIGATING = (Launch, LaunchApp, PressBack, PressHome, PressRecent)
LABEL_EXTRAS = ("id", "value", "description", "hint", "ocr")
SHOWN_EXTRAS = ("description", "hint", "ocr")  # words a person sees (ids are not shown)

GROUPS = ("activate", "submit", "type", "keys", "navigate", "view", "observe", "change",
          "retreat", "drag", "drop", "any")


@dataclass(frozen=True)
class Facts:
    """The matchable view of one press; text fields are normalized (see `text.py`)."""

    kinds: frozenset[str]
    groups: frozenset[str]
    target: str = ""
    target_raw: str = ""
    role: str = ""
    input_types: frozenset[str] = frozenset()
    dialog: str = ""
    form: str = ""
    form_fields: str = ""
    icons: str = ""
    """The Unicode names of the pictures among the target's shown words (`symbol_names`)."""
    selection: str = ""
    link: str = ""
    page: str = ""
    page_raw: str = ""
    apps: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    secret_hosts: tuple[str, ...] = ()
    destinations: tuple[str, ...] = ()
    typed: tuple[str, ...] = ()
    line: str = ""
    keys: frozenset[frozenset[str]] = frozenset()
    reason: str = ""
    reason_raw: str = ""
    detectors: frozenset[str] = frozenset()
    secrets: tuple[str, ...] = ()
    blind: bool = True
    selected: bool = False
    terminal: bool = False
    launched_apps: tuple[str, ...] = ()
    secret_permitted: bool = False
    how: str = ""
    shown: str = ""
    """The target in words, for the verdict (`button 'Delete' (drop on)`)."""
    navigates: bool = False
    """The press follows a web link to another page, and that is all it does
    (`follows_link`): what it does is what loading that address does."""
    scripts: frozenset[str] = frozenset()
    """The scripts of the words a person reads on the target (`text.scripts_of`)."""

    @property
    def typed_raw(self) -> str:
        return "\n".join(self.typed)


def groups_of(press: Press) -> frozenset[str]:
    """The groups rules name in `action:` (see the rule reference in docs/safety.md)."""
    leaf = press.action
    groups = {"any"}
    checks = ((VIEWING, "view"), (NAVIGATING, "navigate"), (RETREATING, "retreat"),
              (OBSERVING, "observe"), ((Drag,), "drag"))
    groups.update(name for classes, name in checks if isinstance(leaf, classes))
    flags = ((press.activates, "activate"), (press.submits, "submit"), (press.drops, "drop"),
             (press.drops, "drag"), (press.types, "type"), (bool(press.keys), "keys"))
    groups.update(name for flag, name in flags if flag)
    if changes_state(leaf) or press.activates:
        groups.add("change")
    if isinstance(leaf, PressEnter):
        groups.add("keys")
    return frozenset(groups)


def element_label(element: Element | None) -> str:
    """The words that name an element: name, text, ids, hint, OCR reading (raw, whole)."""
    if element is None:
        return ""
    parts = [element.name, element.text, element.resource_id,
             *(str(element.extra.get(k) or "") for k in LABEL_EXTRAS)]
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


def shown_words(element: Element | None) -> str:
    """What a person reads on the target: its name, text, description, hint or what OCR
    read there. Resource ids and DOM ids still match keywords but do not identify it."""
    if element is None:
        return ""
    parts = [element.name, element.text, *(str(element.extra.get(k) or "")
                                           for k in SHOWN_EXTRAS)]
    return " ".join(p for p in parts if p)


def is_blind(element: Element | None, label: str) -> bool:
    """Nothing names the target for a person: no letters or digits of its own (nothing,
    or only symbols, emoji, an icon font's glyphs: `text.names`), or a drawing whose
    reading holds no word (`text.reads_as_words`: empty, or noise)."""
    if element is None or not names(label):
        return True
    reading = str(element.extra.get("ocr") or "")
    own = " ".join(p for p in (element.name, element.text, *(str(element.extra.get(k) or "")
                                                            for k in SHOWN_EXTRAS if k != "ocr"))
                   if p)
    if element.extra.get("nameless") or element.extra.get("unidentified") or not names(own):
        return not reads_as_words(reading)
    return False


def facts_of(press: Press, request: GuardRequest) -> Facts:
    """The facts of one press of a guard request."""
    element, context = press.element, request.context
    label = element_label(element)
    typed = (press.action.content,) if press.types else ()  # type: ignore[union-attr]
    extra = element.extra if element is not None else {}
    hosts = tuple(h for h in (host_of(context.url),) if h)
    frame = host_of(str(extra.get("frame_origin") or "")) if extra.get("frame_origin") else None
    return Facts(
        kinds=frozenset({type(press.action).__name__}),
        groups=groups_of(press),
        target=normalize(label),
        target_raw=label,
        role=normalize(" ".join(p for p in (element.role, element.tag) if p) if element else ""),
        input_types=input_types_of(element),
        dialog=normalize(str(extra.get("dialog") or "")),
        form=normalize(element.form_action) if element else "",
        form_fields=normalize(" | ".join(_strings(extra.get("form_fields")))),
        icons=" | ".join(normalize(n) for n in symbol_names(shown_words(element)).splitlines()),
        selection=normalize(" | ".join(press.selection)),
        link=_link(press, element),
        page=normalize(page_text(context)),
        page_raw=page_text(context),
        apps=_apps(press.action, context, element),
        hosts=tuple(dict.fromkeys((*hosts, *((frame,) if frame else ())))),
        secret_hosts=(frame,) if frame else hosts,
        destinations=_destinations(press, element),
        typed=typed,
        line=press.line,
        keys=press.keys,
        reason=normalize(request.thought),
        reason_raw=request.thought or "",
        detectors=detected([*typed, press.line] if press.types else []),
        secrets=tuple(n for text in typed for n in names_in(text)),
        blind=is_blind(element, label),
        scripts=scripts_of(shown_words(element)),
        navigates=follows_link(press, element, context),
        selected=bool(press.selection),
        terminal=extra.get("terminal") is True,
        launched_apps=tuple(a.app for a in walk(press.action) if isinstance(a, LaunchApp)),
        how=press.how,
        shown=shown(press),
    )


def shown(press: Press) -> str:
    """The pressed thing as a person reads it in a confirmation."""
    element = press.element
    if element is None:
        what = "(the driver could not tell what is there)"
    else:
        label = " ".join(element_label(element).split())
        kind = element.kind
        stands_for = element.extra.get("stands_for")
        what = f"{kind} {label!r}" if label else f"{kind} (no label)"
        if stands_for:
            what += f" ({stands_for})"
    return f"{what}, by {press.how}" if press.how else what


def follows_link(press: Press, element: Element | None, context: ScreenContext) -> bool:
    """Whether activating the target only follows a web link to another page: an http(s)
    link (`<a href>`, role link) to another address than the page's own, that no script
    or framework attribute makes act otherwise (`extra.scripted`, set by the web driver).
    What such a press changes is what a GET of that address changes; requests a page's
    script sends on the click are still held by the request gate, by what they carry."""
    if not press.activates or element is None or not element.href:
        return False
    if element.extra.get("scripted"):
        return False
    if (element.role or "").lower() != "link" and (element.tag or "").lower() != "a":
        return False
    there, here = urlsplit(element.href), urlsplit(context.url or "")
    if there.scheme not in ("http", "https") or not there.netloc:
        return False
    return (there.netloc, there.path, there.query) != (here.netloc, here.path, here.query)


def destination_words(href: str) -> str:
    """What following a link does, in words: the path and query of its address, decoded
    ("/account/delete?id=3" says "account delete id 3"); the host names who, not what."""
    there = urlsplit(href)
    return unquote_plus(f"{there.path} {there.query}".strip())


def _link(press: Press, element: Element | None) -> str:
    """The address a press opens: a launched URL (as the browser reads it) or a link."""
    launched = [href_of(a.url) for a in walk(press.action) if isinstance(a, Launch)]
    if launched:
        return launched[0]
    return (element.href or "") if element else ""


def _strings(value: object) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v]
    return [str(value)] if value else []


def _apps(action: Action, context: ScreenContext, element: Element | None) -> tuple[str, ...]:
    found = [context.app, element.app if element else None]
    if element is not None:
        found.extend(str(element.extra.get(k) or "") for k in ("window_class", "process"))
    found.extend(a.app for a in walk(action) if isinstance(a, LaunchApp))
    return tuple(dict.fromkeys(a for a in found if a))


def _destinations(press: Press, element: Element | None) -> tuple[str, ...]:
    """Hosts the press leads to: a launched URL, or the link it activates."""
    found = [host_of(a.url) for a in walk(press.action) if isinstance(a, Launch)]
    opens_link = press.activates or press.how == "middle click"
    if element is not None and element.href and opens_link:
        found.append(host_of(element.href))
    return tuple(dict.fromkeys(h for h in found if h))


def combo_of(text: str) -> frozenset[str]:
    """`"ctrl+alt+t"` as the set of its keys by their canonical names (`keynames`:
    "control+Return" is the same combination as "ctrl+enter")."""
    return combo([k for k in text.split("+") if k.strip()])
