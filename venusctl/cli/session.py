"""`venusctl session`: a browser (or a phone's, a monitor's settings) kept between commands."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from venusctl.cli.common import DRIVER, OUTPUT, driver_options, output_options, setup_logging
from venusctl.cli.options import Given, flags
from venusctl.cli.panels import Typer

session_app = Typer(
    help="Keep a browser page (or a phone's or monitor's settings) between commands: "
         "start one, then pass --session NAME to act, screenshot, ground and do.",
    no_args_is_help=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(session_app, name="session")


SESSION_DRIVER = DRIVER.but("profile", "upload_dir", "session").starting(
    viewport="1280x800", image_format="jpeg")
"""A kept session starts lighter than a run: a wider viewport, JPEG screenshots."""


@session_app.command("start")
@flags(driver_flags=SESSION_DRIVER, output_flags=OUTPUT.just("verbose"))
def start(
    name: Annotated[Optional[str], typer.Option(  # noqa: UP045
        help="The session's name (default: the driver and a number, e.g. web-1).")] = None,
    driver_flags: Given = None,  # type: ignore[assignment]  # the driver flags
    idle_timeout: Annotated[float, typer.Option(
        min=0, help="Stop the session after this many seconds without a command (0: never).")
    ] = 1800.0,
    output_flags: Given = None,  # type: ignore[assignment]  # -v
) -> int:
    """Start a session and print its name; it runs until `session stop` or the idle timeout.

    Example: venusctl session start --driver web --url http://127.0.0.1:8000/ --name todo
    """
    from venusctl.drivers.sessions.manage import start as start_session

    setup_logging(output_options(output_flags).verbose)
    options = driver_options(driver_flags)
    record = start_session(options, name, idle_timeout)
    print(record.name)
    return 0


@session_app.command("list")
@flags(output_flags=OUTPUT.just("json").told(json="One JSON list on stdout."))
def list_sessions(
    output_flags: Given = None,  # type: ignore[assignment]  # --json
) -> int:
    """The sessions, with their state checked now (ended ones are cleared).

    Example: venusctl session list
    """
    from venusctl.drivers.sessions.manage import as_json, describe, listing

    json_out = output_options(output_flags).json
    rows = listing()
    if json_out:
        print(as_json(rows))
    for row in [] if json_out else rows:
        print(describe(row))
    return 0


@session_app.command("stop")
def stop(
    name: Annotated[Optional[str], typer.Argument(help="The session to stop.")] = None,  # noqa: UP045
    all_sessions: Annotated[bool, typer.Option("--all", help="Stop every session.")] = False,
) -> int:
    """Stop a session: its browser closes and nothing it started keeps running.

    Example: venusctl session stop todo
    """
    from venusctl.core.errors import UsageError
    from venusctl.drivers.sessions import store
    from venusctl.drivers.sessions.manage import stop as stop_session

    if all_sessions == (name is not None):
        raise UsageError("name one session to stop, or pass --all")
    for each in store.names() if all_sessions else [name or ""]:
        stop_session(each)
        print(f"stopped {each}")
    return 0
