"""Fields whose contents must not be seen: where they are on screen, in every frame.

Two kinds, both in CSS pixels of the tab's viewport:
  sensitive  password, card and one-time-code fields, found anew on each screenshot in
             every frame (cross-origin and out-of-process iframes included) and
             through open shadow roots; the secret wrapper blurs them
  secret     the fields a stored secret was typed into, remembered by handle when the
             secret is typed (a page cannot shake the mark off by editing the DOM);
             the secret wrapper paints over them in every later screenshot
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

Box = tuple[int, int, int, int]

SENSITIVE_JS = """
() => {
  const sel = 'input[type=password], input[autocomplete~="cc-number"], ' +
    'input[autocomplete~="cc-csc"], input[autocomplete~="cc-exp"], ' +
    'input[autocomplete~="one-time-code"], input[autocomplete~="current-password"], ' +
    'input[autocomplete~="new-password"]';
  const found = [];
  const walk = root => {
    root.querySelectorAll(sel).forEach(e => found.push(e));
    root.querySelectorAll('*').forEach(e => { if (e.shadowRoot) walk(e.shadowRoot); });
  };
  walk(document);
  return found.map(e => e.getBoundingClientRect())
    .filter(r => r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 &&
                 r.top < innerHeight && r.left < innerWidth)
    .map(r => [Math.floor(r.left), Math.floor(r.top), Math.ceil(r.width), Math.ceil(r.height)]);
}
"""

DEEP_FOCUS_JS = """
() => {
  let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  return e && e !== document.body && e !== document.documentElement ? e : null;
}
"""


def sensitive_boxes(page: Any) -> list[Box]:
    """Password, card and code fields on screen, in every frame of the tab."""
    boxes: list[Box] = []
    for frame in page.frames:
        try:
            found = frame.evaluate(SENSITIVE_JS)
            origin = _frame_origin(frame)
        except Exception as exc:  # a frame navigating or gone: it shows nothing yet
            log.debug("sensitive fields of a frame: %s", exc)
            continue
        if origin is None:
            continue
        ox, oy, clip = origin
        for left, top, width, height in found or []:
            boxes.append(_clipped((left + ox, top + oy, width, height), clip))
    return [b for b in boxes if b[2] > 0 and b[3] > 0]


def _frame_origin(frame: Any) -> tuple[float, float, Box | None] | None:
    """Where a frame's viewport starts in the tab's, and the box it is clipped to."""
    if frame.parent_frame is None:
        return (0.0, 0.0, None)
    owner = frame.frame_element()
    box = owner.bounding_box()
    if box is None:
        return None
    inner = owner.evaluate("e => { const s = getComputedStyle(e); return ["
                           "parseFloat(s.borderLeftWidth) + parseFloat(s.paddingLeft), "
                           "parseFloat(s.borderTopWidth) + parseFloat(s.paddingTop)]; }")
    clip = (int(box["x"]), int(box["y"]), int(box["width"]) + 1, int(box["height"]) + 1)
    return (box["x"] + inner[0], box["y"] + inner[1], clip)


def _clipped(box: tuple[float, float, float, float], clip: Box | None) -> Box:
    left, top, width, height = box
    if clip is not None:
        right, bottom = min(left + width, clip[0] + clip[2]), min(top + height, clip[1] + clip[3])
        left, top = max(left, clip[0]), max(top, clip[1])
        width, height = right - left, bottom - top
    return (int(left), int(top), int(max(width, 0)), int(max(height, 0)))


def focused_handle(page: Any) -> Any | None:
    """A handle on the focused field, through open shadow roots and every iframe (the
    host of a closed shadow root stands for what it hides)."""
    frame = page.main_frame
    for _depth in range(8):
        handle = frame.evaluate_handle(DEEP_FOCUS_JS).as_element()
        if handle is None:
            return None
        if handle.evaluate("e => e.tagName") not in ("IFRAME", "FRAME"):
            return handle
        inner = handle.content_frame()
        if inner is None:
            return handle
        frame = inner
    return None


class SecretFields:
    """The fields secrets were typed into, and their boxes now."""

    def __init__(self) -> None:
        self._handles: list[Any] = []

    def remember(self, handle: Any) -> None:
        self._handles.append(handle)

    def boxes(self) -> list[Box]:
        found: list[Box] = []
        kept = []
        for handle in self._handles:
            try:
                box = handle.bounding_box()
            except Exception:  # its page is gone: nothing of it can show any more
                continue
            kept.append(handle)
            if box and box["width"] > 0 and box["height"] > 0:
                found.append((int(box["x"]) - 2, int(box["y"]) - 2, int(box["width"]) + 5,
                              int(box["height"]) + 5))
        self._handles = kept
        return found
