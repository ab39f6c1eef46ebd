"""The conversation the model sees at each step, laid out as its authors' harness does.

Layout (navigation), with labels and counts from the surface's interface profile
(`venusctl.interface.profile`):
  system     the surface's prompt with the task at its end (date, password and secret
             notes filled in where the surface needs them); the task is not repeated.
  per earlier step (mobile, desktop: every step)
    user       that step's feedback, then the history label and its image for the
               last N steps only; an empty text when there is neither
    assistant  that step's full answer, `<think>…</think>` and `<action>…</action>`
  current    user: feedback, then `Current Screenshot:\\n` and the image.

The browser keeps only the last two steps, each exactly as it was sent (feedback,
the notes taken so far, the image: no labels), before the current message built
the same way.

With N = 0 no old images are sent and every earlier message stays byte-identical
from one step to the next, so the prompt only grows at its end and a prefix cache
stays valid.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from venusctl.core.actions import Surface
from venusctl.core.errors import UsageError
from venusctl.interface.profile import InterfaceProfile, authors_profile
from venusctl.model.base import ImagePart, Message, Part, TextPart
from venusctl.safety.secrets import NO_PASSWORD, NO_SECRETS


@dataclass(frozen=True)
class Turn:
    """One finished step as the conversation remembers it.

    `note` is what a `TakeNote` of this step wrote down (the browser shows every
    note taken so far in each later user message).
    """

    answer: str
    image: ImagePart | None = None
    feedback: str | None = None
    note: str | None = None


def load_template(surface: Surface | str, path: Path | None = None,
                  source: str = "builtin") -> str:
    """The prompt template: the user's file when given, else the authors' pulled texts
    (`source="authors"`, see `venusctl.interface.authors_prompts`), else the shipped one."""
    if path is not None:
        return _user_template(path)
    name = surface.value if isinstance(surface, Surface) else str(surface)
    if source == "authors":
        from venusctl.interface.authors_prompts import authors_template

        return authors_template(name)
    if source != "builtin":
        raise UsageError(f"unknown --prompts '{source}'; choose authors or builtin")
    return builtin_template(name)


def builtin_template(name: str) -> str:
    """venusctl's own template of a surface (package data, `prompts/<surface>.md`)."""
    prompt = authors_profile(name).prompt
    text = resources.files("venusctl.prompts").joinpath(prompt).read_text(encoding="utf-8")
    return text.rstrip("\n")


def _user_template(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise UsageError(f"cannot read prompt file {path}: {reason}") from None
    if "{task}" not in text and "{instruction}" not in text:
        raise UsageError(f"prompt file {path} has no {{task}} placeholder")
    return text


def system_prompt(
    template: str,
    task: str,
    today: dt.date | None = None,
    password_note: str = NO_PASSWORD,
    secrets_note: str = NO_SECRETS,
) -> str:
    """Fill the template's placeholders; other braces in a user's template stay as they are.

    The date is written in ISO form (2026-08-27), as the authors' browser harness does.
    """
    date = (today or dt.date.today()).isoformat()
    return (
        template.replace("{date}", date)
        .replace("{password}", password_note)
        .replace("{secrets}", secrets_note)
        .replace("{task}", task.strip())
    )


def build(
    system: str,
    history: list[Turn],
    current_image: ImagePart,
    feedback: str | None = None,
    history_images: int | None = None,
    profile: InterfaceProfile | None = None,
) -> list[Message]:
    """The full message list for the current step (`profile`: mobile's when not given;
    `history_images`: the profile's N when not given)."""
    profile = profile or authors_profile("mobile")
    n_images = profile.history_images if history_images is None else history_images
    if profile.history_turns is not None:
        return _whole_turns(system, history, current_image, feedback, n_images, profile)
    messages = [Message("system", (TextPart(system),))]
    first_with_image = len(history) - n_images if n_images > 0 else len(history)
    for index, turn in enumerate(history):
        image = turn.image if index >= first_with_image else None
        parts = _labelled(turn.feedback, profile.history_label, image)
        messages.append(Message("user", parts))
        messages.append(Message("assistant", (TextPart(turn.answer),)))
    current = _labelled(feedback, profile.current_label, current_image)
    messages.append(Message("user", current))
    return messages


def _labelled(feedback: str | None, label: str | None, image: ImagePart | None
              ) -> tuple[Part, ...]:
    """Feedback, then the label and the image (mobile and desktop); an empty text when
    there is nothing to say, as the authors send it."""
    parts: list[Part] = []
    if feedback and feedback.strip():
        parts.append(TextPart(feedback.strip() + "\n"))
    if image is not None:
        if label:
            parts.append(TextPart(label))
        parts.append(image)
    if not parts:
        return (TextPart(""),)
    if len(parts) == 1 and isinstance(parts[0], TextPart):
        return (TextPart(parts[0].text.rstrip("\n")),)
    return tuple(parts)


def _whole_turns(system: str, history: list[Turn], current_image: ImagePart,
                 feedback: str | None, n_images: int, profile: InterfaceProfile
                 ) -> list[Message]:
    """The browser's layout: the last `history_turns` steps as they were sent."""
    keep = profile.history_turns or 0
    start = max(0, len(history) - keep)
    notes: list[str] = [t.note for t in history[:start] if t.note]
    messages = [Message("system", (TextPart(system),))]
    for index in range(start, len(history)):
        turn = history[index]
        image = turn.image if len(history) - index <= n_images else None
        messages.append(Message("user", _noted(turn.feedback, notes, profile, image)))
        messages.append(Message("assistant", (TextPart(turn.answer),)))
        if turn.note:
            notes.append(turn.note)
    messages.append(Message("user", _noted(feedback, notes, profile, current_image)))
    return messages


def _noted(feedback: str | None, notes: list[str], profile: InterfaceProfile,
           image: ImagePart | None) -> tuple[Part, ...]:
    parts: list[Part] = []
    if feedback and feedback.strip():
        parts.append(TextPart(feedback.strip() + "\n"))
    if notes and profile.notes_label:
        parts.append(TextPart(profile.notes_label + "\n- ".join(notes) + "\n"))
    if image is not None:
        parts.append(image)
    return tuple(parts) or (TextPart(""),)


def grounding(template: str, instruction: str, image: ImagePart) -> list[Message]:
    """One user message, no system message: the image, then the instruction.

    A trailing full stop of the instruction is dropped, since the template adds its
    own (as the authors' grounding harness does).
    """
    cleaned = instruction.strip()
    if cleaned.endswith("."):
        cleaned = cleaned[:-1]
    text = template.replace("{instruction}", cleaned).strip()
    return [Message("user", (image, TextPart(text)))]
