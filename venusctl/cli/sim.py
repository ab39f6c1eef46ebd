"""`venusctl sim phone|web|desktop`: a simulated environment, served until Ctrl-C.

Each prints `NAME=VALUE` lines and `READY` on stdout (what tasks need, and what a task
file's `environments:` reads), a line for a person on stderr, and stops cleanly on
Ctrl-C or SIGTERM (exit 0). A missing system tool or a busy port: one line, exit 5.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from venusctl.cli.common import VerboseOpt, setup_logging
from venusctl.cli.panels import Typer
from venusctl.core.errors import UsageError

if TYPE_CHECKING:
    from venusctl.sim.base import Environment

sim_app = Typer(
    help="Simulated environments to try tasks, batch files and policies on without a "
         "device: a phone behind the real adb server, the shop web app, a desktop app.",
    no_args_is_help=True)
DEFAULT_ADB_PORT = 5037
PortOpt = Annotated[int, typer.Option(min=0, max=65535,
                                      help="Port to listen on (0: any free one).")]


def register(app: typer.Typer) -> None:
    app.add_typer(sim_app, name="sim")


@sim_app.command("phone")
def phone_command(
    size: Annotated[str, typer.Option(help="Screen size in pixels, WIDTHxHEIGHT.")]
    = "1080x2400",
    realistic: Annotated[bool, typer.Option(
        "--realistic", help="Behave like a real phone: input 0.3-1 s, UI dumps 1-3 s that "
                            "fail while the screen animates, no ADB Keyboard.")]
    = False,
    port: Annotated[int, typer.Option(
        min=0, max=65535, help="The phone's own port; its serial is 127.0.0.1:PORT (0: any "
                               "free one outside 5554-5585).")] = 0,
    adb_port: Annotated[Optional[int], typer.Option(  # noqa: UP045
        min=0, max=65535, help="The adb server's port: the server there is used, or started "
                               "and stopped with the phone; 0 starts a private one on a free "
                               "port (default: ANDROID_ADB_SERVER_PORT, else 5037).")] = None,
    verbose: VerboseOpt = False,
) -> int:
    """Start the simulated Android phone behind the real adb server, until Ctrl-C.

    It appears in `adb devices` and `venusctl devices`; drive it with `venusctl do
    --driver android`. Exports ANDROID_ADB_SERVER_PORT and PHONE_SERIAL.

    Example: venusctl sim phone --size 1080x2400
    """
    from venusctl.sim.phone import PhoneConfig, PhoneEnv

    setup_logging(verbose)
    width, height = _size(size)
    make = PhoneConfig.realistic if realistic else PhoneConfig
    config = make(size=(width, height), density=density_for(width))
    server_port = adb_port if adb_port is not None else _adb_port_from_environment()
    return _serve(lambda: PhoneEnv(config, adb_port=server_port, port=port))


@sim_app.command("web")
def web_command(port: PortOpt = 0, verbose: VerboseOpt = False) -> int:
    """Serve the shop web app (order form, about page, offers) until Ctrl-C.

    Exports SHOP_URL; what it was asked to do is at $SHOP_URL/state.

    Example: venusctl sim web --port 8000
    """
    from venusctl.sim.web import ShopServer

    setup_logging(verbose)
    return _serve(lambda: ShopServer(port))


@sim_app.command("desktop")
def desktop_command(
    size: Annotated[str, typer.Option(help="Screen size of the virtual display, WIDTHxHEIGHT.")]
    = "1280x800",
    log: Annotated[Optional[Path], typer.Option(  # noqa: UP045
        help="Keep the app's event log (JSON lines) here (default: a temporary file, "
             "removed on stop).")] = None,
    verbose: VerboseOpt = False,
) -> int:
    """Start the Venus Test App on its own virtual X display (Xvfb), until Ctrl-C.

    Exports DISPLAY, XDG_SESSION_TYPE and TK_LOG (the app's event log).

    Example: venusctl sim desktop --size 1280x800
    """
    from venusctl.sim.desktop import Desktop

    setup_logging(verbose)
    dimensions = _size(size)
    return _serve(lambda: Desktop(dimensions, log=log))


def _serve(build: Callable[[], Environment]) -> int:
    """Build (a ValueError is bad input: exit 2), then serve until a signal (exit 0)."""
    from venusctl.sim.base import serve

    try:
        environment = build()
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    serve(environment)
    return 0


def _size(text: str) -> tuple[int, int]:
    from venusctl.sim.catalog import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise UsageError(f"--size: {exc}") from None


def density_for(width: int) -> int:
    """A phone 360 dp wide: 1080 px -> 480 dpi, 540 px -> 240 dpi."""
    return max(120, round(width * 160 / 360))


def _adb_port_from_environment() -> int:
    """The port `adb` itself would use."""
    text = os.environ.get("ANDROID_ADB_SERVER_PORT", "").strip()
    if not text:
        return DEFAULT_ADB_PORT
    if not text.isdigit() or not 0 < int(text) <= 65535:
        raise UsageError(f"ANDROID_ADB_SERVER_PORT={text!r} is not a port number")
    return int(text)
