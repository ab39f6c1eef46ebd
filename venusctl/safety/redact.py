"""Keeping secret values out of everything venusctl writes or prints.

The model and the record only ever hold `{{secret:NAME}}`, but a value once typed
can come back: a page echoes it, a driver error quotes it, a library logs it. The
`Redactor` learns each value the moment it is substituted and replaces it with
`[secret:NAME]` wherever text leaves the run: in run observers (record, JSON
stream, progress line, TUI), in log records, and in error messages from the
driver wrapper.
"""

from __future__ import annotations

import logging
from typing import Any

from venusctl.agent import RunObserver
from venusctl.record import Outcome, RunInfo, StepRecord

MIN_SCRUB_LENGTH = 3  # shorter values would blank out ordinary text and are no secret


class Redactor:
    """The secret values of one run, and the text they are replaced by."""

    def __init__(self) -> None:
        self._values: dict[str, str] = {}

    def add(self, name: str, value: str) -> None:
        if len(value) >= MIN_SCRUB_LENGTH:
            self._values[value] = f"[secret:{name}]"

    def known(self, name: str) -> str | None:
        """The value learnt for `name` in this run (kept so the keyring is asked once)."""
        mask = f"[secret:{name}]"
        return next((v for v, m in self._values.items() if m == mask), None)

    def scrub(self, text: str) -> str:
        for value in sorted(self._values, key=len, reverse=True):
            if value in text:
                text = text.replace(value, self._values[value])
        return text

    def scrub_any(self, value: Any) -> Any:
        """Strings inside dicts, lists and tuples scrubbed; other values unchanged."""
        if not self._values:
            return value
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, dict):
            return {k: self.scrub_any(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.scrub_any(v) for v in value)
        return value


class RedactingFilter(logging.Filter):
    """A handler filter that scrubs each log record's message before it is written."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = self.redactor.scrub(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        if record.exc_info and record.exc_info[1] is not None:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text, record.exc_info = self.redactor.scrub(text), None
        return True


def install_log_filter(redactor: Redactor) -> RedactingFilter:
    """Scrub everything the root logger's handlers write; returns the filter to remove."""
    log_filter = RedactingFilter(redactor)
    for handler in logging.getLogger().handlers:
        handler.addFilter(log_filter)
    return log_filter


def remove_log_filter(log_filter: RedactingFilter) -> None:
    for handler in logging.getLogger().handlers:
        handler.removeFilter(log_filter)


_STEP_TEXT = ("raw", "thought", "action_text", "action", "placed", "element", "verdict",
              "reply", "feedback", "result", "error", "parse_errors", "rejected", "context")


class RedactingObservers(RunObserver):
    """Passes every hook on to `observers` with secret values scrubbed first."""

    def __init__(self, redactor: Redactor, observers: list[RunObserver]) -> None:
        self.redactor = redactor
        self.observers = observers

    def _each(self, hook: str, *args: Any) -> None:
        for observer in self.observers:
            getattr(observer, hook)(*args)

    def run_started(self, info: RunInfo) -> None:
        self._each("run_started", info)

    def step_started(self, step: int) -> None:
        self._each("step_started", step)

    def phase(self, step: int, name: str) -> None:
        self._each("phase", step, name)

    def model_text(self, step: int, text: str) -> None:
        self._each("model_text", step, self.redactor.scrub(text))

    def step_finished(self, record: StepRecord) -> None:
        for name in _STEP_TEXT:
            setattr(record, name, self.redactor.scrub_any(getattr(record, name)))
        self._each("step_finished", record)

    def run_finished(self, outcome: Outcome) -> None:
        # in place: the same outcome is returned to the CLI, which prints its message
        outcome.message = self.redactor.scrub(outcome.message)
        self._each("run_finished", outcome)

    def __getattr__(self, item: str) -> Any:
        """Hooks added to `RunObserver` later still reach the observers (unscrubbed
        only if they carry no text)."""
        if item.startswith("_"):
            raise AttributeError(item)

        def forward(*args: Any) -> None:
            self._each(item, *args)
        return forward
