"""The kept browser's only door: a DevTools endpoint on 127.0.0.1 behind a token.

Chromium speaks DevTools over its pipe (`browser.py`); this proxy offers it as a
WebSocket at `ws://127.0.0.1:PORT/TOKEN`, which Playwright's `connect_over_cdp`
takes. One client at a time (a second is refused as busy). Each client gets its
own browser session (`Target.attachToBrowserTarget`): what it attaches and sets up
hangs off that session, and detaching it when the client leaves undoes all of it,
so the next command finds the page as the last one left it and nothing waits for
a debugger that is gone. A client may not close the browser: that is `session
stop`'s job. `GET /TOKEN/status` answers whether the browser is busy, how long it
has been idle and the pages it shows.
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import json
import logging
import time
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

log = logging.getLogger(__name__)

OWN_IDS_FROM = 2_000_000_000  # ids of the proxy's own commands: above any client's, in int32


class BrowserGone(Exception):
    """The pipe closed: Chromium exited or crashed."""


class CdpProxy:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.WriteTransport,
                 token: str) -> None:
        self._reader = reader
        self._writer = writer
        self._token = token
        self._ids = itertools.count(OWN_IDS_FROM)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._own_sessions: set[str] = set()
        self._client: ServerConnection | None = None
        self._root: str | None = None
        self.last_activity = time.monotonic()
        self.gone = False

    @property
    def busy(self) -> bool:
        return self._client is not None

    # ------------------------------------------------------------ the pipe
    def _send(self, message: dict[str, Any]) -> None:
        if self.gone:
            raise BrowserGone("the browser is gone")
        self._writer.write(json.dumps(message).encode() + b"\0")

    async def call(self, method: str, params: dict[str, Any] | None = None,
                   session: str | None = None) -> dict[str, Any]:
        """A command of the proxy's own; its result, or `RuntimeError` with the error."""
        ident = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._send(message)
        reply = await future
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error'].get('message')}")
        return dict(reply.get("result") or {})

    async def attach(self, target_id: str) -> str:
        session = (await self.call("Target.attachToTarget",
                                   {"targetId": target_id, "flatten": True}))["sessionId"]
        self._own_sessions.add(session)
        return str(session)

    async def detach(self, session: str) -> None:
        self._own_sessions.discard(session)
        await self.call("Target.detachFromTarget", {"sessionId": session})

    async def pump(self) -> None:
        """Route what Chromium says until its pipe closes."""
        try:
            while True:
                try:
                    raw = await self._reader.readuntil(b"\0")
                except asyncio.IncompleteReadError:
                    break
                await self._route(json.loads(raw[:-1]))
        finally:
            self.gone = True
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(BrowserGone("the browser closed"))
            if self._client is not None:
                await self._client.close(1011, "the browser closed")

    async def _route(self, message: dict[str, Any]) -> None:
        future = self._pending.pop(message.get("id", -1), None)
        if future is not None:
            if not future.done():
                future.set_result(message)
            return
        session = message.get("sessionId")
        if session is None or session in self._own_sessions or self._client is None:
            return
        if session == self._root:
            del message["sessionId"]
        try:
            await self._client.send(json.dumps(message))
        except ConnectionClosed:
            return

    # ----------------------------------------------------------- the clients
    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """Refuse a wrong token and a second client; answer the status request."""
        path = request.path.split("?", 1)[0]
        if path == f"/{self._token}/status" and self._token_ok(path.split("/")[1]):
            return self._status_response(connection)
        if not self._token_ok(path.lstrip("/")):
            return connection.respond(HTTPStatus.FORBIDDEN, "wrong token\n")
        if self._client is not None:
            return connection.respond(HTTPStatus.CONFLICT, "busy: another command uses "
                                      "this session\n")
        return None

    def _token_ok(self, given: str) -> bool:
        return hmac.compare_digest(given.encode(), self._token.encode())

    def _status_response(self, connection: ServerConnection) -> Response:
        idle = 0.0 if self.busy else time.monotonic() - self.last_activity
        body = json.dumps({"busy": self.busy, "idle_s": round(idle, 1)}).encode()
        response = connection.respond(HTTPStatus.OK, "")
        return Response(response.status_code, response.reason_phrase,
                        Headers({"Content-Type": "application/json",
                                 "Content-Length": str(len(body))}), body)

    async def handle(self, connection: ServerConnection) -> None:
        """One client, on its own browser session, until it leaves."""
        if self._client is not None:
            await connection.close(1013, "busy")
            return
        self._client = connection
        try:
            self._root = str((await self.call("Target.attachToBrowserTarget"))["sessionId"])
            async for text in connection:
                await self._forward(connection, text)
        except (ConnectionClosed, BrowserGone):
            pass
        finally:
            root, self._root, self._client = self._root, None, None
            self.last_activity = time.monotonic()
            if root and not self.gone:
                try:
                    await self.call("Target.detachFromTarget", {"sessionId": root})
                except (RuntimeError, BrowserGone) as exc:
                    log.debug("detaching the client's session: %s", exc)

    async def _forward(self, connection: ServerConnection, text: str | bytes) -> None:
        message = json.loads(text)
        if message.get("method") == "Browser.close" and not message.get("sessionId"):
            await connection.send(json.dumps({"id": message.get("id"), "result": {}}))
            await connection.close(1000, "the session keeps its browser")
            return
        message.setdefault("sessionId", self._root)
        self._send(message)
