"""The background process that keeps a session's browser.

Run as `python -m venusctl.drivers.sessions.daemon NAME`.

Started by `venusctl session start`, in its own process group, with the record
already claimed (state "starting", settings filled in). It launches Chromium on a
pipe, sizes the window so the page's viewport is the session's, serves the token
endpoint on 127.0.0.1, saves the record ("running", endpoint, pids) and writes
`READY` on stdout; a failure is one line `ERROR CODE MESSAGE` instead. It then
waits for the first of: SIGTERM/SIGINT (`session stop`), the idle time running out
with no client, or the browser dying (the record is then marked "dead" with the
reason, so the next command can say what happened). Its profile folder is removed
on the way out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.server import serve

from venusctl.core.errors import ExitCode
from venusctl.drivers.sessions import browser, store
from venusctl.drivers.sessions.cdp_proxy import BrowserGone, CdpProxy

log = logging.getLogger("venusctl.drivers.sessions.daemon")

STOP_GRACE_S = 5.0


async def fit_window(proxy: CdpProxy, width: int, height: int) -> None:
    """Resize the window until the page's inner size is the session's viewport."""
    targets = (await proxy.call("Target.getTargets"))["targetInfos"]
    page = next(t for t in targets if t["type"] == "page")
    session = await proxy.attach(page["targetId"])
    try:
        for _attempt in range(3):
            inner = await _evaluate(proxy, session, "[innerWidth, innerHeight]")
            dw, dh = width - int(inner[0]), height - int(inner[1])
            if dw == 0 and dh == 0:
                return
            window = await proxy.call("Browser.getWindowForTarget",
                                      {"targetId": page["targetId"]})
            bounds = window["bounds"]
            await proxy.call("Browser.setWindowBounds", {
                "windowId": window["windowId"],
                "bounds": {"width": bounds["width"] + dw, "height": bounds["height"] + dh}})
            await asyncio.sleep(0.1)
    finally:
        await proxy.detach(session)


async def _evaluate(proxy: CdpProxy, session: str, expression: str) -> Any:
    reply = await proxy.call("Runtime.evaluate",
                             {"expression": expression, "returnByValue": True}, session)
    return reply["result"]["value"]


class Daemon:
    def __init__(self, record: store.SessionRecord) -> None:
        self.record = record
        self.settings = record.settings
        self.stop = asyncio.Event()
        self.launched: browser.Launched | None = None
        self.profile = Path(record.profile_dir or "")

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(signum, self.stop.set)
        token = secrets.token_urlsafe(24)
        try:
            proxy, pump = await self._start_browser(token)
        except (OSError, RuntimeError, BrowserGone, StopIteration) as exc:
            self._kill_browser(grace_s=0.0)
            shutil.rmtree(self.profile, ignore_errors=True)
            return _fail(ExitCode.UNAVAILABLE, f"the browser did not start: {exc}")
        async with serve(proxy.handle, "127.0.0.1", 0, process_request=proxy.process_request,
                         max_size=None, ping_interval=None) as server:
            port = server.sockets[0].getsockname()[1]
            self._announce(f"ws://127.0.0.1:{port}/{token}")
            reason = await self._wait(proxy, pump)
        await self._shut(proxy, pump, reason)
        return 0

    async def _start_browser(self, token: str) -> tuple[CdpProxy, asyncio.Task[None]]:
        size = tuple(self.settings["viewport"])
        argv = browser.command(self.settings["executable"], self.profile, (size[0], size[1]),
                               bool(self.settings.get("headless", True)), self.settings.get("url"))
        self.launched = browser.launch(argv)
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 28)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                     os.fdopen(self.launched.from_browser, "rb", 0))
        writer, _protocol = await loop.connect_write_pipe(
            asyncio.Protocol, os.fdopen(self.launched.to_browser, "wb", 0))
        proxy = CdpProxy(reader, writer, token)
        pump = asyncio.create_task(proxy.pump())
        try:
            await asyncio.wait_for(fit_window(proxy, size[0], size[1]), 60)
        except BaseException as exc:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, BrowserGone):
                await pump
            if isinstance(exc, asyncio.TimeoutError):
                raise RuntimeError("it did not answer within 60 s") from None
            raise
        return proxy, pump

    def _announce(self, endpoint: str) -> None:
        assert self.launched is not None
        self.record.endpoint = endpoint
        self.record.pid = os.getpid()
        self.record.browser_pid = self.launched.process.pid
        self.record.state = store.RUNNING
        self.record.last_used = time.time()
        store.save(self.record)
        sys.stdout.write("READY\n")
        sys.stdout.flush()
        with open(os.devnull, "w") as null:  # nobody reads our stdout any more
            os.dup2(null.fileno(), 1)

    async def _wait(self, proxy: CdpProxy, pump: asyncio.Task[None]) -> str | None:
        """Until stopped (None), idle too long (None) or the browser died (why)."""
        idle_limit = float(self.record.idle_timeout_s or 0)
        while not self.stop.is_set():
            if pump.done():
                code = self.launched.process.poll() if self.launched else None
                return f"the browser exited (code {code})" if code is not None else \
                    "the browser closed its DevTools pipe"
            idle = time.monotonic() - proxy.last_activity
            if idle_limit > 0 and not proxy.busy and idle >= idle_limit:
                log.info("idle for %.0f s: stopping", idle)
                return None
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.stop.wait(), 0.5)
        return None

    async def _shut(self, proxy: CdpProxy, pump: asyncio.Task[None], died: str | None) -> None:
        if died is None and not proxy.gone:
            with contextlib.suppress(RuntimeError, BrowserGone, asyncio.TimeoutError):
                await asyncio.wait_for(proxy.call("Browser.close"), STOP_GRACE_S)
        self._kill_browser()
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError, BrowserGone):
            await pump
        if died is not None:
            self.record.state, self.record.reason = store.DEAD, died
            self.record.endpoint = None
            store.save(self.record)
        else:
            store.remove(self.record.name)
            with contextlib.suppress(FileNotFoundError):
                store.log_path(self.record.name).unlink()
        shutil.rmtree(self.profile, ignore_errors=True)

    def _kill_browser(self, grace_s: float = STOP_GRACE_S) -> None:
        """Wait a little for Chromium, then end its whole process group."""
        if self.launched is None:
            return
        process = self.launched.process
        try:
            process.wait(grace_s)
        except Exception:  # still running after a graceful close, or never asked
            log.debug("ending the browser's process group")
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            process.wait(STOP_GRACE_S)


def _fail(code: ExitCode, message: str) -> int:
    sys.stdout.write(f"ERROR {int(code)} {' '.join(message.split())}\n")
    sys.stdout.flush()
    return int(code)


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    if len(argv) != 1:
        return _fail(ExitCode.USAGE, "usage: python -m venusctl.drivers.sessions.daemon NAME")
    record = store.load(argv[0])
    if record is None or record.state != store.STARTING:
        return _fail(ExitCode.USAGE, f"no session '{argv[0]}' is waiting to start")
    return asyncio.run(Daemon(record).run())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
