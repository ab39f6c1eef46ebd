"""What surrounds a phone target: the dialog it is in, its form, the selection.

A tap on "OK" deletes when the dialog above it asks "Delete?"; Enter in a field
submits the form whose button reads "Send money"; a chat box says what it is only
through its hint. These facts come from the same `uiautomator dump` as the target
and go into `Element.extra` for the safety layer (`dialog`, `default_button`,
`form_buttons`, `form_fields`, `selection`, `terminal`).

AlertDialogs are found by the ids Android's AlertController gives their parts
(`android:id/alertTitle`, `android:id/message`, `android:id/button1` the positive
button...); the permission prompt by the permission controller's ids.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from venusctl.drivers.android.ui import Node

DIALOG_PANEL_IDS = ("android:id/parentPanel",)
DIALOG_PART_SUFFIXES = (":id/alertTitle", ":id/grant_dialog", ":id/permission_message")
DIALOG_TEXT_IDS = ("android:id/alertTitle", "android:id/message")
POSITIVE_BUTTON = "android:id/button1"
TERMINAL_PACKAGES = frozenset({
    "com.termux", "jackpal.androidterm", "com.termoneplus", "yarolegovich.materialterminal",
    "com.offsec.nhterm", "org.connectbot", "com.sonelli.juicessh",
    "com.server.auditor.ssh.client", "com.arachnoid.sshelper", "com.zpwebsites.linuxonandroid",
})
MAX_BUTTONS = 12
DIALOG_TEXT_CHARS = 300


def is_field(node: Node) -> bool:
    cls = node.attrs.get("class", "")
    return cls.endswith(("EditText", "AutoCompleteTextView")) or node.flag("password")


def words(node: Node) -> str:
    """What a control says: its own text or description, else its plain children's
    (the "Buy now" and "49.00 EUR" inside one clickable button)."""
    own = node.label
    if own:
        return own
    found = [w for w in (_inner_words(child) for child in node.children) if w]
    return " ".join(dict.fromkeys(found))


def _inner_words(node: Node) -> str:
    if node.actionable:  # another control inside: it speaks for itself
        return ""
    return node.label or " ".join(w for w in (_inner_words(c) for c in node.children) if w)


def subtree(node: Node) -> list[Node]:
    found = [node]
    for child in node.children:
        found.extend(subtree(child))
    return found


def dialog_of(nodes: list[Node], target: Node) -> Node | None:
    """The dialog panel holding `target`, when a dialog is showing and holds it."""
    panel = dialog_panel(nodes)
    if panel is None or target not in subtree(panel):
        return None
    return panel


def dialog_panel(nodes: list[Node]) -> Node | None:
    """The panel of the dialog on screen: AlertController's parentPanel, else the
    outermost node (below the window's root) holding a dialog title or prompt."""
    for node in nodes:
        if node.attrs.get("resource-id") in DIALOG_PANEL_IDS:
            return node
    part = next((n for n in nodes if n.attrs.get("resource-id", "").endswith(
        DIALOG_PART_SUFFIXES)), None)
    if part is None:
        return None
    panel = part
    while panel.parent is not None and panel.parent.parent is not None:
        panel = panel.parent
    return panel


def dialog_facts(panel: Node) -> dict[str, Any]:
    """The dialog's words (title and message) and its buttons, positive one first."""
    inside = subtree(panel)
    titled = [n.label for n in inside if n.attrs.get("resource-id") in DIALOG_TEXT_IDS
              and n.label]
    if not titled:
        titled = [n.label for n in inside if n.label and not n.actionable]
    facts: dict[str, Any] = {"dialog": " — ".join(dict.fromkeys(titled))[:DIALOG_TEXT_CHARS]
                             or "dialog"}
    buttons = _buttons(inside)
    if buttons:
        facts["form_buttons"] = buttons
    positive = next((n for n in inside if n.attrs.get("resource-id") == POSITIVE_BUTTON), None)
    if positive is not None and words(positive):
        facts["default_button"] = words(positive)
    return facts


def _buttons(nodes: list[Node]) -> list[str]:
    labels = [words(n) for n in nodes if n.actionable and not is_field(n)]
    return list(dict.fromkeys(label for label in labels if label))[:MAX_BUTTONS]


def form_facts(target: Node, within: Node | None = None) -> dict[str, Any]:
    """The fields and buttons of the form around `target`: the smallest ancestor
    holding a field and a button (the whole screen in a simple app), looked for no
    higher than `within` (a dialog's panel)."""
    container = target.parent
    while container is not None:
        inside = subtree(container)
        fields = [n for n in inside if is_field(n)]
        buttons = [n for n in inside if n.actionable and not is_field(n)]
        if fields and (buttons or is_field(target)):
            facts: dict[str, Any] = {"form_fields": [_field_name(n) for n in fields][:MAX_BUTTONS]}
            labels = _buttons(buttons)
            if labels:
                facts["form_buttons"] = labels
            return facts
        if container is within:
            break
        container = container.parent
    return {}


def _field_name(node: Node) -> str:
    hint = node.attrs.get("hint") or ""
    ident = node.attrs.get("resource-id", "").rpartition("/")[2]
    if node.flag("password"):
        return hint or ident or "password"
    return hint or ident or node.attrs.get("content-desc") or "field"


def selection(nodes: list[Node]) -> list[str]:
    """Labels of the selected items on screen (what a Delete key would act on)."""
    found = [words(n) for n in nodes if n.flag("selected")]
    return [label for label in dict.fromkeys(found) if label][:MAX_BUTTONS]


def is_terminal_app(package: str | None) -> bool:
    return (package or "") in TERMINAL_PACKAGES
