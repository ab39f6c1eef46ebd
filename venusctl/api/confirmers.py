"""How a program answers the safety gate: its own confirmer, or none (fail closed).

A program passes any object with the `Confirmer` methods, or just a function
`decide(request) -> Reply | bool`. Without one, every confirmation and every
question the model asks stops the run with exit code 3 and the pending action in
the record, exactly as a run without a terminal does. Nothing here can lower the
policy: a confirmer is only asked about what the guard already gated, and denials
never reach it.
"""

from __future__ import annotations

from collections.abc import Callable

from venusctl.core.errors import NeedsUser
from venusctl.safety.confirm import (
    Confirmer,
    ConfirmRequest,
    NonInteractiveConfirmer,
    Reply,
)

Decide = Callable[[ConfirmRequest], "Reply | bool"]
Answer = Callable[[str], "str | None"]


class CallbackConfirmer:
    """A confirmer made of functions: `decide` for gated actions, `answer` for questions.

    `decide` returns a `Reply` (or True for yes once, False for no). `answer` returns
    the person's reply to the model's question, or None when there is nobody to ask
    (the run then stops for the user, exit 3). Take-over is not offered to programs:
    `Reply.TAKEOVER` is treated as no.
    """

    interactive = True

    def __init__(self, decide: Decide, answer: Answer | None = None) -> None:
        self._decide = decide
        self._answer = answer

    def confirm(self, request: ConfirmRequest) -> Reply:
        reply = self._decide(request)
        if reply is True:
            return Reply.YES
        if reply is False or reply is None:
            return Reply.NO
        if not isinstance(reply, Reply):
            raise TypeError(f"a confirmer must return a Reply or a bool, not {reply!r}")
        return Reply.NO if reply is Reply.TAKEOVER else reply

    def ask_user(self, question: str) -> str:
        reply = self._answer(question) if self._answer is not None else None
        if reply is None:
            raise NeedsUser(f"the agent asks the user: {question}")
        return reply

    def take_over(self) -> None:
        raise NeedsUser("a take-over needs a person at the surface")


def as_confirmer(confirmer: Confirmer | Decide | None) -> Confirmer:
    """The confirmer a program gave, a function wrapped as one, or fail closed."""
    if confirmer is None:
        return NonInteractiveConfirmer()
    if hasattr(confirmer, "confirm") and hasattr(confirmer, "ask_user"):
        return confirmer  # type: ignore[return-value]
    if callable(confirmer):
        return CallbackConfirmer(confirmer)
    raise TypeError(f"not a confirmer: {confirmer!r}")


__all__ = [
    "CallbackConfirmer",
    "ConfirmRequest",
    "Confirmer",
    "NonInteractiveConfirmer",
    "Reply",
    "as_confirmer",
]
