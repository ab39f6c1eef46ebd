"""The safety gate over MCP: ask the person through elicitation, or fail closed.

A gated action found by a tool (in a worker thread) is put to the client as a
form elicitation ("approve: yes/no") and waits for the answer. Accepted with
approve=true runs it once; approve=false or a decline tells the model the person
said no; a cancel aborts the task. When the client did not declare elicitation,
or the transport cannot carry a request back mid-call, nobody can be asked: the
action is not performed and the tool's result names it ("needs the user").
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

import anyio.from_thread
from pydantic import BaseModel, Field

from venusctl.core.errors import NeedsUser
from venusctl.core.text import one_line
from venusctl.safety.confirm import ConfirmRequest, Reply

log = logging.getLogger(__name__)


class Approval(BaseModel):
    approve: bool = Field(description="Let the agent perform this action once?")


class UserReply(BaseModel):
    reply: str = Field(description="Your answer to the agent's question")


def pending_text(request: ConfirmRequest) -> str:
    """The gated action in words: what, on what, where, and the policy's reason."""
    parts = [f"step {request.step}: {request.action}"]
    if request.target:
        parts.append(f"on {request.target}")
    if request.where:
        parts.append(f"at {one_line(request.where, 200)}")
    category = f" [{request.category}]" if request.category else ""
    return " ".join(parts) + f" ({request.reason}{category})"


def can_elicit(ctx: Any) -> bool:
    """Whether this client can be asked mid-call (declared elicitation, duplex transport)."""
    try:
        session = ctx.session
        capabilities = session.client_capabilities
        return bool(capabilities is not None and capabilities.elicitation is not None
                    and session.can_send_request)
    except (AttributeError, ValueError):
        return False


class ElicitingConfirmer:
    """Asks through the client; used from a worker thread started by anyio."""

    interactive = True

    def __init__(self, ctx: Any) -> None:
        self._ctx = ctx
        self._can_ask = can_elicit(ctx)

    def confirm(self, request: ConfirmRequest) -> Reply:
        pending = pending_text(request)
        if not self._can_ask:
            raise NeedsUser(f"needs the user: {pending} was not performed: this MCP client "
                            "cannot ask for a confirmation (no elicitation)")
        message = f"venusctl wants to {pending}. The model says: " \
                  f"{one_line(request.thought, 300) or '(nothing)'}. Allow it once?"
        result = anyio.from_thread.run(partial(self._ctx.elicit, message, Approval))
        log.info("confirmation for step %s: %s", request.step, result.action)
        if result.action == "accept":
            return Reply.YES if result.data.approve else Reply.NO
        return Reply.NO if result.action == "decline" else Reply.ABORT

    def ask_user(self, question: str) -> str:
        if not self._can_ask:
            raise NeedsUser(f"needs the user: the agent asks: {question}")
        result = anyio.from_thread.run(
            partial(self._ctx.elicit, f"The agent asks: {question}", UserReply))
        if result.action == "accept" and result.data.reply.strip():
            return str(result.data.reply)
        raise NeedsUser(f"needs the user: the agent asks: {question}")

    def take_over(self) -> None:
        raise NeedsUser("needs the user: a take-over needs a person at the surface")
