"""Asking a person: confirmations before gated actions, and the model's questions.

A `Confirmer` is how the loop reaches a human. The terminal one prompts on the
controlling terminal; the non-interactive one (batch, CI, pipes) fails closed by
raising `NeedsUser`, so an unattended run stops rather than guessing (exit 3, the
pending action in the record) unless its category was approved in advance with
`--allow-category`.

Answers to a confirmation: yes (this once), no (the model is told the person
declined and carries on), always (this category, for the rest of the run), take
over (the person uses the surface, then the agent looks again), abort (exit 4).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, TextIO

from venusctl.core import interrupts
from venusctl.core.errors import NeedsUser
from venusctl.safety.sanitize import shown, shown_line


class Reply(str, Enum):
    YES = "yes"
    NO = "no"
    ALWAYS = "always"
    TAKEOVER = "takeover"
    ABORT = "abort"


@dataclass(frozen=True)
class ConfirmRequest:
    """What the person is shown before deciding."""

    step: int
    action: str
    target: str | None
    where: str | None
    reason: str
    thought: str
    category: str | None = None
    crop_path: str | None = None


class Confirmer(Protocol):
    interactive: bool

    def confirm(self, request: ConfirmRequest) -> Reply:
        """Ask whether a gated action may run."""
        ...

    def ask_user(self, question: str) -> str:
        """Show the model's question and return the person's typed reply."""
        ...

    def take_over(self) -> None:
        """Let the person use the surface; return when they hand it back."""
        ...


class NonInteractiveConfirmer:
    """No one to ask: every confirmation and question stops the run (exit 3)."""

    interactive = False

    def confirm(self, request: ConfirmRequest) -> Reply:
        category = f" ({request.category})" if request.category else ""
        raise NeedsUser(
            f"step {request.step}: '{shown_line(request.action, 200)}' needs "
            f"confirmation{category} and no terminal is available to ask"
        )

    def ask_user(self, question: str) -> str:
        raise NeedsUser(f"the agent asks the user: {shown_line(question, 500)}")

    def take_over(self) -> None:
        raise NeedsUser("a take-over needs a person at a terminal")


_CHOICES = {
    "y": Reply.YES, "yes": Reply.YES, "是": Reply.YES,
    "n": Reply.NO, "no": Reply.NO, "否": Reply.NO,
    "a": Reply.ALWAYS, "always": Reply.ALWAYS,
    "t": Reply.TAKEOVER, "take over": Reply.TAKEOVER, "takeover": Reply.TAKEOVER,
    "q": Reply.ABORT, "abort": Reply.ABORT,
}


class TerminalConfirmer:
    """Prompts on the terminal; input and output streams are injectable for tests."""

    interactive = True

    def __init__(
        self,
        read_line: Callable[[], str] | None = None,
        out: TextIO | None = None,
    ) -> None:
        self._read_line = read_line or _stdin_line
        self._out = out or sys.stderr

    def _say(self, text: str) -> None:
        self._out.write(text + "\n")
        self._out.flush()

    def confirm(self, request: ConfirmRequest) -> Reply:
        for line in confirm_lines(request):
            self._say(line)
        always = (f"[a]lways {shown_line(request.category, 40)} this run" if request.category
                  else "[a]lways")
        while True:
            self._out.write(f"  [y]es once / [n]o / {always} / [t]ake over / [q] abort: ")
            self._out.flush()
            line = self._read_line()
            if line == "":  # end of input: nobody is there any more
                return Reply.ABORT
            reply = _CHOICES.get(line.strip().lower())
            if reply is not None:
                return reply
            self._say("  please answer y, n, a, t or q")

    def ask_user(self, question: str) -> str:
        self._say("")
        self._say("── the agent asks ──")
        for line in shown(question, newlines=True).splitlines() or [""]:
            self._say(f"  {line}")
        self._out.write("  your reply: ")
        self._out.flush()
        line = self._read_line()
        if line == "":
            raise NeedsUser(f"the agent asks the user: {shown_line(question, 500)}")
        return line.strip()

    def take_over(self) -> None:
        self._say("  The surface is yours. Press Enter to hand it back to the agent.")
        self._read_line()


def confirm_lines(request: ConfirmRequest) -> list[str]:
    """The facts shown before a confirmation, one per line (terminal and TUI alike).

    Every value is sanitized (nothing in it can move the cursor or rewrite a line),
    and the decisive lines (action, target, policy reason and category) come last,
    right above the question, after the model's words and the page's address.
    """
    category = f" [{shown_line(request.category, 40)}]" if request.category else ""
    lines = ["", f"── confirmation needed (step {request.step}) ──"]
    if request.thought:
        lines.append(f"  model  : {shown_line(request.thought, 240)}")
    if request.where:
        lines.append(f"  where  : {shown_line(request.where, 200)}")
    if request.crop_path:
        lines.append(f"  picture: {shown_line(request.crop_path)}")
    lines.append(f"  action : {shown_line(request.action, 300)}")
    lines.append(f"  target : {shown_line(request.target or '(the driver could not tell)', 300)}")
    lines.append(f"  policy : {shown_line(request.reason, 300)}{category}")
    return lines


def _stdin_line() -> str:
    # a browser asks from inside a Playwright call, where Ctrl-C is held back: let it through
    with interrupts.allowed():
        return sys.stdin.readline()


def default_confirmer() -> Confirmer:
    """The terminal when there is one, else fail closed."""
    if sys.stdin.isatty():
        return TerminalConfirmer()
    return NonInteractiveConfirmer()
