"""The MCP server: venusctl's tools declared on the official SDK's `MCPServer`.

Each tool runs its work in a worker thread (Playwright's sync API and the model
block; the server's event loop must not), turns venusctl's errors into one-line
tool errors (the server keeps serving), and never returns a secret's value.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from venusctl.core.errors import VenusError
from venusctl.mcp import tools
from venusctl.mcp.tools import DriverName, ServerConfig, TaskOptions
from venusctl.safety.redact import install_log_filter

log = logging.getLogger(__name__)

T = TypeVar("T")

INSTRUCTIONS = """\
venusctl operates a browser (Chromium), an Android phone or the desktop with a local
GUI-agent model. do_task carries out a whole task and returns the answer, how it
ended and the run's id (see runs). act performs one action in the model's syntax
(e.g. "Click(point=(500, 500))" on the 0..999 grid, "Type(content='hi')",
"PressEnter()"); screenshot shows the screen; ground finds an element. Give a
session in options (from `venusctl session start`) to keep working in the same page;
without one each call starts a fresh browser. Consequential actions (payments,
deletions, sending, credentials) are confirmed with the user through elicitation;
when this client cannot ask, they are not performed and the result says
"needs the user"."""


async def _in_thread(config: ServerConfig, work: Callable[[], T]) -> T:
    """Run blocking work off the event loop; venusctl errors become one-line tool errors."""
    try:
        return await anyio.to_thread.run_sync(work)
    except VenusError as exc:
        raise ToolError(str(tools.scrub(config, str(exc)))) from None


def build(config: ServerConfig) -> MCPServer:
    """The server with its six tools, bound to `config`."""
    tools.load_secrets(config.redactor)
    install_log_filter(config.redactor)
    server = MCPServer("venusctl", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(description="Carry out a task on a browser, phone or desktop; returns the "
                             "answer, the outcome (finished, needs_user, denied, ...), its "
                             "exit code and the run id.")
    async def do_task(
        task: Annotated[str, Field(min_length=1, description="What to do, in plain words")],
        ctx: Context,
        driver: Annotated[DriverName | None, Field(description="web, android or desktop")
                          ] = None,
        options: TaskOptions | None = None,
    ) -> dict[str, Any]:
        return await _in_thread(config, partial(tools.do_task, config, ctx, task, driver,
                                                options or TaskOptions()))

    @server.tool(description="Perform one action in the model's syntax on the 0..999 grid, "
                             "through the safety gate, e.g. \"Click(point=(500, 500))\".")
    async def act(
        action: Annotated[str, Field(min_length=1, description="One action, e.g. PressEnter()")],
        ctx: Context,
        driver: DriverName | None = None,
        options: TaskOptions | None = None,
    ) -> dict[str, Any]:
        return await _in_thread(config, partial(tools.act, config, ctx, action, driver,
                                                options or TaskOptions()))

    @server.tool(description="What the screen shows now, as the model would see it.")
    async def screenshot(driver: DriverName | None = None,
                         options: TaskOptions | None = None) -> Image:
        data, kind = await _in_thread(config, partial(tools.screenshot, config, driver,
                                                      options or TaskOptions()))
        return Image(data=data, format=kind)

    @server.tool(description="Where is this element? Its point in screen units and on the "
                             "0..999 grid (found=false when it is not on the screen).")
    async def ground(
        instruction: Annotated[str, Field(min_length=1, description="The element, in words")],
        driver: DriverName | None = None,
        options: TaskOptions | None = None,
    ) -> dict[str, Any]:
        return await _in_thread(config, partial(tools.ground, config, instruction, driver,
                                                options or TaskOptions()))

    @server.tool(description="The phones adb knows, the browser and the desktop display.")
    async def devices() -> dict[str, Any]:
        return await _in_thread(config, tools.devices)

    @server.tool(description="The most recent recorded runs, newest last.")
    async def runs(limit: Annotated[int, Field(ge=1, le=200)] = 10) -> list[dict[str, Any]]:
        return await _in_thread(config, partial(tools.runs, config, limit))

    return server


def serve(config: ServerConfig, http: bool = False, port: int = 8765) -> None:
    """Serve over stdio, or streamable HTTP on 127.0.0.1:`port` (path /mcp)."""
    server = build(config)
    if http:
        server.run("streamable-http", host="127.0.0.1", port=port)
    else:
        server.run("stdio")
