"""`venusctl mcp`: serve venusctl's tools to MCP clients (stdio, or HTTP on 127.0.0.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from venusctl.cli.common import BrowserPathOpt, HeadlessOpt, RunsDirOpt, VerboseOpt, runs_dir
from venusctl.cli.model_options import MODEL, model_options
from venusctl.cli.options import Given, flags
from venusctl.cli.safety_options import SAFETY, safety_options


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)


@flags(model_flags=MODEL.but("interface", "prompts"), safety_flags=SAFETY)
def mcp(
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP on 127.0.0.1 "
                                                      "(path /mcp) instead of stdio.")] = False,
    port: Annotated[int, typer.Option(min=1, max=65535, help="--http: the port.")] = 8765,
    model_file: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(help="Play back answers from this file instead of running a model."),
    ] = None,
    model_flags: Given = None,  # type: ignore[assignment]  # the model flags
    confirm: Annotated[str, typer.Option(
        help="'policy' (the policy's gates are asked through the client) or 'all' (also "
             "every state change). 'never' needs --yes.")] = "policy",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="With --confirm never: mean it.")
                   ] = False,
    safety_flags: Given = None,  # type: ignore[assignment]  # the safety flags
    headless: HeadlessOpt = True,
    browser_path: BrowserPathOpt = None,
    runs: RunsDirOpt = None,
    verbose: VerboseOpt = False,
) -> int:
    """Serve do_task, act, screenshot, ground, devices and runs over MCP.

    The model and the safety settings are this command's flags, never a tool's
    arguments: a client cannot choose a weaker policy. Confirmations go to the
    client as elicitations; a client without them gets "needs the user".

    Example: venusctl mcp --model ~/models/UI-Venus-2-9B-Q4_K_M.gguf
    """
    from venusctl.cli.common import setup_logging
    from venusctl.mcp.server import serve
    from venusctl.mcp.tools import ServerConfig
    from venusctl.safety.setup import make_policy_guard, resolve_policy

    setup_logging(verbose)
    safety = safety_options(safety_flags)
    make_policy_guard(resolve_policy(safety), confirm, yes)  # usage errors before serving
    config = ServerConfig(
        model=model_options(model_flags, answers=model_file, assume_yes=yes),
        safety=safety, confirm=confirm, runs_dir=runs_dir(runs), browser_path=browser_path,
        headless=headless, assume_yes=yes)
    serve(config, http=http, port=port)
    return 0
