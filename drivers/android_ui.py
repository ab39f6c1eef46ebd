"""What is on a phone screen, from `uiautomator dump`: the node under a point.

The guard and the record need to know what a tap will hit: a "Pay" button, a
password field, a switch. The smallest node containing the point is what the
finger lands on; when it is plain text inside a clickable row, the row is what
reacts, so the answer borrows the row's clickability and keeps both names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.etree import ElementTree

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
    """The node under a point as an `Element`, with the clickable ancestor's help."""
    leaf = node_at(nodes, x, y)
    if leaf is None:
        return None
    actor = leaf
    while actor is not None and not actor.actionable:
        actor = actor.parent
    # a button's words may sit in a child; a bare container borrows no words
    label = leaf.label or (actor.label or _descendant_text(actor) if actor else "")
    cls = leaf.attrs.get("class", "")
    left, top, right, bottom = (actor or leaf).bounds
    extra = {k: True for k in ("checked", "selected", "focused") if leaf.flag(k)}
    if leaf.flag("checkable"):
        extra["checked"] = leaf.flag("checked")
    if actor is not None and actor is not leaf:
        extra["target_class"] = actor.attrs.get("class", "")
        if actor.attrs.get("resource-id"):
            extra["target_id"] = actor.attrs["resource-id"]
    if not leaf.flag("enabled") and "enabled" in leaf.attrs:
        extra["enabled"] = False
    password = leaf.flag("password") or bool(actor and actor.flag("password"))
    return Element(
        text=leaf.attrs.get("text") or (None if leaf.attrs.get("content-desc") else label) or None,
        name=leaf.attrs.get("content-desc") or None,
        role=_role(cls, password),
        tag=cls or None,
        resource_id=leaf.attrs.get("resource-id") or None,
        input_type="password" if password else ("text" if cls.endswith("EditText") else None),
        app=leaf.attrs.get("package") or None,
        clickable=actor is not None,
        password=password,
        bounds=(left, top, right - left, bottom - top),
        extra=extra,
    )


def password_regions(nodes: list[Node]) -> list[tuple[int, int, int, int]]:
    """Bounds (left, top, width, height) of password fields, to blur in saved images."""
    return [(n.bounds[0], n.bounds[1], n.bounds[2] - n.bounds[0], n.bounds[3] - n.bounds[1])
            for n in nodes if n.flag("password") and n.area > 0]


def _role(cls: str, password: bool) -> str | None:
    if password:
        return "textbox"
    return ROLES.get(cls.rsplit(".", 1)[-1])


def _descendant_text(node: Node) -> str:
    for child in node.children:
        text = child.label or _descendant_text(child)
        if text:
            return text
    return ""
