"""The driver seam: what every surface (phone, desktop, browser) offers the agent.

A driver is pure device I/O. It takes screenshots, performs actions that are
already placed in its own pixel units, and says what is under a point. It knows
nothing of models, prompts or policies; behaviour such as dry-run comes by wrapping
a driver (`wrappers`), not by branches inside one. What a driver can do beyond the
seam it declares (`capabilities`).
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from venusctl.core.actions import Action, Surface
from venusctl.core.grid import ScreenSize
from venusctl.drivers.capabilities import Abilities, Capability

if TYPE_CHECKING:
    from PIL import Image


@dataclass(frozen=True)
class ScreenContext:
    """Where the screen is: app or page. Used by the guard, the record and the prompt."""

    app: str | None = None
    activity: str | None = None
    url: str | None = None
    title: str | None = None

    def as_dict(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v}


@dataclass(frozen=True)
class Element:
    """What is under a point, as the driver can tell (every field optional).

    Bounds are `(left, top, width, height)` in the driver's pixel units.
    """

    text: str | None = None
    name: str | None = None
    role: str | None = None
    tag: str | None = None
    resource_id: str | None = None
    input_type: str | None = None
    href: str | None = None
    form_action: str | None = None
    app: str | None = None
    clickable: bool | None = None
    password: bool | None = None
    bounds: tuple[int, int, int, int] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            if value is None or value == {}:
                continue
            out[key] = list(value) if isinstance(value, tuple) else value
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Element | None:
        """An element back from its recorded form (`as_dict`); None when there is none.
        Keys it does not know are left out: a record may come from another version."""
        if not data or not isinstance(data, dict):
            return None
        names = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        bounds = values.get("bounds")
        values["bounds"] = tuple(bounds) if isinstance(bounds, list) and len(bounds) == 4 else None
        if not isinstance(values.get("extra", {}), dict):
            values["extra"] = {}
        return cls(**values)

    @property
    def kind(self) -> str:
        """What sort of thing it is, for people: its role, else its tag."""
        return self.role or self.tag or "element"

    def summary(self) -> str:
        """One line naming the element: confirmations, status lines, the HTML report."""
        label = self.name or self.text or self.resource_id or ""
        kind = f"{self.kind}[{self.input_type}]" if self.input_type else self.kind
        label = " ".join(str(label).split())
        return f"{kind} {label[:80]!r}" if label else kind


@dataclass
class Screen:
    """One observation: the encoded image the model will see and where it came from.

    `size` is in the units actions are performed in (CSS pixels for a browser); the
    image itself may have a different pixel size (device scale factor, HiDPI).
    """

    data: bytes
    mime: str
    size: ScreenSize
    context: ScreenContext = field(default_factory=ScreenContext)
    captured_at: float = 0.0
    notice: str | None = None
    """Something the surface tells the model about this screen (a new tab took over)."""

    @cached_property
    def image(self) -> Image.Image:
        from PIL import Image

        img = Image.open(io.BytesIO(self.data))
        img.load()
        return img

    @cached_property
    def digest(self) -> str:
        """A content hash: equal images have equal digests (used for caching)."""
        return hashlib.sha1(self.data).hexdigest()

    @property
    def extension(self) -> str:
        return "jpg" if self.mime == "image/jpeg" else "png"


@dataclass(frozen=True)
class ActionResult:
    """What an action produced beyond its effect on the screen.

    `feedback` is text the model should read at the start of its next message
    (the URL after GetUrl, the options of a native select just clicked, a note).
    """

    feedback: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HeldRequest:
    """A request the browser made, held before it leaves until the run's judge decides.

    `kind` is the browser's resource type (Document, XHR, Fetch, Ping, Image, ...);
    `frame` says where it comes from: "main" (the tab's page), "frame" (an iframe),
    "popup" (a tab the page opened) or "worker". `redirected_from` is set for every
    redirect hop; `initiator` is the origin of the document that made the request.
    """

    url: str
    method: str = "GET"
    kind: str = "Other"
    frame: str = "main"
    navigation: bool = False
    redirected_from: str | None = None
    initiator: str | None = None
    page_url: str | None = None
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out = {"method": self.method, "url": self.url, "kind": self.kind, "frame": self.frame}
        if self.redirected_from:
            out["redirected_from"] = self.redirected_from
        if self.initiator:
            out["initiator"] = self.initiator
        return out


@dataclass(frozen=True)
class RequestDecision:
    """The judge's answer: let the request go or not; `note` is told to the model."""

    allow: bool
    note: str | None = None


@runtime_checkable
class Driver(Protocol):
    """A surface the agent can see and operate.

    `capabilities` names the optional abilities it also has (`capabilities.Capability`);
    it has the method of each one it declares, and callers ask before calling one.
    """

    surface: Surface
    name: str
    capabilities: frozenset[Capability]

    def screenshot(self) -> Screen:
        """Capture exactly what the model will see."""
        ...

    def perform(self, action: Action) -> ActionResult:
        """Carry out one action whose coordinates are already in pixels."""
        ...

    def describe(self, x: int, y: int) -> Element | None:
        """The element under a pixel, or None when the driver cannot tell."""
        ...

    def context(self) -> ScreenContext:
        """The current app, activity, window or URL."""
        ...

    def settle(self, cap_s: float) -> float:
        """Wait until the screen stops changing (at most `cap_s`); return seconds waited."""
        ...

    def close(self) -> None:
        """Release the surface: held keys and buttons, browser, connections."""
        ...


class CapableDriver(Driver, Abilities, Protocol):
    """A driver as a caller that has checked its capabilities sees it: the seam, and
    the methods of the abilities it declares (`capabilities.able`)."""
