"""Rendering our messages with the chat template embedded in the GGUF.

The template is the model's interface (roles, think blocks, what earlier turns
keep), so we use the one the model ships with rather than a copy of our own. Each
image becomes libmtmd's media marker in the text; libmtmd adds the vision start and
end tokens around the image itself, as llama.cpp's own handlers do.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from venusctl.core.errors import ModelError
from venusctl.model.base import ImagePart, Message, TextPart


@dataclass(frozen=True)
class Rendered:
    text: str
    images: list[ImagePart]

    @property
    def think_opened(self) -> bool:
        """The generation prompt already opened the thought (`…<think>\\n`)."""
        return self.text.rstrip().endswith("<think>")


class ChatTemplate:
    """A compiled Jinja chat template (sandboxed, as llama-cpp-python does)."""

    def __init__(self, source: str, bos: str = "", eos: str = "") -> None:
        import jinja2
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        environment = ImmutableSandboxedEnvironment(
            trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
        environment.filters["tojson"] = _tojson
        try:
            self.template = environment.from_string(source)
        except jinja2.TemplateError as exc:
            raise ModelError(f"the model's chat template is invalid: {exc}") from None
        self.bos = bos
        self.eos = eos

    def render(self, messages: list[Message], marker: str, thinking: bool) -> Rendered:
        images: list[ImagePart] = []
        converted = [_convert(message, marker, images) for message in messages]
        try:
            text = self.template.render(
                messages=converted, add_generation_prompt=True, enable_thinking=thinking,
                bos_token=self.bos, eos_token=self.eos, raise_exception=_raise,
                strftime_now=lambda fmt: dt.datetime.now().strftime(fmt), tools=None,
            )
        except Exception as exc:
            raise ModelError(f"the model's chat template failed: {exc}") from None
        if text.count(marker) != len(images):
            raise ModelError("the chat template dropped or repeated an image")
        return Rendered(text, images)


def _convert(message: Message, marker: str, images: list[ImagePart]) -> dict[str, Any]:
    """A plain-string message, with the marker where each image goes."""
    pieces = []
    for part in message.parts:
        if isinstance(part, TextPart):
            pieces.append(part.text.replace(marker, " "))
        else:
            images.append(part)
            pieces.append(marker)
    return {"role": message.role, "content": "".join(pieces)}


def _raise(message: str) -> None:
    raise ModelError(f"the model's chat template refused the messages: {message}")


def _tojson(value: Any, indent: int | None = None) -> str:
    import json

    return json.dumps(value, indent=indent, ensure_ascii=False)
