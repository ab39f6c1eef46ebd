"""The `venusctl` command line: parse flags, build objects, call one function.
No behaviour lives here that a program could not reach through run/ or api/.

Each command group lives in its own module; this one assembles them and turns
typed errors into one line on stderr and a documented exit code.
"""

from __future__ import annotations

import logging
import signal
import sys
from types import FrameType

from venusctl.cli.panels import Typer
from venusctl.core.errors import ExitCode, VenusError

EXIT_CODES = """\
Exit codes: 0 task finished; 1 task failed or budget exhausted; 2 usage or
configuration error; 3 the agent needs the user (a question or a confirmation
that could not be asked); 4 stopped by policy (denied action, or aborted at a
confirmation); 5 device or model unavailable; 130 interrupted."""

app = Typer(
    name="venusctl",
    help="A local GUI agent: UI-Venus-2 operates a phone, a desktop or a browser for you.",
    epilog=EXIT_CODES,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _register() -> None:
    from venusctl.cli import (
        batch,
        cache,
        devices,
        doctor,
        ground,
        mcp,
        model,
        policy,
        prompts,
        report,
        run,
        runs,
        secret,
        session,
        sim,
    )
    from venusctl.cli import eval as eval_commands

    run.register(app)
    batch.register(app)
    eval_commands.register(app)
    ground.register(app)
    model.register(app)
    runs.register(app)
    cache.register(app)
    report.register(app)
    doctor.register(app)
    devices.register(app)
    policy.register(app)
    prompts.register(app)
    secret.register(app)
    sim.register(app)
    session.register(app)
    mcp.register(app)


_register()


def _sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main() -> None:
    """Entry point of the console script."""
    sys.exit(run_cli(sys.argv[1:]))


def run_cli(argv: list[str]) -> int:
    """Run the command line on `argv` and return the exit code (tests call this)."""
    signal.signal(signal.SIGTERM, _sigterm)
    try:
        result = app(args=argv, standalone_mode=False)
    except VenusError as exc:
        _error(str(exc))
        code = int(exc.exit_code)
    except KeyboardInterrupt:
        _error("interrupted")
        code = int(ExitCode.INTERRUPTED)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:  # click's own usage errors and anything unforeseen
        code = _click_error(exc)
    else:
        code = result if isinstance(result, int) else 0
    return code


def _click_error(exc: Exception) -> int:
    """Map click's exceptions by name: typer may vendor its own copy of click."""
    kinds = {cls.__name__ for cls in type(exc).__mro__}
    if "Abort" in kinds:
        _error("interrupted")
        return int(ExitCode.INTERRUPTED)
    if "ClickException" in kinds:
        message = exc.format_message()  # type: ignore[attr-defined]
        ctx = getattr(exc, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        _error(" ".join(message.split()) + hint)
        return int(ExitCode.USAGE if "UsageError" in kinds else getattr(exc, "exit_code", 1))
    if "Exit" in kinds:
        return int(getattr(exc, "exit_code", 0))
    logging.getLogger("venusctl").debug("internal error", exc_info=exc)
    _error(f"internal error: {type(exc).__name__}: {exc} (run with -v for details)")
    return int(ExitCode.FAILED)


def _error(message: str) -> None:
    """One line on stderr; the message may quote a page or a model, so it is sanitized."""
    from venusctl.safety.sanitize import shown_line

    sys.stderr.write(f"venusctl: {shown_line(message)}\n")
    sys.stderr.flush()
