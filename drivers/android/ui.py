"""What is on a phone screen, from `uiautomator dump`: what a tap or a key reaches.

The guard and the record need to know what a tap will hit: a "Pay" button, a
password field, a switch. The smallest node containing the point is what the
finger lands on; when it sits inside a clickable row or button, the row or button
is what reacts and what is reported (its words, its id), with the touched node
kept in `leaf_text`/`leaf_id`. A control with no words of its own (an icon with
only a resource id) is `nameless`: an id is not a label a person sees. Keys go to
the focused node. Dialog, form and selection facts come from `context`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree

from venusctl.drivers.android import context
from venusctl.drivers.base import Element

BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
ROLES = {
    "Button": "button", "ImageButton": "button", "EditText": "textbox",
    "AutoCompleteTextView": "textbox", "Switch": "switch", "SwitchCompat": "switch",
    "CheckBox": "checkbox", "RadioButton": "radio", "ToggleButton": "switch",
    "SeekBar": "slider", "ImageView": "image", "TextView": "text", "Spinner": "combobox",
    "RecyclerView": "list", "ListView": "list", "ScrollView": "list", "WebView": "document",
}


@dataclass
class Node:
    """One `<node>` of the dump."""

    attrs: dict[str, str]
    bounds: tuple[int, int, int, int]  # left, top, right, bottom
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)

    def flag(self, name: str) -> bool:
        return self.attrs.get(name) == "true"

    @property
    def area(self) -> int:
        left, top, right, bottom = self.bounds
        return max(right - left, 0) * max(bottom - top, 0)

    def contains(self, x: int, y: int) -> bool:
        left, top, right, bottom = self.bounds
        return left <= x < right and top <= y < bottom

    @property
    def label(self) -> str:
        return (self.attrs.get("text") or self.attrs.get("content-desc") or "").strip()

    @property
    def actionable(self) -> bool:
        return any(self.flag(f) for f in ("clickable", "long-clickable", "checkable")) or (
            self.attrs.get("class", "").endswith("EditText"))


def parse_hierarchy(xml: str) -> list[Node]:
    """Every node of a dump, parents before children (document order)."""
    start = xml.find("<?xml")
    if start < 0:
        start = xml.find("<hierarchy")
    if start < 0:
        raise ValueError("no hierarchy in the uiautomator output")
    end = xml.rfind("</hierarchy>")
    root = ElementTree.fromstring(xml[start:end + len("</hierarchy>")] if end >= 0 else
                                  xml[start:])
    nodes: list[Node] = []

    def visit(element: ElementTree.Element, parent: Node | None) -> None:
        for child in element:
            if child.tag != "node":
                continue
            match = BOUNDS.match(child.get("bounds", ""))
            box = tuple(int(v) for v in match.groups()) if match else (0, 0, 0, 0)
            node = Node(dict(child.attrib), box, parent)  # type: ignore[arg-type]
            if parent is not None:
                parent.children.append(node)
            nodes.append(node)
            visit(child, node)

    visit(root, None)
    return nodes


def node_at(nodes: list[Node], x: int, y: int) -> Node | None:
    """The smallest node containing the point; the later (on top) one on a tie."""
    best: Node | None = None
    for node in nodes:
        if node.contains(x, y) and (best is None or node.area <= best.area):
            best = node
    return best


def element_at(nodes: list[Node], x: int, y: int) -> Element | None:
    """What a tap at the point reaches: the nearest clickable ancestor of the node
    under the finger (a price inside a "Buy now" button answers as the button)."""
    leaf = node_at(nodes, x, y)
    if leaf is None:
        return None
    actor = leaf
    while actor is not None and not actor.actionable:
        actor = actor.parent
    return element_for(nodes, actor or leaf, leaf, clickable=actor is not None)


def focused_element(nodes: list[Node]) -> Element | None:
    """Where keys and typed text go: the focused node (the smallest, if nested); with
    nothing focused, a showing dialog (Enter would reach its buttons)."""
    focused = [n for n in nodes if n.flag("focused") and n.area > 0]
    if focused:
        node = min(focused, key=lambda n: n.area)
        return element_for(nodes, node, node, clickable=node.actionable, keys=True)
    panel = context.dialog_panel(nodes)
    if panel is None:
        return None
    return element_for(nodes, panel, panel, clickable=False, keys=True, role="dialog")


def element_for(nodes: list[Node], target: Node, leaf: Node, clickable: bool,
                keys: bool = False, role: str | None = None) -> Element:
    """`target` as the safety layer sees it: its own words, ids and state, plus its
    dialog, form and (for keys) the selection; `leaf` is the node actually touched."""
    cls = target.attrs.get("class", "")
    password = target.flag("password") or leaf.flag("password")
    said = context.words(target) if role != "dialog" else ""
    desc = target.attrs.get("content-desc") or None
    extra = _state(target, leaf)
    hint = target.attrs.get("hint") or leaf.attrs.get("hint")
    if hint:
        extra["hint"] = hint
    if not (said or hint) and role != "dialog":
        extra["nameless"] = True  # an icon: its id is no label; the pixels are read
    extra.update(_surroundings(nodes, target, keys))
    left, top, right, bottom = target.bounds
    return Element(
        text=target.attrs.get("text") or (said if said != desc else None) or None,
        name=desc,
        role=role or _role(cls, password, target, clickable),
        tag=cls or None,
        resource_id=target.attrs.get("resource-id") or leaf.attrs.get("resource-id") or None,
        input_type="password" if password else ("text" if context.is_field(target) else None),
        app=target.attrs.get("package") or None,
        clickable=clickable,
        password=password,
        bounds=(left, top, right - left, bottom - top),
        extra=extra,
    )


def _state(target: Node, leaf: Node) -> dict[str, Any]:
    extra: dict[str, Any] = {k: True for k in ("checked", "selected", "focused")
                             if target.flag(k)}
    if target.flag("checkable"):
        extra["checked"] = target.flag("checked")
    if not target.flag("enabled") and "enabled" in target.attrs:
        extra["enabled"] = False
    if leaf is not target:
        if leaf.label:
            extra["leaf_text"] = leaf.label
        if leaf.attrs.get("resource-id"):
            extra["leaf_id"] = leaf.attrs["resource-id"]
    return extra


def _surroundings(nodes: list[Node], target: Node, keys: bool) -> dict[str, Any]:
    """Dialog or form facts, the selection for keys, and whether this is a terminal."""
    panel = context.dialog_of(nodes, target)
    extra: dict[str, Any] = context.form_facts(target, within=panel)
    if panel is not None:  # the dialog's words and buttons, not the screen's behind it
        extra.update(context.dialog_facts(panel))
    if keys:
        chosen = context.selection(nodes)
        if chosen:
            extra["selection"] = chosen
    if context.is_terminal_app(target.attrs.get("package")):
        extra["terminal"] = True
    return extra


def password_regions(nodes: list[Node]) -> list[tuple[int, int, int, int]]:
    """Bounds (left, top, width, height) of password fields, to blur in saved images."""
    return [(n.bounds[0], n.bounds[1], n.bounds[2] - n.bounds[0], n.bounds[3] - n.bounds[1])
            for n in nodes if n.flag("password") and n.area > 0]


def _role(cls: str, password: bool, target: Node, clickable: bool) -> str | None:
    if password:
        return "textbox"
    role = ROLES.get(cls.rsplit(".", 1)[-1])
    if role is None and clickable and target.actionable:  # a clickable layout acts as one
        parent = target.parent
        in_list = parent is not None and ROLES.get(
            parent.attrs.get("class", "").rsplit(".", 1)[-1]) == "list"
        return "list item" if in_list else "button"
    return role


def hierarchy_text(nodes: list[Node]) -> str:
    """Every label of the hierarchy (text, content description, hint), one a line."""
    labels = [node.attrs.get(key, "") for node in nodes
              for key in ("text", "content-desc", "hint")]
    return "\n".join(label for label in labels if label)
