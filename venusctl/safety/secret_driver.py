"""The driver wrapper that types secrets and keeps them, and password fields, unseen.

Wrapped around every driver of a run (dry-run wraps it in turn):
  perform     `{{secret:NAME}}` in a `Type` becomes the keyring's value just before
              the inner driver presses the keys; the value is taught to the run's
              `Redactor`, and any error or feedback coming back is scrubbed of it.
              Where the driver can tell (`Capability.MARK_SECRET_FIELD`: the web), the focused
              field is remembered and its frame's origin checked first: a secret is
              typed into a frame from another site than the page only where the
              policy permits that secret (`secrets: NAME: {domains: [...]}`).
  screenshot  fields a secret was typed into (`secret_regions()`) are painted over,
              password and card fields (`sensitive_regions()`) blurred, in the image
              the model sees and the record and report keep, where the driver
              declares it can find them; the context is scrubbed.
  describe    labels read back from the surface (`describe`, `focused_element`,
              `pointer_element`, `surface_text`) are scrubbed (a page may echo a
              value it was given).
The wrapper offers what the driver inside declares (`wrappers.DriverWrapper`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from PIL import Image, ImageDraw

from venusctl.core.actions import Action, Sequence, Type, walk
from venusctl.core.errors import ActionFailed, VenusError
from venusctl.core.pictures import blur_boxes, encode
from venusctl.drivers.base import ActionResult, Driver, Element, Screen
from venusctl.drivers.capabilities import Capability, able
from venusctl.drivers.wrappers import DriverWrapper
from venusctl.safety.places import host_of, in_domains
from venusctl.safety.policy import SecretPermit
from venusctl.safety.redact import Redactor
from venusctl.safety.secrets import PLACEHOLDER, SecretStore, names_in

log = logging.getLogger(__name__)

Box = tuple[int, int, int, int]
MASK_COLOUR = (96, 96, 96)


class SecretDriver(DriverWrapper):
    def __init__(self, inner: Driver, store: SecretStore, redactor: Redactor,
                 permits: Mapping[str, SecretPermit] | None = None) -> None:
        super().__init__(inner)
        self.store = store
        self.redactor = redactor
        self.permits = dict(permits or {})

    # ------------------------------------------------------------------- acting
    def perform(self, action: Action) -> ActionResult:
        real = self._substitute(action)
        names = [n for a in walk(action) if isinstance(a, Type) for n in names_in(a.content)]
        if names:
            self._before_typing(names)
        try:
            result = self.inner.perform(real)
        except VenusError as exc:
            raise type(exc)(self.redactor.scrub(str(exc))) from None
        if result.feedback is None and not result.details:
            return result
        return ActionResult(
            self.redactor.scrub(result.feedback) if result.feedback else result.feedback,
            self.redactor.scrub_any(dict(result.details)),
        )

    def _substitute(self, action: Action) -> Action:
        if isinstance(action, Sequence):
            children = tuple(self._substitute(a) for a in action.actions)
            return action if children == action.actions else Sequence(children)
        if isinstance(action, Type) and PLACEHOLDER.search(action.content):
            return Type(PLACEHOLDER.sub(lambda m: self._value(m.group(1)), action.content))
        return action

    def _value(self, name: str) -> str:
        value = self.redactor.known(name)
        if value is None:
            value = self.store.get(name)
        if not value:
            raise ActionFailed(
                f"no secret named '{name}' is stored, so nothing was typed; ask the user with "
                f"CallUser (they can store it with `venusctl secret set {name}`)")
        self.redactor.add(name, value)
        return value

    def _before_typing(self, names: list[str]) -> None:
        """Check where the secrets go, remember the field, note the host they went to."""
        marker = able(self.inner, Capability.MARK_SECRET_FIELD)
        page_host = host_of(self.inner.context().url)
        host = page_host
        if marker is not None:
            host = host_of(marker.mark_secret_field()) or page_host
        for name in names:
            permit = self.permits.get(name)
            permitted = permit is not None and host is not None and in_domains(
                host, permit.domains)
            if host != page_host and not permitted:
                raise ActionFailed(
                    f"the focused field is in a frame from {host}, not from the page's site "
                    f"{page_host}; the secret {name} is typed there only where the policy "
                    f"permits it (secrets: {name}: {{domains: [...]}}), so nothing was typed")
            self.redactor.note_typed(name, host)

    # ---------------------------------------------------------------- observing
    def screenshot(self) -> Screen:
        screen = self.inner.screenshot()
        blurred = self._regions(Capability.SENSITIVE_REGIONS)
        masked = self._regions(Capability.SECRET_REGIONS)
        context = dataclasses.replace(
            screen.context, **{k: self.redactor.scrub(v) for k, v in
                               screen.context.as_dict().items()})
        notice = self.redactor.scrub(screen.notice) if screen.notice else screen.notice
        if not blurred and not masked:
            return dataclasses.replace(screen, context=context, notice=notice)
        image = screen.image
        sx, sy = image.width / screen.size.width, image.height / screen.size.height

        def scaled(boxes: list[Box]) -> list[Box]:
            return [(round(x * sx), round(y * sy), round(w * sx), round(h * sy))
                    for x, y, w, h in boxes]

        picture = paint_over(blur_boxes(image, scaled(blurred)), scaled(masked))
        kind = "jpeg" if screen.mime == "image/jpeg" else "png"
        return dataclasses.replace(screen, data=encode(picture, kind), context=context,
                                   notice=notice)

    def _regions(self, capability: Capability) -> list[Box]:
        """The boxes of one kind the inner driver finds, if it declares it can."""
        inner = able(self.inner, capability)
        if inner is None:
            return []
        locate = (inner.secret_regions if capability is Capability.SECRET_REGIONS
                  else inner.sensitive_regions)
        try:
            return [tuple(int(v) for v in box) for box in locate()]  # type: ignore[misc]
        except VenusError:
            raise
        except Exception as exc:  # a failed lookup must not stop the run
            log.debug("could not locate %s: %s", capability.method, exc)
            return []

    def describe(self, x: int, y: int) -> Element | None:
        return self._clean(self.inner.describe(x, y))

    def focused_element(self) -> Element | None:
        return self._clean(super().focused_element())

    def pointer_element(self) -> Element | None:
        return self._clean(super().pointer_element())

    def surface_text(self) -> str:
        return self.redactor.scrub(super().surface_text())

    def _clean(self, element: Element | None) -> Element | None:
        if element is None:
            return None
        values: dict[str, Any] = {}
        for key, value in element.__dict__.items():
            values[key] = self.redactor.scrub_any(value) if key != "bounds" else value
        return Element(**values)


def paint_over(image: Image.Image, boxes: list[Box]) -> Image.Image:
    """A copy with each box (image pixels) filled with one flat colour: nothing of what
    was there, not even its shape, survives."""
    if not boxes:
        return image
    out = image.convert("RGB") if image.mode not in ("RGB", "RGBA") else image.copy()
    draw = ImageDraw.Draw(out)
    for left, top, width, height in boxes:
        if width > 0 and height > 0:
            draw.rectangle((left, top, left + width - 1, top + height - 1), fill=MASK_COLOUR)
    return out
