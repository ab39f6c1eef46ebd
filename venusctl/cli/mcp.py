"""`venusctl mcp`: serve venusctl's tools to MCP clients (stdio, or HTTP on 127.0.0.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from venusctl.cli.common import DRIVER, OUTPUT, driver_options, output_options
from venusctl.cli.model_options import MODEL, model_options
from venusctl.cli.options import Given, flags
from venusctl.cli.safety_options import SAFETY, safety_options


def register(app: typer.Typer) -> None:
    app.command("mcp")(mcp)


@flags(model_flags=MODEL.but("interface", "prompts"), safety_flags=SAFETY,
       browser_flags=DRIVER.just("headless", "browser_path"),
       output_flags=OUTPUT.just("runs_dir", "verbose"))
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
    browser_flags: Given = None,  # type: ignore[assignment]  # --headless, --browser-path
    output_flags: Given = None,  # type: ignore[assignment]  # --runs-dir, -v
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

    output, browser = output_options(output_flags), driver_options(browser_flags)
    setup_logging(output.verbose)
    safety = safety_options(safety_flags)
    make_policy_guard(resolve_policy(safety), confirm, yes)  # usage errors before serving
    config = ServerConfig(
        model=model_options(model_flags, answers=model_file, assume_yes=yes),
        safety=safety, confirm=confirm, runs_dir=output.runs, assume_yes=yes,
        browser_path=browser.browser_path, headless=browser.headless)
    serve(config, http=http, port=port)
    return 0
