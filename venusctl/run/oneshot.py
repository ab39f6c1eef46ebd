"""One action or one screenshot on an open surface, outside the loop.

`act_on` goes through the same parse, place and guard as a run, so what it does
is exactly what the agent would do with that answer on this screen. Opening and
closing the surface is the caller's job (`venusctl.api.Agent`).
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from venusctl.core.actions import describe, parse_action, render
from venusctl.core.errors import Aborted, ParseError, PolicyDenied, UsageError
from venusctl.core.grid import ScreenSize, to_pixels
from venusctl.drivers.base import Driver, Screen
from venusctl.safety.confirm import Confirmer, ConfirmRequest, Reply
from venusctl.safety.guard import Decision, Guard, GuardRequest, Verdict
from venusctl.safety.targets import describe_targets, first_element

SETTLE_CAP_S = 3.0


@dataclass(frozen=True)
class ActResult:
    """What one action did: as written, as placed in pixels, on what, with what verdict."""

    action: str
    placed: str
    size: ScreenSize
    target: str | None
    verdict: Verdict
    reply: Reply | None = None
    feedback: str | None = None

    def report(self) -> str:
        """The lines `venusctl act` prints."""
        lines = [f"performed {self.action} on {self.size} as {self.placed} (pixels)"]
        if self.target is not None:
            lines.append(f"target: {self.target}")
        if self.feedback:
            lines.append(self.feedback)
        return "\n".join(lines)


def act_on(driver: Driver, text: str, guard: Guard, confirmer: Confirmer,
           settle_cap_s: float = SETTLE_CAP_S) -> ActResult:
    """Parse, place, guard and perform one action on `driver` (already protected).

    A denial raises `PolicyDenied`; a confirmation nobody can answer raises
    `NeedsUser`; any answer but yes raises `Aborted`; nothing is performed then.
    """
    try:
        action = parse_action(text.strip(), driver.surface)
    except ParseError as exc:
        raise UsageError(str(exc)) from None
    screen = driver.screenshot()
    placed = to_pixels(action, screen.size, driver.surface)
    targets = describe_targets(driver, placed)
    element = first_element(targets)
    verdict = guard.check(GuardRequest(1, action, placed, element, screen.context,
                                       targets=targets))
    if verdict.decision is Decision.DENY:
        raise PolicyDenied(f"{describe(action)} is denied by the policy: {verdict.reason}")
    reply: Reply | None = None
    if verdict.decision is Decision.CONFIRM:
        reply = confirmer.confirm(ConfirmRequest(
            1, describe(action), verdict.target or (element.summary() if element else None),
            screen.context.url or screen.context.app, verdict.reason, "", verdict.category))
        if reply not in (Reply.YES, Reply.ALWAYS):
            raise Aborted(f"not performed: you answered {reply.value}")
    result = driver.perform(placed)
    driver.settle(settle_cap_s)
    return ActResult(render(action, driver.surface), render(placed, driver.surface), screen.size,
                     element.summary() if element else None, verdict, reply, result.feedback)


def save_screen(screen: Screen, out: Path) -> str:
    """Write a screenshot as .png or .jpg (converting when the driver's format differs)."""
    suffix = out.suffix.lower()
    wanted = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}.get(suffix)
    if wanted is None:
        raise UsageError(f"{out}: save as .png or .jpg")
    try:
        if (wanted == "PNG") == (screen.mime == "image/png"):
            out.write_bytes(screen.data)
        else:
            buffer = io.BytesIO()
            screen.image.convert("RGB").save(buffer, format=wanted)
            out.write_bytes(buffer.getvalue())
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
    image = screen.image
    return f"saved {out} ({image.width}x{image.height} image of a {screen.size} screen)"
