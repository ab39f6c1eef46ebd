"""What a window says about the keys pressed in it, read from its accessible tree.

Enter in a field presses the dialog's default button; Alt+S presses the button whose
label has an underlined S; Delete removes the selected files; OK in a window whose
label asks "Delete?" deletes. None of that is visible in the focused element alone,
so the window around it is walked once (a bounded number of objects) and summarised
as the element facts the safety layer reads (`Element.extra`): `dialog`,
`default_button`, `form_buttons`, `mnemonics`, `selection`. The same walk, larger, gives the words a
window shows for a batch's `text_present` check (`shown_text`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any, Protocol

Ref = tuple[str, str]

STATE_MODAL = 16
STATE_SELECTED = 23
STATE_SHOWING = 25
STATE_IS_DEFAULT = 39
DIALOG_ROLES = frozenset({"dialog", "alert", "file chooser", "color chooser", "font chooser"})
BUTTON_ROLES = frozenset({"push button", "toggle button", "button"})
MNEMONIC_ROLES = BUTTON_ROLES | {"check box", "radio button", "menu item", "check menu item",
                                 "radio menu item", "page tab", "menu", "link"}
ITEM_ROLES = frozenset({"list item", "table cell", "tree item", "icon", "table row",
                        "tree table cell"})
TEXT_ROLES = frozenset({"label", "static", "heading", "paragraph", "text", "caption"})
MAX_BUTTONS = 16
MAX_SELECTED = 20
DIALOG_TEXT_CHARS = 300
CONTENT_ROLES = frozenset({"text", "entry", "paragraph", "document text", "terminal",
                           "editbar", "document frame", "document web", "heading", "section"})
CONTENT_CHARS = 20_000  # of one object's text (a long document keeps its beginning)
SHOWN_TEXT_CHARS = 200_000
_ALT_KEY = re.compile(r"<alt>\s*([^<>;\s])", re.IGNORECASE)


@dataclass(frozen=True)
class Node:
    """One accessible object of a walked window; `parent` indexes the walk's list."""

    ref: Ref
    role: str
    name: str
    states: frozenset[int]
    parent: int | None


class Bus(Protocol):
    def walk(self, frame: Ref) -> list[Node]: ...

    def key_binding(self, ref: Ref) -> str: ...

    def text(self, ref: Ref) -> str: ...


def dialog_text(nodes: list[Node]) -> str:
    """The dialog's title and the words it shows (its question), as one line."""
    parts = [nodes[0].name] if nodes and nodes[0].name else []
    parts += [n.name for n in nodes[1:] if n.role in TEXT_ROLES and n.name]
    return " — ".join(dict.fromkeys(parts))[:DIALOG_TEXT_CHARS]


def shown_text(bus: Bus, nodes: list[Node], deadline: float) -> str:
    """The words of a walked window, one object a line: every name, and the text content
    of text-holding objects (fields, paragraphs, terminals), never a password field's.
    Contents are read until `deadline` (time.monotonic); names are already known."""
    lines: list[str] = []
    size = 0
    for node in nodes:
        words = [node.name] if node.name else []
        if node.role in CONTENT_ROLES and time.monotonic() < deadline:
            try:
                content = bus.text(node.ref)[:CONTENT_CHARS].strip()
            except Exception:  # no Text interface, or it went away: its name is enough
                content = ""
            if content and content != node.name:
                words.append(content)
        for line in words:
            lines.append(line)
            size += len(line) + 1
        if size >= SHOWN_TEXT_CHARS:
            break
    return "\n".join(dict.fromkeys(lines))[:SHOWN_TEXT_CHARS]


def window_facts(bus: Bus, frame: Ref, frame_role: str | None, keys: bool) -> dict[str, Any]:
    """The facts of the window `frame`; `keys` adds what only key presses need
    (mnemonics, the selection), which costs a call per button."""
    modal = False
    try:
        nodes = bus.walk(frame)
    except Exception:  # a window that vanished mid-walk tells nothing
        return {}
    if nodes:
        modal = STATE_MODAL in nodes[0].states
    facts: dict[str, Any] = {}
    if frame_role in DIALOG_ROLES or modal:
        facts["dialog"] = dialog_text(nodes) or (frame_role or "dialog")
    buttons = [n for n in nodes if n.role in BUTTON_ROLES and n.name and _showing(n)]
    if buttons:
        facts["form_buttons"] = list(dict.fromkeys(n.name for n in buttons))[:MAX_BUTTONS]
    default = next((n for n in nodes if STATE_IS_DEFAULT in n.states and n.name), None)
    if default is not None:
        facts["default_button"] = default.name
    if keys:
        mnemonics = _mnemonics(bus, nodes)
        if mnemonics:
            facts["mnemonics"] = mnemonics
        selection = selected_items(nodes)
        if selection:
            facts["selection"] = selection
    return facts


def _showing(node: Node) -> bool:
    return STATE_SHOWING in node.states


def _mnemonics(bus: Bus, nodes: list[Node]) -> dict[str, str]:
    """letter -> label for every showing control with an Alt+letter key binding."""
    found: dict[str, str] = {}
    for node in nodes:
        if node.role not in MNEMONIC_ROLES or not node.name or not _showing(node):
            continue
        try:
            binding = bus.key_binding(node.ref)
        except Exception:
            continue
        letter = parse_mnemonic(binding)
        if letter and letter not in found:
            found[letter] = node.name
    return found


def parse_mnemonic(binding: str) -> str | None:
    """'<Alt>s' (a button), '<Alt>f;<Alt>f:n;<Control>n' (a menu item) -> 's'."""
    match = _ALT_KEY.search(binding.split(";", 1)[0])
    return match.group(1).lower() if match else None


def selected_items(nodes: list[Node]) -> list[str]:
    """Labels of the selected items (files in a list, rows of a table)."""
    labels: list[str] = []
    for index, node in enumerate(nodes):
        if node.role in ITEM_ROLES and STATE_SELECTED in node.states:
            label = node.name or _first_label(nodes, index)
            if label:
                labels.append(label)
    return labels[:MAX_SELECTED]


def _first_label(nodes: list[Node], index: int) -> str:
    """The name of the first named descendant of `nodes[index]` (an item's label)."""
    inside = {index}
    for position in range(index + 1, len(nodes)):
        node = nodes[position]
        if node.parent in inside:
            if node.name:
                return node.name
            inside.add(position)
    return ""
