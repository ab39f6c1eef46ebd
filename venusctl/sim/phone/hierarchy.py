"""The `uiautomator dump` XML of the simulated phone's current screen."""

from __future__ import annotations

from xml.sax.saxutils import quoteattr

from venusctl.sim.phone.app import Widget


def dump(root: Widget, package_of: str, rotation: int) -> str:
    parts = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
             f'<hierarchy rotation="{rotation}">']
    _node(root, 0, package_of, parts)
    parts.append("</hierarchy>")
    return "".join(parts)


def _node(widget: Widget, index: int, package: str, parts: list[str]) -> None:
    left, top, right, bottom = widget.box
    attrs = {
        "index": str(index), "text": widget.text, "resource-id": widget.rid,
        "class": widget.cls, "package": package, "content-desc": widget.desc,
        "checkable": _b(widget.checkable), "checked": _b(widget.checked),
        "clickable": _b(widget.clickable), "enabled": "true",
        "focusable": _b(widget.clickable or widget.style == "field"),
        "focused": _b(widget.focused), "scrollable": _b(widget.scrollable),
        "long-clickable": _b(widget.long_clickable), "password": _b(widget.password),
        "selected": _b(widget.selected), "bounds": f"[{left},{top}][{right},{bottom}]",
    }
    if widget.hint:
        attrs["hint"] = widget.hint
    text = " ".join(f"{key}={quoteattr(value)}" for key, value in attrs.items())
    if not widget.children:
        parts.append(f"<node {text} />")
        return
    parts.append(f"<node {text}>")
    for i, child in enumerate(widget.children):
        _node(child, i, package, parts)
    parts.append("</node>")


def _b(value: bool) -> str:
    return "true" if value else "false"
