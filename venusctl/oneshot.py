"""One action or one screenshot on a surface, outside the loop (for debugging).

`venusctl act` goes through the same parse, place and guard as a run, so what it
does is exactly what the agent would do with that answer on this screen.
"""

from __future__ import annotations

import io
from pathlib import Path

from venusctl.actions import describe, parse_action, render
from venusctl.drivers.base import Driver
from venusctl.errors import Aborted, ParseError, PolicyDenied, UsageError
from venusctl.grid import to_pixels
from venusctl.safety.confirm import ConfirmRequest, Reply, default_confirmer
from venusctl.safety.guard import Decision, GuardRequest
from venusctl.safety.setup import protected
from venusctl.safety.targets import describe_targets, first_element
from venusctl.session import make_guard
from venusctl.surfaces import DriverOptions, choose_driver, open_driver, surface_of


def perform_one(
    text: str, options: DriverOptions, confirm: str, assume_yes: bool, after: Path | None
) -> str:
    guard = make_guard(confirm, assume_yes)
    surface = surface_of(choose_driver(options))
    try:
        action = parse_action(text.strip(), surface)
    except ParseError as exc:
        raise UsageError(str(exc)) from None
    # types {{secret:NAME}}, blurs password fields, judges the browser's requests
    driver = protected(open_driver(options), confirm=confirm)
    try:
        screen = driver.screenshot()
        placed = to_pixels(action, screen.size, driver.surface)
        targets = describe_targets(driver, placed)
        element = first_element(targets)
        verdict = guard.check(GuardRequest(1, action, placed, element, screen.context,
                                           targets=targets))
        if verdict.decision is Decision.DENY:
            raise PolicyDenied(f"{describe(action)} is denied by the policy: {verdict.reason}")
        if verdict.decision is Decision.CONFIRM:
            reply = default_confirmer().confirm(ConfirmRequest(
                1, describe(action),
                verdict.target or (element.summary() if element else None),
                screen.context.url or screen.context.app, verdict.reason, "", verdict.category))
            if reply not in (Reply.YES, Reply.ALWAYS):
                raise Aborted(f"not performed: you answered {reply.value}")
        result = driver.perform(placed)
        driver.settle(3.0)
        if after is not None:
            _save(driver, after)
        lines = [f"performed {render(action, driver.surface)} on {screen.size} "
                 f"as {render(placed, driver.surface)} (pixels)"]
        if element is not None:
            lines.append(f"target: {element.summary()}")
        if result.feedback:
            lines.append(result.feedback)
        return "\n".join(lines)
    finally:
        driver.close()


def save_screenshot(options: DriverOptions, out: Path) -> str:
    driver = open_driver(options)
    try:
        return _save(driver, out)
    finally:
        driver.close()


def _save(driver: Driver, out: Path) -> str:
    screen = driver.screenshot()
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
