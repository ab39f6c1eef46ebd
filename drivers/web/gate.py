"""Holding every request the browser makes until the run's judge has decided.

Playwright's `route()` does not see redirect hops (it continues them itself) and can
miss the first request of a tab the page opens, so the hold uses Chromium's DevTools
`Fetch` domain on the *browser* target instead: enabled there, it pauses every hop of
every request the browser makes, whichever tab, iframe (in or out of process),
popup, worker or service worker makes it, and a new tab's first request too, before
anything is sent. (Measured with Chromium 156: per-tab `Fetch` sessions, even
auto-attached with "wait for debugger", let a same-site `window.open` navigate
before they were in place.)

Every paused request is handed to the judge (`HeldRequest` in, `RequestDecision`
out) and then continued, or failed with `BlockedByClient` so it never reaches the
server. A judge that raises (no terminal to ask, the person aborted, a denial) makes
the hold fail that request and every later one, and the driver raises the error
from its next call. Playwright's sync API delivers events only while this thread is
inside a Playwright call, so requests made while the model thinks simply wait until
the next look at the screen.

Chromium applies the browser-wide hold to the loaders of frames created after it is
switched on; frames that already exist are made to take it by switching a per-frame
hold that matches nothing on and off (`refresh`). The driver switches the hold on
before its first page loads, with a judge that allows everything until the run
gives its own.

In a browser shared with other contexts (a remote browser server), requests of
frames that belong to another context are let through unjudged; a frame the browser
cannot place (an iframe living in its parent's process) is judged, to be safe.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from typing import Any

from venusctl.drivers.base import HeldRequest, RequestDecision

log = logging.getLogger(__name__)

Judge = Callable[[HeldRequest], RequestDecision]
MAX_BODY = 256 * 1024  # bytes of a request body handed to the judge
MAX_REMEMBERED = 2000  # request URLs kept to name the previous hop of a redirect
FETCH_PATTERNS = {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}
MATCHES_NOTHING = {"patterns": [{"urlPattern": "venusctl-matches-nothing:*"}]}
WORKER_KINDS = frozenset({"worker", "shared_worker", "service_worker"})


class RequestHold:
    """The hold over one browser context's requests; `judge` decides each one."""

    def __init__(self, browser: Any, context_id: str, page_url: Callable[[], str | None],
                 judge: Judge | None = None) -> None:
        self._context_id = context_id
        self.judge: Judge = judge or allow_all
        self._page_url = page_url
        self._frames: dict[str, tuple[bool, str]] = {}  # frame id -> (ours, kind)
        self._urls: dict[str, str] = {}  # paused request id -> URL
        self.stop: BaseException | None = None
        self.stopped = False  # the stop was raised: keep blocking until the context closes
        self.notes: list[str] = []
        self._root = browser.new_browser_cdp_session()
        self._root.on("Fetch.requestPaused", self._on_paused)
        self._root.send("Fetch.enable", FETCH_PATTERNS)

    def _on_paused(self, params: dict[str, Any]) -> None:
        request_id = params["requestId"]
        allow = False
        try:
            allow = self._decide(params)
        finally:
            method = "Fetch.continueRequest" if allow else "Fetch.failRequest"
            reply = {"requestId": request_id}
            if not allow:
                reply["errorReason"] = "BlockedByClient"
            try:
                self._root.send(method, reply)
            except Exception as exc:  # the request or its tab went away meanwhile
                log.debug("devtools %s failed: %s", method, exc)

    def _decide(self, params: dict[str, Any]) -> bool:
        ours, frame = self._place(params.get("frameId"))
        if not ours:
            return True  # another context's request: not this run's to judge
        if self.stop is not None or self.stopped:
            return False  # the run is ending: nothing more leaves
        previous = self._urls.get(params.get("redirectedRequestId") or "")
        if len(self._urls) > MAX_REMEMBERED:
            self._urls.clear()
        self._urls[params["requestId"]] = params["request"]["url"]
        try:
            decision = self.judge(held_request(params, frame, self._page_url(), previous))
        except BaseException as exc:  # kept for the driver's next call (incl. Ctrl-C)
            self.stop = exc
            return False
        if decision.note:
            self.notes.append(decision.note)
        return decision.allow

    def _place(self, frame_id: str | None) -> tuple[bool, str]:
        """Whether a frame is this context's, and what it is: main, popup, frame, worker."""
        if not frame_id:
            return True, "worker"
        if frame_id not in self._frames:
            if len(self._frames) > MAX_REMEMBERED:
                self._frames.clear()
            try:
                info = self._root.send("Target.getTargetInfo", {"targetId": frame_id})
                self._frames[frame_id] = _placed(info["targetInfo"], self._context_id)
            except Exception:  # no target of its own: an iframe in its parent's process
                self._frames[frame_id] = (True, "frame")
        return self._frames[frame_id]

    def take_notes(self) -> str | None:
        notes, self.notes = self.notes, []
        return " ".join(dict.fromkeys(notes)) or None

    def close(self) -> None:
        """Let go of the browser. Close the context first: a request still held when the
        hold lets go would be sent."""
        self.stopped = True
        try:
            self._root.detach()
        except Exception as exc:  # the browser is already gone
            log.debug("releasing the request hold: %s", exc)


def allow_all(request: HeldRequest) -> RequestDecision:
    """The judge until the run wires its own: everything goes."""
    return RequestDecision(True)


def refresh(context: Any) -> None:
    """Make the frames that exist already (tabs and out-of-process iframes) take the
    browser-wide hold: Chromium rebuilds a frame's loaders when a hold of its own is
    switched on or off."""
    for page in context.pages:
        for frame in page.frames:
            try:
                session = context.new_cdp_session(page if frame is page.main_frame else frame)
            except Exception:  # an iframe in its parent's process: rebuilt with the parent
                continue
            try:
                session.send("Fetch.enable", MATCHES_NOTHING)
                session.send("Fetch.disable")
                session.detach()
            except Exception as exc:  # the frame went away meanwhile
                log.debug("refreshing a frame's loaders: %s", exc)


def _placed(info: dict[str, Any], context_id: str) -> tuple[bool, str]:
    ours = info.get("browserContextId") in (None, context_id)
    kind = info.get("type")
    if kind in WORKER_KINDS:
        return ours, "worker"
    if kind == "page":
        return ours, "popup" if info.get("openerId") else "main"
    return ours, "frame"


def held_request(params: dict[str, Any], frame: str, page_url: str | None,
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
        frame=frame,
        navigation=kind == "Document",
        redirected_from=redirected_from,
        initiator=headers.get("origin") or _origin(headers.get("referer")),
        page_url=page_url,
        body=_body(request),
        headers=headers,
    )


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
