"""Holding every request the browser makes until the run's judge has decided.

Playwright's `route()` does not see redirect hops (it continues them itself), so the
hold uses Chromium's DevTools `Fetch` domain directly: it pauses every hop of every
request of the target it is enabled on. A target is one tab, one out-of-process
iframe or one worker, so the hold follows all of them, and must be in place before a
new one sends anything:

  Playwright's browser session (flat)
    └─ a session to the browser target that is NOT flat: its messages travel inside
       `Target.sendMessageToTarget` / `receivedMessageFromTarget`, so Playwright, which
       drops messages of flat sessions it did not open itself, passes them on
       └─ auto-attach, *waiting for the debugger*, flat inside that channel: every new
          tab, out-of-process iframe and worker stops before its first request until
          `Fetch` is on for it; tabs and iframes auto-attach their own children alike

Every paused request is handed to the judge (`HeldRequest` in, `RequestDecision`
out) and then continued, or failed with `BlockedByClient` so it never reaches the
server. A judge that raises (no terminal to ask, the person aborted, a denial) makes
the hold fail that request and every later one, and the driver raises the error
from its next call. Playwright's sync API delivers events only while this thread is
inside a Playwright call, so requests made while the model thinks simply wait until
the next look at the screen.
"""

from __future__ import annotations

import base64
import itertools
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from venusctl.drivers.base import HeldRequest, RequestDecision

log = logging.getLogger(__name__)

Judge = Callable[[HeldRequest], RequestDecision]
MAX_BODY = 256 * 1024  # bytes of a request body handed to the judge
MAX_REMEMBERED = 2000  # request URLs kept to name the previous hop of a redirect
FETCH_PATTERNS = {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}
AUTO_ATTACH = {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True}
HELD_KINDS = frozenset({"page", "iframe", "worker", "shared_worker", "service_worker"})
WORKER_KINDS = frozenset({"worker", "shared_worker", "service_worker"})


@dataclass(frozen=True)
class _Target:
    """One attached target of this context: a tab, an iframe or a worker."""

    session_id: str
    target_id: str
    kind: str
    opened: bool  # a tab the page opened (it has an opener)


class RequestHold:
    """The hold over one browser context; `judge` decides each request."""

    def __init__(self, browser: Any, context_id: str, judge: Judge,
                 page_url: Callable[[], str | None]) -> None:
        self._context_id = context_id
        self._judge = judge
        self._page_url = page_url
        self._ids = itertools.count(1)
        self._targets: dict[str, _Target] = {}  # flat session id (in the channel) -> target
        self._urls: dict[str, str] = {}  # paused request id -> URL
        self.stop: BaseException | None = None
        self.stopped = False  # the stop was raised: keep blocking until the context closes
        self.notes: list[str] = []
        self._root = browser.new_browser_cdp_session()
        browser_id = self._root.send("Target.getTargetInfo")["targetInfo"]["targetId"]
        self._channel = self._root.send("Target.attachToTarget",
                                        {"targetId": browser_id, "flatten": False})["sessionId"]
        self._root.on("Target.receivedMessageFromTarget", self._on_message)
        self._send(None, "Target.setAutoAttach", AUTO_ATTACH)

    # -------------------------------------------------------------- messages
    def _on_message(self, event: dict[str, Any]) -> None:
        if event.get("sessionId") != self._channel:
            return
        message = json.loads(event["message"])
        method, params = message.get("method"), message.get("params") or {}
        session = message.get("sessionId")
        if method is None:
            if "error" in message:
                log.debug("devtools error: %s", message["error"])
        elif method == "Fetch.requestPaused":
            target = self._targets.get(session or "")
            if target is not None:
                self._on_paused(target, params)
        elif method == "Target.attachedToTarget":
            self._on_attached(params)
        elif method == "Target.detachedFromTarget":
            self._targets.pop(params.get("sessionId", ""), None)

    def _on_attached(self, params: dict[str, Any]) -> None:
        """A tab, iframe or worker appeared, stopped before it sends anything: hold its
        requests (and its children's), then let it run. Other contexts' are let run."""
        info, session = params["targetInfo"], params["sessionId"]
        ours = info.get("browserContextId") == self._context_id and info["type"] in HELD_KINDS
        if ours:
            self._targets[session] = _Target(session, info["targetId"], info["type"],
                                             opened=bool(info.get("openerId")))
            self._send(session, "Fetch.enable", FETCH_PATTERNS)
            if info["type"] in ("page", "iframe"):
                self._send(session, "Target.setAutoAttach", AUTO_ATTACH)
        self._send(session, "Runtime.runIfWaitingForDebugger", {})

    def _send(self, session: str | None, method: str, params: dict[str, Any]) -> None:
        """One command to a session inside the channel (None: the browser target)."""
        message: dict[str, Any] = {"id": next(self._ids), "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        try:
            self._root.send("Target.sendMessageToTarget",
                            {"sessionId": self._channel, "message": json.dumps(message)})
        except Exception as exc:  # the browser is closing
            log.debug("devtools %s failed: %s", method, exc)

    # --------------------------------------------------------------- judging
    def _on_paused(self, target: _Target, params: dict[str, Any]) -> None:
        request_id = params["requestId"]
        allow = False
        try:
            allow = self._decide(target, params)
        finally:
            if allow:
                self._send(target.session_id, "Fetch.continueRequest", {"requestId": request_id})
            else:
                self._send(target.session_id, "Fetch.failRequest",
                           {"requestId": request_id, "errorReason": "BlockedByClient"})

    def _decide(self, target: _Target, params: dict[str, Any]) -> bool:
        if self.stop is not None or self.stopped:
            return False  # the run is ending: nothing more leaves
        previous = self._urls.get(params.get("redirectedRequestId") or "")
        if len(self._urls) > MAX_REMEMBERED:
            self._urls.clear()
        self._urls[params["requestId"]] = params["request"]["url"]
        try:
            decision = self._judge(held_request(target, params, self._page_url(), previous))
        except BaseException as exc:  # kept for the driver's next call (incl. Ctrl-C)
            self.stop = exc
            return False
        if decision.note:
            self.notes.append(decision.note)
        return decision.allow

    def take_notes(self) -> str | None:
        notes, self.notes = self.notes, []
        return " ".join(dict.fromkeys(notes)) or None

    def close(self) -> None:
        """Let go of the browser (close the context first: a request still held when
        the hold lets go would be sent)."""
        self.stopped = True
        try:
            self._root.detach()
        except Exception as exc:  # the browser is already gone
            log.debug("releasing the request hold: %s", exc)


def held_request(target: _Target, params: dict[str, Any], page_url: str | None,
                 redirected_from: str | None = None) -> HeldRequest:
    """A paused request as plain data for the judge."""
    request = params["request"]
    headers = {str(k).lower(): str(v) for k, v in (request.get("headers") or {}).items()}
    kind = params.get("resourceType") or "Other"
    if params.get("redirectedRequestId") and not redirected_from:
        redirected_from = "(an earlier request)"
    return HeldRequest(
        url=request["url"],
        method=str(request.get("method") or "GET").upper(),
        kind=kind,
        frame=_frame_of(target, params),
        navigation=kind == "Document",
        redirected_from=redirected_from,
        initiator=headers.get("origin") or _origin(headers.get("referer")),
        page_url=page_url,
        body=_body(request),
        headers=headers,
    )


def _frame_of(target: _Target, params: dict[str, Any]) -> str:
    if target.kind in WORKER_KINDS:
        return "worker"
    if target.kind == "iframe" or params.get("frameId") != target.target_id:
        return "frame"
    return "popup" if target.opened else "main"


def _origin(url: str | None) -> str | None:
    if not url or "://" not in url:
        return None
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{rest.split('/', 1)[0]}"


def _body(request: dict[str, Any]) -> str | None:
    if request.get("postData") is not None:
        return str(request["postData"])[:MAX_BODY]
    entries = request.get("postDataEntries") or []
    if not entries:
        return None
    raw = b"".join(base64.b64decode(e.get("bytes", "")) for e in entries)[:MAX_BODY]
    return raw.decode("utf-8", "replace")
