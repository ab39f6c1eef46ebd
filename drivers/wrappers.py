"""Drivers that wrap a driver, changing one aspect and passing the rest on.

Recording what the agent sees, dry runs, secrets, lending a surface to a run: each
is a wrapper, not a branch inside a driver. A wrapper passes on the seam's methods
and, explicitly, each optional ability: its `capabilities` are those the driver
inside declares, so a caller that asks the outermost wrapper learns what the surface
under it can do, and a method is passed on only for an ability declared.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from venusctl.core.actions import Action, describe
from venusctl.drivers.base import (
    ActionResult,
    CapableDriver,
    Driver,
    Element,
    HeldRequest,
    RequestDecision,
    Screen,
    ScreenContext,
)
from venusctl.drivers.capabilities import Box, Capability


class DriverWrapper:
    """Base for wrappers: every method goes to the inner driver unless overridden."""

    def __init__(self, inner: Driver) -> None:
        self.inner = inner
        self.surface = inner.surface
        self.name = inner.name
        self.capabilities: frozenset[Capability] = inner.capabilities

    # ------------------------------------------------------------------- the seam
    def screenshot(self) -> Screen:
        return self.inner.screenshot()

    def perform(self, action: Action) -> ActionResult:
        return self.inner.perform(action)

    def describe(self, x: int, y: int) -> Element | None:
        return self.inner.describe(x, y)

    def context(self) -> ScreenContext:
        return self.inner.context()

    def settle(self, cap_s: float) -> float:
        return self.inner.settle(cap_s)

    def close(self) -> None:
        self.inner.close()

    # ------------------------------------------------------- declared abilities
    def focused_element(self) -> Element | None:
        return self._with(Capability.FOCUSED_ELEMENT).focused_element()

    def pointer_element(self) -> Element | None:
        return self._with(Capability.POINTER_ELEMENT).pointer_element()

    def sensitive_regions(self) -> list[Box]:
        return self._with(Capability.SENSITIVE_REGIONS).sensitive_regions()

    def secret_regions(self) -> list[Box]:
        return self._with(Capability.SECRET_REGIONS).secret_regions()

    def mark_secret_field(self) -> str | None:
        return self._with(Capability.MARK_SECRET_FIELD).mark_secret_field()

    def hold_requests(self, judge: Callable[[HeldRequest], RequestDecision]) -> None:
        self._with(Capability.HOLD_REQUESTS).hold_requests(judge)

    def keep_files_in(self, folder: Path) -> None:
        self._with(Capability.KEEP_FILES).keep_files_in(folder)

    def surface_text(self) -> str:
        return self._with(Capability.SURFACE_TEXT).surface_text()

    def _with(self, capability: Capability) -> CapableDriver:
        """The inner driver, for an ability this wrapper declares; asking for one it
        does not declare is a programming error, said plainly."""
        if capability not in self.capabilities:
            raise NotImplementedError(
                f"the {self.name} driver does not offer {capability.method}()")
        return self.inner  # type: ignore[return-value]


class DryRunDriver(DriverWrapper):
    """Observes for real but performs nothing, saying what it would have done."""

    def __init__(self, inner: Driver, say: Any = None) -> None:
        super().__init__(inner)
        self.performed: list[Action] = []
        self._say = say

    def perform(self, action: Action) -> ActionResult:
        self.performed.append(action)
        if self._say is not None:
            self._say(f"(dry run) would {describe(action)}")
        return ActionResult(details={"dry_run": True})

    def settle(self, cap_s: float) -> float:
        return 0.0


class LentDriver(DriverWrapper):
    """A surface lent to one run by whoever opened it (a batch task, a kept `Agent`):
    the run uses it all, but closing it is left to the owner."""

    def close(self) -> None:
        return None
