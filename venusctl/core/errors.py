"""Typed errors, the exit codes they map to and the status word a run record gives them.

Errors are raised deep inside the library as typed exceptions and turned into one
line of text plus an exit code only at the CLI edge, so that shell scripts can rely
on the codes and people never see a traceback for a problem they can fix. Each class
carries both its exit code and its status, so the loop, batch and the CLI cannot
disagree on what an error means.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes, documented in docs/commands/index.md and `--help`."""

    FINISHED = 0
    FAILED = 1
    USAGE = 2
    NEEDS_USER = 3
    POLICY_STOP = 4
    UNAVAILABLE = 5
    INTERRUPTED = 130


class VenusError(Exception):
    """Base class: every error venusctl raises on purpose.

    `exit_code` tells the CLI which code to leave with; `status` is the one word a run's
    outcome (run.json, batch results, `--json`) records for it; the message is a single
    line meant for a person (and, for `ParseError`, for the model too).
    """

    exit_code: ExitCode = ExitCode.FAILED
    status: str = "failed"


class UsageError(VenusError):
    """Bad options, files or configuration supplied by the user."""

    exit_code = ExitCode.USAGE
    status = "error"


class ParseError(VenusError):
    """The model's answer does not follow the action language.

    The message is written so that it can be sent back to the model as feedback.
    """

    exit_code = ExitCode.FAILED
    status = "parse_error"


class DeviceError(VenusError):
    """The surface (phone, desktop, browser) is missing, gone or refused an action."""

    exit_code = ExitCode.UNAVAILABLE
    status = "device_error"


class ActionFailed(VenusError):
    """One action could not be carried out, but the surface is still usable.

    The agent feeds the message back to the model instead of stopping the run.
    """

    exit_code = ExitCode.FAILED


class ModelError(VenusError):
    """The model could not be loaded or failed to answer."""

    exit_code = ExitCode.UNAVAILABLE
    status = "model_error"


class PolicyDenied(VenusError):
    """The safety policy forbids an action; no command-line flag can override it."""

    exit_code = ExitCode.POLICY_STOP
    status = "denied"


class NeedsUser(VenusError):
    """The run needs a person (a question or a confirmation) but none can be asked."""

    exit_code = ExitCode.NEEDS_USER
    status = "needs_user"


class Aborted(VenusError):
    """The user chose to abort at a confirmation prompt."""

    exit_code = ExitCode.POLICY_STOP
    status = "aborted"
