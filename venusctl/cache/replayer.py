"""Deciding, step by step, whether the recorded answer still applies.

A recorded answer is used only while the run is exactly where the recorded run
was: the conversation so far holds the recorded answers, the model would be sent
the same message (feedback included), the screen's fingerprint is within the
threshold, the app is the same, and the element at the action's target still has
the recorded role and name. At the first step where anything differs the replay
stops for good and the model answers from there on. What is replayed still goes
through the parser, the guard and any confirmation like a model's answer: this
module only chooses where an answer comes from.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from venusctl.cache.entry import CachedStep, Trajectory, element_label
from venusctl.cache.fingerprint import Prints, distance
from venusctl.core.actions import Surface, parse
from venusctl.core.grid import to_pixels
from venusctl.drivers.base import Screen
from venusctl.model.base import Message
from venusctl.safety.targets import describe_targets, first_element

log = logging.getLogger(__name__)

Hasher = Callable[[Screen], Prints]


class Replayer:
    """Answers from one trajectory until the run leaves it."""

    def __init__(self, entry: Trajectory, surface: Surface, max_distance: int,
                 prints_of: Hasher) -> None:
        self.entry = entry
        self.surface = surface
        self.max_distance = max_distance
        self.prints_of = prints_of
        self.diverged_at: int | None = None
        self.reason: str | None = None
        self.replayed = 0

    def answer(self, step: int, messages: list[Message], screen: Screen | None,
               driver: Any) -> str | None:
        """The recorded answer for this step, or None (then and from now on: ask)."""
        if self.diverged_at is not None:
            return None
        reason = self._difference(step, messages, screen, driver)
        if reason is not None:
            self.diverged_at, self.reason = step, reason
            log.info("trajectory cache: step %d differs from the recorded run (%s); "
                     "the model answers from here on", step, reason)
            return None
        self.replayed += 1
        return self.entry.steps[step - 1].answer

    def _difference(self, step: int, messages: list[Message], screen: Screen | None,
                    driver: Any) -> str | None:
        steps = self.entry.steps
        if step > len(steps):
            return "the recorded run had ended by now"
        recorded = steps[step - 1]
        history = [m.text for m in messages if m.role == "assistant"]
        expected = [s.answer for s in steps[: step - 1]]
        # an interface may keep only the last turns (the browser keeps two); the steps
        # before were each checked when they were replayed
        if len(history) > len(expected) or history != expected[len(expected) - len(history):]:
            return "the conversation so far is not the recorded one"
        if not messages or messages[-1].text != recorded.prompt:
            return "the message to the model is not the recorded one (its feedback differs)"
        if screen is None:
            return "no screen was seen"
        return self._screen_difference(recorded, screen) or self._target_difference(
            recorded, screen, driver)

    def _screen_difference(self, recorded: CachedStep, screen: Screen) -> str | None:
        seen = self.prints_of(screen)
        bits = distance(seen.perceptual, recorded.fingerprint)
        if bits > self.max_distance:
            return f"the screen differs in {bits} of 256 fingerprint bits"
        if recorded.reads_the_screen and seen.pixels != recorded.pixels:
            return "an answer read off the screen is replayed only from an identical screen"
        app, was = screen.context.app, recorded.context.get("app")
        if app and was and app != was:
            return f"another app is in front ({app})"
        return None

    def _target_difference(self, recorded: CachedStep, screen: Screen,
                           driver: Any) -> str | None:
        """The element the recorded action aims at must still have its role and name."""
        if not recorded.element:
            return None
        action = parse(recorded.answer, self.surface).action
        placed = to_pixels(action, screen.size, self.surface)
        element = first_element(describe_targets(driver, placed))
        now = element_label(element.as_dict() if element is not None else None) or {}
        for key, value in recorded.element.items():
            if now.get(key) != value:
                return f"the target's {key} is now {now.get(key)!r}, not {value!r}"
        return None
