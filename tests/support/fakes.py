"""In-process fakes for unit tests: a driver that remembers what it was asked to do."""

from __future__ import annotations

import io
import time
from dataclasses import dataclass, field
from typing import ClassVar

from PIL import Image

from venusctl.core.actions import Action, Surface
from venusctl.core.errors import ActionFailed, DeviceError
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import ActionResult, Element, Screen, ScreenContext
from venusctl.drivers.capabilities import Capability


def png(width: int = 64, height: int = 48, shade: int = 0) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (shade % 256, 80, 160)).save(buffer, format="PNG")
    return buffer.getvalue()


@dataclass
class FakeDriver:
    """A surface whose screen changes shade after each action (a subclass that adds an
    optional ability declares it in `capabilities`)."""

    capabilities: ClassVar[frozenset[Capability]] = frozenset()
    surface: Surface = Surface.BROWSER
    name: str = "fake"
    size: ScreenSize = field(default_factory=lambda: ScreenSize(1000, 500))
    element: Element | None = None
    context_value: ScreenContext = field(default_factory=lambda: ScreenContext(url="http://x/"))
    feedback: dict[str, str] = field(default_factory=dict)
    fail_on: set[str] = field(default_factory=set)
    die_on_step: int | None = None
    performed: list[Action] = field(default_factory=list)
    closed: bool = False
    shots: int = 0

    def screenshot(self) -> Screen:
        self.shots += 1
        if self.die_on_step is not None and self.shots >= self.die_on_step:
            raise DeviceError("the fake device went away")
        return Screen(png(shade=len(self.performed) * 40), "image/png", self.size,
                      self.context_value, time.time())

    def perform(self, action: Action) -> ActionResult:
        name = type(action).__name__
        if name in self.fail_on:
            raise ActionFailed(f"{name} did not work")
        self.performed.append(action)
        return ActionResult(self.feedback.get(name))

    def describe(self, x: int, y: int) -> Element | None:
        return self.element

    def context(self) -> ScreenContext:
        return self.context_value

    def settle(self, cap_s: float) -> float:
        return 0.0

    def close(self) -> None:
        self.closed = True
