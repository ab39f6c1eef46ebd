"""The model seam and the plain values that cross it.

Messages are our own small dataclasses rather than OpenAI dictionaries so that
images travel as bytes with a stable key (the prefix cache of the local backend
recognises an image it has already encoded) and each backend converts them to its
own wire format in one place.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, Union, runtime_checkable

if TYPE_CHECKING:
    from venusctl.core.actions import Surface
    from venusctl.interface.profile import InterfaceProfile

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class TextPart:
    text: str


@dataclass(frozen=True)
class ImagePart:
    """An encoded image; `key` identifies its content for caching."""

    data: bytes = field(repr=False)
    mime: str = "image/png"

    @property
    def key(self) -> str:
        return hashlib.sha1(self.data).hexdigest()

    def data_uri(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"


Part = Union[TextPart, ImagePart]  # noqa: UP007


@dataclass(frozen=True)
class Message:
    role: Role
    parts: tuple[Part, ...] = ()

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def images(self) -> list[ImagePart]:
        return [p for p in self.parts if isinstance(p, ImagePart)]

    def to_openai(self) -> dict[str, object]:
        """The OpenAI chat-completions form: a plain string when there is no image."""
        if not self.images:
            return {"role": self.role, "content": self.text}
        content: list[dict[str, object]] = []
        for part in self.parts:
            if isinstance(part, TextPart):
                content.append({"type": "text", "text": part.text})
            else:
                content.append({"type": "image_url", "image_url": {"url": part.data_uri()}})
        return {"role": self.role, "content": content}


@dataclass(frozen=True)
class SamplingOptions:
    """How to decode one answer. `thinking` selects the template's reasoning mode.

    The defaults are neutral (no penalties, top_p 1); each surface's own values come
    from its interface profile through `sampling_for`.
    """

    max_tokens: int = 4096
    temperature: float = 0.0
    top_p: float = 1.0
    repeat_penalty: float = 1.0
    frequency_penalty: float = 0.0
    thinking: bool = True
    grammar: str | None = None
    seed: int | None = None


def sampling_for(
    profile: InterfaceProfile, temperature: float | None = None, max_tokens: int | None = None
) -> SamplingOptions:
    """The profile's decoding settings; the user's temperature and max tokens win."""
    return SamplingOptions(
        max_tokens=max_tokens if max_tokens is not None else profile.max_tokens,
        temperature=temperature if temperature is not None else profile.temperature,
        top_p=profile.top_p if profile.top_p is not None else 1.0,
        repeat_penalty=profile.repetition_penalty or 1.0,
        frequency_penalty=profile.frequency_penalty or 0.0,
        thinking=profile.thinking,
    )


OnText = Callable[[str], None]


@dataclass(frozen=True)
class Completion:
    """One answer and what it cost. `text` includes `<think>…</think>` when known.

    `source` says where the answer came from: "asked" (a model, scripted or real,
    answered) or "replayed" (the trajectory cache gave a recorded answer).
    """

    text: str
    reasoning: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reused_tokens: int = 0
    image_tokens: int = 0
    prefill_s: float = 0.0
    decode_s: float = 0.0
    total_s: float = 0.0
    source: str = "asked"

    def stats(self) -> dict[str, float | int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reused_tokens": self.reused_tokens,
            "image_tokens": self.image_tokens,
            "prefill_s": round(self.prefill_s, 4),
            "decode_s": round(self.decode_s, 4),
            "total_s": round(self.total_s, 4),
        }


@runtime_checkable
class Model(Protocol):
    """Anything that answers a list of messages.

    `surface` is the kind of screen the answers act on (None: not known): a backend
    that supports grammars constrains its answers to that surface's actions, and a
    model shared by a batch's tasks is told each task's surface before it answers.
    """

    name: str
    supports_grammar: bool
    surface: Surface | None

    def complete(
        self, messages: list[Message], options: SamplingOptions, on_text: OnText | None = None
    ) -> Completion:
        """Answer the conversation; `on_text` receives text as it is decoded."""
        ...

    def close(self) -> None:
        """Free the model's memory and connections."""
        ...
