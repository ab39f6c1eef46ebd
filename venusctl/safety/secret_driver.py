"""The driver wrapper that types secrets and keeps them, and password fields, unseen.

Wrapped around every driver of a run (dry-run wraps it in turn):
  perform     `{{secret:NAME}}` in a `Type` becomes the keyring's value just before
              the inner driver presses the keys; the value is taught to the run's
              `Redactor`, and any error or feedback coming back is scrubbed of it.
  screenshot  password (and card) fields the driver can locate, through its
              optional `sensitive_regions()`, are blurred in the image the model
              sees and the record keeps; the context is scrubbed.
  describe    labels read back from the surface are scrubbed (a page may echo a
              value it was given).
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from venusctl.actions import Action, Sequence, Type
from venusctl.drivers.base import ActionResult, Driver, DriverWrapper, Element, Screen
from venusctl.errors import ActionFailed, VenusError
from venusctl.pictures import blur_boxes, encode
from venusctl.safety.redact import Redactor
from venusctl.secrets import PLACEHOLDER, SecretStore

log = logging.getLogger(__name__)

Box = tuple[int, int, int, int]


class SecretDriver(DriverWrapper):
    def __init__(self, inner: Driver, store: SecretStore, redactor: Redactor) -> None:
        super().__init__(inner)
        self.store = store
        self.redactor = redactor

    # ------------------------------------------------------------------- acting
    def perform(self, action: Action) -> ActionResult:
        real = self._substitute(action)
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

    # ---------------------------------------------------------------- observing
    def screenshot(self) -> Screen:
        screen = self.inner.screenshot()
        boxes = self._sensitive()
        context = dataclasses.replace(
            screen.context, **{k: self.redactor.scrub(v) for k, v in
                               screen.context.as_dict().items()})
        if not boxes:
            return screen if context == screen.context else dataclasses.replace(
                screen, context=context)
        image = screen.image
        sx, sy = image.width / screen.size.width, image.height / screen.size.height
        scaled = [(round(x * sx), round(y * sy), round(w * sx), round(h * sy))
                  for x, y, w, h in boxes]
        kind = "jpeg" if screen.mime == "image/jpeg" else "png"
        data = encode(blur_boxes(image, scaled), kind)
        return dataclasses.replace(screen, data=data, context=context)

    def _sensitive(self) -> list[Box]:
        locate = getattr(self.inner, "sensitive_regions", None)
        if not callable(locate):
            return []
        try:
            return [tuple(int(v) for v in box) for box in locate()]  # type: ignore[misc]
        except VenusError:
            raise
        except Exception as exc:  # a failed lookup must not stop the run
            log.debug("could not locate sensitive fields: %s", exc)
            return []

    def describe(self, x: int, y: int) -> Element | None:
        return self._clean(self.inner.describe(x, y))

    def focused_element(self) -> Element | None:
        focused = getattr(self.inner, "focused_element", None)
        return self._clean(focused()) if callable(focused) else None

    def _clean(self, element: Element | None) -> Element | None:
        if element is None:
            return None
        values: dict[str, Any] = {}
        for key, value in element.__dict__.items():
            values[key] = self.redactor.scrub_any(value) if key != "bounds" else value
        return Element(**values)
