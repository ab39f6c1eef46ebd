"""What a click at a point (or a key) would really act on, as Chromium itself sees it.

The guard can only judge what it is told, and pages hide their controls from a
hand-written DOM reader: inside iframes (cross-origin ones live in other processes),
open and closed shadow roots, labels drawn by CSS `::before`, one span per letter,
canvases, images, transparent overlays, controls that appear only on hover. So:

  1. the pointer moves to the point first and the page gets two frames to react,
     so hover-revealed controls are there;
  2. Chromium's own hit test (DevTools `DOM.getNodeForLocation`) names the node that
     will receive the click; it goes through shadow roots, open or closed, and into
     same-process iframes; an out-of-process iframe is entered through its own
     DevTools session with the point moved into its viewport;
  3. the accessible name comes from Chromium's accessibility tree of the nearest
     control (aria-label/-labelledby, alt, title, CSS generated content, split
     letters: all as a screen reader would read them), next to the control's visible
     text; neither is cut short (at most `MAX_LABEL` characters, head and tail);
  4. the control's facts for the safety contract come from a small script run on
     that very node: its form's fields and buttons, the button Enter would press, the
     dialog around it, its hint, its frame's origin, whether it is drawn with no
     text of its own (`nameless`), and what is shown beneath it when it is itself
     see-through (an invisible "Continue" over "Pay").

The focused element (for Enter, space, Tab and typing) is found the same way:
through shadow roots (closed ones via DevTools) and iframes down to the node that
has the focus, however hidden it is.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from venusctl.drivers.base import Element

log = logging.getLogger(__name__)

MAX_LABEL = 20000  # characters of a label kept (half from the start, half from the end)
MAX_DEPTH = 8  # frames and shadow roots descended at most
INTERACTIVE_ROLES = frozenset({
    "button", "link", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "checkbox",
    "radio", "switch", "option", "textbox", "searchbox", "combobox", "listbox", "slider",
    "spinbutton", "treeitem", "textfield", "togglebutton", "popupbutton",
})
PLAIN_ROLES = frozenset({"generic", "none", "statictext", "rootwebarea", "webarea", "section",
                         "main", "region", "group", "document", "paragraph", "div"})
FRAME_TAGS = ("IFRAME", "FRAME")
FRAME_CLASSES = ("HTMLIFrameElement", "HTMLFrameElement")
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]")

# after the pointer moved: one frame, then one task, so hover styles are in place and
# handlers that reveal a control through a scheduled update (React and kin) have run
SETTLE_JS = "() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))"

# Run with `this` = the control; (lx, ly) is the point in its frame's viewport.
FACTS_JS = r"""
function (lx, ly, control) {
  const el = this, doc = el.ownerDocument;
  const view = doc.defaultView;
  const clean = s => (s || '').replace(/[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]/g, '')
    .replace(/\s+/g, ' ').trim();
  const up = e => e.parentElement || (e.getRootNode && e.getRootNode().host) || null;
  const closest = (e, sel) => { for (let n = e; n; n = up(n)) if (n.matches && n.matches(sel))
    return n; return null; };
  const tag = el.tagName.toLowerCase();
  const text = e => clean(e.innerText !== undefined && e.innerText !== '' ? e.innerText
                                                                         : e.textContent);
  const label = b => clean(b.getAttribute('aria-label') || (b.tagName === 'INPUT' ? b.value : '')
                           || text(b) || b.getAttribute('title') || b.getAttribute('alt'));
  const form = el.form || closest(el, 'form');
  const dialog = closest(el, 'dialog,[role=dialog],[role=alertdialog],[aria-modal=true]');
  const scope = form || dialog || closest(el, '[role=form],[role=search],[role=toolbar]');
  const buttonSel = 'button,input[type=submit],input[type=button],input[type=image],' +
                    'input[type=reset],[role=button]';
  const pool = form ? Array.from(form.elements) :
               scope ? Array.from(scope.querySelectorAll('*')) : [];
  const buttons = pool.filter(e => e.matches(buttonSel));
  const submit = form ? pool.find(e => e.matches('button:not([type]),button[type=submit],' +
                                                 'input[type=submit],input[type=image]')) : null;
  const fields = form ? pool.filter(e => e.matches('input,select,textarea')).map(e =>
    [...new Set([e.name, e.id, e.getAttribute('autocomplete'),
                 e.type && e.type !== 'text' ? e.type : ''].filter(Boolean))].join(' '))
    .filter(Boolean) : [];
  const style = e => view.getComputedStyle(e);
  const alpha = c => { const m = /rgba?\(([^)]*)\)/.exec(c || ''); if (!m) return 1;
    const p = m[1].split(','); return p.length > 3 ? parseFloat(p[3]) : 1; };
  const seeThrough = e => {
    let opacity = 1;
    for (let n = e; n && n.nodeType === 1; n = up(n)) opacity *= parseFloat(style(n).opacity);
    const s = style(e);
    if (opacity < 0.15 || s.visibility === 'hidden') return true;
    return alpha(s.color) < 0.15 && alpha(s.backgroundColor) < 0.15 &&
           s.backgroundImage === 'none' && parseFloat(s.borderTopWidth || '0') === 0 &&
           !e.querySelector('img,svg,canvas,video');
  };
  let beneath = '';
  if (seeThrough(el)) {
    const root = el.getRootNode().elementsFromPoint ? el.getRootNode() : doc;
    for (const under of root.elementsFromPoint(lx, ly)) {
      if (under === el || el.contains(under) || under.contains(el)) continue;
      if (seeThrough(under)) continue;
      const said = label(under); if (said) { beneath = said; break; }
    }
  }
  const media = el.matches('canvas,img,svg,picture,video,object,embed') ||
    !!el.querySelector('canvas,img,svg,picture,video') || style(el).backgroundImage !== 'none';
  const r = el.getBoundingClientRect();
  const dialogName = dialog ? clean(dialog.getAttribute('aria-label') || text(dialog)) : '';
  const ident = el.id || el.getAttribute('name') || el.getAttribute('data-testid') ||
                Array.from(el.classList || []).slice(0, 5).join(' ');
  return {
    tag, id: el.id || null, resource_id: ident || null,
    role_attr: el.getAttribute('role'),
    // a plain container (the page body, a layout div) speaks only for its own words:
    // its descendants' text would make a click on empty space look like "Submit order"
    text: control || el.children.length === 0 ? text(el) : clean(Array.from(el.childNodes)
      .filter(n => n.nodeType === 3).map(n => n.textContent).join(' ')),
    value: el.matches('input[type=submit],input[type=button],input[type=reset]') ? el.value : null,
    input_type: tag === 'input' ? (el.type || 'text') : null,
    autocomplete: el.getAttribute('autocomplete'),
    href: el.href && typeof el.href === 'string' ? el.href : null,
    form_action: form ? (form.action || null) : null,
    hint: clean(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder')
                || el.getAttribute('data-placeholder')),
    dialog: dialogName, form_buttons: buttons.map(label).filter(Boolean),
    default_button: submit ? label(submit) : null, form_fields: fields,
    frame_origin: view.location.origin !== 'null' ? view.location.origin
                  : view.location.protocol + '//' + view.location.host,
    media, beneath, editable: el.isContentEditable,
    // a link a script or the framework acts on besides following it (Rails' data-method,
    // an inline handler, a download): following its address is not all it does
    scripted: !!el.href && ['onclick', 'data-method', 'data-turbo-method', 'data-remote',
      'download', 'hx-post', 'hx-delete', 'hx-put', 'hx-patch']
      .some(a => el.hasAttribute(a)),
    rect: [r.left, r.top, r.width, r.height],
  };
}
"""


@dataclass
class Hit:
    """A node found by a hit test or a focus walk, and how to reach it."""

    session: Any
    backend_id: int
    local: tuple[float, float]  # the point in the session's viewport
    offset: tuple[float, float]  # that viewport's origin in the page's viewport
    frame_id: str | None = None  # the node's own frame, when the hit test said
    object_id: str | None = None  # a script handle on the node, when it is an element


class Describer:
    """Describes points and the focus of one browser context's pages."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self._sessions: dict[int, Any] = {}  # id(page) -> its DevTools session
        self._frames: dict[int, tuple[Any, Any]] = {}  # id(frame) -> (frame, session or None)
        self._by_frame_id: dict[str, Any] = {}  # out-of-process frame id -> session
        self._own_frame: dict[int, str] = {}  # id(session) -> the frame it is the root of

    # ------------------------------------------------------------- sessions
    def session(self, page: Any) -> Any:
        key = id(page)
        if key not in self._sessions:
            self._sessions = {k: s for k, s in self._sessions.items()
                              if any(id(p) == k for p in self.context.pages)}
            self._sessions[key] = self.context.new_cdp_session(page)
        return self._sessions[key]

    def frame_session(self, page: Any, frame_id: str) -> Any | None:
        """The DevTools session of an out-of-process iframe, by its frame id (None for a
        frame in its parent's process: its parent's session reaches into it)."""
        if frame_id not in self._by_frame_id:
            self._frames = {k: v for k, v in self._frames.items() if not v[0].is_detached()
                            and v[1] is not None}
            for frame in page.frames[1:]:
                if id(frame) in self._frames and self._frames[id(frame)][0] is frame:
                    continue
                session = None
                try:
                    session = self.context.new_cdp_session(frame)
                    info = session.send("Target.getTargetInfo")["targetInfo"]
                    self._by_frame_id[info["targetId"]] = session
                except Exception:  # in-process: reached through its parent's session
                    session = None
                self._frames[id(frame)] = (frame, session)
        return self._by_frame_id.get(frame_id)

    def _root_frame(self, session: Any) -> str | None:
        """The frame a session's viewport belongs to (its target is that frame)."""
        key = id(session)
        if key not in self._own_frame:
            try:
                self._own_frame[key] = session.send("Target.getTargetInfo")["targetInfo"][
                    "targetId"]
            except Exception:  # an older browser: always measure the frame's place
                self._own_frame[key] = ""
        return self._own_frame[key] or None

    # ------------------------------------------------------------- hit test
    def hit(self, page: Any, x: float, y: float) -> Hit | None:
        """The node a click at (x, y) lands on, through shadow roots and iframes."""
        session, offset = self.session(page), (0.0, 0.0)
        for _depth in range(MAX_DEPTH):
            lx, ly = x - offset[0], y - offset[1]
            found = session.send("DOM.getNodeForLocation", {
                "x": round(lx), "y": round(ly), "includeUserAgentShadowDOM": False,
                "ignorePointerEventsNone": False})
            backend = found["backendNodeId"]
            handle = session.send("DOM.resolveNode", {"backendNodeId": backend})["object"]
            inner = None
            if handle.get("className") in FRAME_CLASSES:
                node = session.send("DOM.describeNode", {"backendNodeId": backend})["node"]
                inner = self.frame_session(page, node.get("frameId") or "")
            if inner is None:
                element = handle.get("objectId") if str(handle.get("className", "")).endswith(
                    "Element") else None
                return Hit(session, backend, (lx, ly), offset, found.get("frameId"), element)
            box = session.send("DOM.getBoxModel", {"backendNodeId": backend})
            content = box["model"]["content"]
            offset = (offset[0] + content[0], offset[1] + content[1])
            session = inner
        return None

    def focus(self, page: Any) -> Hit | None:
        """The node with the keyboard focus, through shadow roots and iframes."""
        session, offset = self.session(page), (0.0, 0.0)
        found = session.send("Runtime.evaluate", {"expression": "document.activeElement"})
        object_id = found.get("result", {}).get("objectId")
        for _depth in range(MAX_DEPTH * 2):
            if not object_id:
                return None
            node = session.send("DOM.describeNode", {"objectId": object_id, "depth": 1,
                                                     "pierce": True})["node"]
            deeper = self._focus_inside(page, session, node)
            if deeper is None:
                if node.get("nodeName") in ("BODY", "HTML", "#document"):
                    return None
                return Hit(session, node["backendNodeId"], (-1.0, -1.0), offset)
            session, object_id, shift = deeper
            offset = (offset[0] + shift[0], offset[1] + shift[1])
        return None

    def _focus_inside(self, page: Any, session: Any, node: dict[str, Any]
                      ) -> tuple[Any, str | None, tuple[float, float]] | None:
        """One step down from a focused host or frame: (session, active element, offset)."""
        for root in node.get("shadowRoots") or []:
            active = _active_of(session, root["backendNodeId"])
            if active:
                return session, active, (0.0, 0.0)
        if node.get("nodeName") not in FRAME_TAGS:
            return None
        if node.get("contentDocument"):
            active = _active_of(session, node["contentDocument"]["backendNodeId"])
            return (session, active, (0.0, 0.0)) if active else None
        inner = self.frame_session(page, node.get("frameId") or "")
        if inner is None:
            return None
        box = session.send("DOM.getBoxModel", {"backendNodeId": node["backendNodeId"]})
        content = box["model"]["content"]
        found = inner.send("Runtime.evaluate", {"expression": "document.activeElement"})
        return inner, found.get("result", {}).get("objectId"), (content[0], content[1])

    # ------------------------------------------------------------- describing
    def element(self, hit: Hit) -> Element | None:
        """The control at a hit (or the hit itself), with its name and facts."""
        role, name, backend_id = _control(hit.session, hit.backend_id)
        object_id = hit.object_id if backend_id == hit.backend_id and hit.object_id else \
            _object_of(hit.session, backend_id)
        if object_id is None:
            return None
        shift = (0.0, 0.0)
        if hit.frame_id is None or hit.frame_id != self._root_frame(hit.session):
            shift = _frame_shift(hit.session, backend_id, object_id)
        local = (hit.local[0] - shift[0], hit.local[1] - shift[1])
        facts = hit.session.send("Runtime.callFunctionOn", {
            "objectId": object_id, "functionDeclaration": FACTS_JS, "returnByValue": True,
            "arguments": [{"value": local[0]}, {"value": local[1]},
                          {"value": role is not None}]})
        value = facts.get("result", {}).get("value")
        if not isinstance(value, dict):
            return None
        left, top, width, height = value["rect"]
        box = (round(left + shift[0] + hit.offset[0]), round(top + shift[1] + hit.offset[1]),
               round(width), round(height))
        return element_from(value, role, name, box)


def _active_of(session: Any, backend_id: int) -> str | None:
    """The active element inside a document or shadow root (None when focus is not in it)."""
    try:
        holder = session.send("DOM.resolveNode", {"backendNodeId": backend_id})["object"]
    except Exception:  # gone meanwhile
        return None
    holder = holder.get("objectId")
    found = session.send("Runtime.callFunctionOn", {
        "objectId": holder, "functionDeclaration": "function () { return this.activeElement; }"})
    result = found.get("result", {})
    return result.get("objectId") if result.get("subtype") == "node" else None


def _object_of(session: Any, backend_id: int) -> str | None:
    """A script handle on a node; text nodes and pseudo-elements give their element."""
    try:
        found = session.send("DOM.resolveNode", {"backendNodeId": backend_id})
    except Exception:
        return None
    object_id = found["object"].get("objectId")
    element = session.send("Runtime.callFunctionOn", {
        "objectId": object_id,
        "functionDeclaration": "function () { return this.nodeType === 1 ? this : "
                               "(this.parentElement || (this.parentNode && this.parentNode.host)"
                               " || null); }"})
    return element.get("result", {}).get("objectId")


def _control(session: Any, backend_id: int) -> tuple[str | None, str, int]:
    """(role, accessible name, node) of the nearest control at or above a node."""
    try:
        tree = session.send("Accessibility.getPartialAXTree",
                            {"backendNodeId": backend_id, "fetchRelatives": True})
    except Exception as exc:  # no accessibility node (a detached node)
        log.debug("no accessibility tree for the target: %s", exc)
        return None, "", backend_id
    nodes = {n["nodeId"]: n for n in tree.get("nodes", [])}
    start = next((n for n in nodes.values() if n.get("backendDOMNodeId") == backend_id),
                 next(iter(nodes.values()), None))
    first: dict[str, Any] | None = None
    node = start
    while node is not None:
        role = str((node.get("role") or {}).get("value") or "")
        if not node.get("ignored") and node.get("backendDOMNodeId") and first is None:
            first = node
        if role.lower() in INTERACTIVE_ROLES and node.get("backendDOMNodeId"):
            return role.lower(), _name(node), int(node["backendDOMNodeId"])
        node = nodes.get(node.get("parentId", ""))
    if first is None:
        return None, "", backend_id
    role = str((first.get("role") or {}).get("value") or "").lower()
    if role in PLAIN_ROLES:  # a container: its title or content is not its label
        return None, "", backend_id
    return role, _name(first), backend_id


def _name(node: dict[str, Any]) -> str:
    return clean_label(str((node.get("name") or {}).get("value") or ""))


def _frame_shift(session: Any, backend_id: int, object_id: str) -> tuple[float, float]:
    """Where the node's own frame viewport sits in its session's viewport: nonzero for a
    node in a same-process iframe, whose script sees only its frame's coordinates."""
    try:
        model = session.send("DOM.getBoxModel", {"backendNodeId": backend_id})["model"]
    except Exception:  # no layout box (display: contents): take the frame as unmoved
        return (0.0, 0.0)
    rect = session.send("Runtime.callFunctionOn", {
        "objectId": object_id, "returnByValue": True,
        "functionDeclaration": "function () { const r = this.getBoundingClientRect(); "
                               "return [r.left, r.top]; }"})
    left, top = rect.get("result", {}).get("value") or (model["border"][0], model["border"][1])
    return (model["border"][0] - left, model["border"][1] - top)


def clean_label(text: str) -> str:
    """Whitespace folded, invisible characters dropped, never cut in the middle."""
    text = " ".join(_INVISIBLE.sub("", text).split())
    if len(text) <= MAX_LABEL:
        return text
    half = MAX_LABEL // 2
    return f"{text[:half]} … {text[-half:]}"


def element_from(facts: dict[str, Any], role: str | None, name: str,
                 box: tuple[int, int, int, int]) -> Element:
    """The driver's `Element` (and the contract's `extra` facts) from what was read."""
    text = clean_label(facts.get("text") or facts.get("value") or "")
    extra: dict[str, Any] = {}
    for key in ("id", "autocomplete", "hint", "dialog", "default_button", "frame_origin"):
        if facts.get(key):
            extra[key] = clean_label(str(facts[key]))
    for key in ("form_buttons", "form_fields"):
        if facts.get(key):
            extra[key] = [clean_label(str(v)) for v in facts[key]][:60]
    if facts.get("scripted"):
        extra["scripted"] = True
    if facts.get("beneath"):
        extra["description"] = f"shown beneath it: {clean_label(facts['beneath'])}"
    if not name and not text and facts.get("media"):
        extra["nameless"] = True
    input_type = facts.get("input_type")
    return Element(
        text=text or None,
        name=name or None,
        role=role or facts.get("role_attr") or _implicit_role(facts),
        tag=facts.get("tag"),
        resource_id=facts.get("resource_id"),
        input_type=input_type,
        href=facts.get("href"),
        form_action=facts.get("form_action"),
        password=input_type == "password",
        bounds=box,
        extra=extra,
    )


def _implicit_role(facts: dict[str, Any]) -> str | None:
    if facts.get("editable"):
        return "textbox"
    return {"a": "link", "button": "button", "select": "combobox", "textarea": "textbox",
            "input": "textbox", "canvas": "canvas", "img": "image"}.get(str(facts.get("tag")))
