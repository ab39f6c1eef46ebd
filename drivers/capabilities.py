"""The optional abilities a driver declares, beyond what every surface offers.

Every driver takes screenshots, performs actions, describes a point, reports its
context, settles and closes (`base.Driver`). Some can do more: say what has the
keyboard focus, hold the browser's requests for the safety engine, read the whole
surface's text for a batch check. A driver says which of these it has in
`capabilities`, a frozen set of `Capability`; callers ask that set (`can`) before
calling the method it names, so an ability is never found by looking for an
attribute, and a wrapper passes on exactly what it declares (see `wrappers`).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from venusctl.drivers.base import (
        CapableDriver,
        Driver,
        Element,
        HeldRequest,
        RequestDecision,
    )

Box = tuple[int, int, int, int]


class Capability(Enum):
    """One optional ability; its value is the name of the method that provides it."""

    FOCUSED_ELEMENT = "focused_element"
    """Where keys and typed text go (the guard judges a `Type` by it)."""
    POINTER_ELEMENT = "pointer_element"
    """What is under the pointer now (a desktop action with no point of its own)."""
    SENSITIVE_REGIONS = "sensitive_regions"
    """Password and card fields on screen, blurred in what the model and records see."""
    SECRET_REGIONS = "secret_regions"
    """The fields stored secrets were typed into, painted over."""
    MARK_SECRET_FIELD = "mark_secret_field"
    """Remember the focused field before a secret goes in; says its frame's origin."""
    HOLD_REQUESTS = "hold_requests"
    """Hold every request the surface sends until a judge lets it go (the browser)."""
    KEEP_FILES = "keep_files_in"
    """Save downloaded files into a folder the run chooses."""
    SURFACE_TEXT = "surface_text"
    """All the text the surface shows, for `text_present` checks."""

    @property
    def method(self) -> str:
        return self.value


class Abilities(Protocol):
    """The methods behind the capabilities; a driver has those it declares."""

    def focused_element(self) -> Element | None: ...

    def pointer_element(self) -> Element | None: ...

    def sensitive_regions(self) -> list[Box]: ...

    def secret_regions(self) -> list[Box]: ...

    def mark_secret_field(self) -> str | None: ...

    def hold_requests(self, judge: Callable[[HeldRequest], RequestDecision]) -> None: ...

    def keep_files_in(self, folder: Path) -> None: ...

    def surface_text(self) -> str: ...


def can(driver: Driver, capability: Capability) -> bool:
    """Whether `driver` declares `capability` (and so has its method)."""
    return capability in driver.capabilities


def able(driver: Driver, capability: Capability) -> CapableDriver | None:
    """`driver` as one whose ability may be called, or None when it has not declared it:
    `if (d := able(driver, Capability.FOCUSED_ELEMENT)) is not None: d.focused_element()`."""
    return driver if can(driver, capability) else None  # type: ignore[return-value]
