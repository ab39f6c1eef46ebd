"""The conversation the model sees at each step, laid out as it was trained.

Layout (navigation):
  system     the surface's prompt with the task at its end (date, password and secret notes
             filled in where the surface needs them); the task is not repeated.
  per earlier step
    user       that step's feedback text, then "History Screenshot:" and its image
               for the last N steps only, else just the feedback (often empty)
    assistant  that step's full answer, `<think>…</think>` and `<action>…</action>`
  current    user: feedback, then "Current Screenshot:" and the image.

With N = 0 no old images are sent and every earlier message stays byte-identical
from one step to the next, so the prompt only grows at its end and a prefix cache
stays valid.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from venusctl.actions import Surface
from venusctl.errors import UsageError
from venusctl.model.base import ImagePart, Message, Part, TextPart

HISTORY_LABEL = "History Screenshot:"
CURRENT_LABEL = "Current Screenshot:"
NO_PASSWORD = "No password for this machine is known; use CallUser if one is asked for."
NO_SECRETS = ("No stored passwords or codes are available; if one is needed, ask the person "
              "with CallUser.")
TEMPLATE_FIELDS = ("{task}", "{date}", "{password}", "{secrets}")


@dataclass(frozen=True)
class Turn:
    """One finished step as the conversation remembers it."""

    answer: str
    image: ImagePart | None = None
    feedback: str | None = None


def load_template(surface: Surface | str, path: Path | None = None) -> str:
    """The prompt template: the user's file when given, else the shipped one."""
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot read prompt file {path}: {exc.strerror or exc}") from None
        if "{task}" not in text and "{instruction}" not in text:
            raise UsageError(f"prompt file {path} has no {{task}} placeholder")
        return text
    name = f"{Surface(surface).value if surface != 'grounding' else 'grounding'}.md"
    return resources.files("venusctl.prompts").joinpath(name).read_text(encoding="utf-8")


def system_prompt(
    template: str,
    task: str,
    today: dt.date | None = None,
    password_note: str = NO_PASSWORD,
    secrets_note: str = NO_SECRETS,
) -> str:
    """Fill the template's placeholders; other braces in a user's template stay as they are."""
    date = (today or dt.date.today()).strftime("%A, %d %B %Y")
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
    history_images: int = 0,
) -> list[Message]:
    """The full message list for the current step."""
    messages = [Message("system", (TextPart(system),))]
    first_with_image = len(history) - history_images if history_images > 0 else len(history)
    for index, turn in enumerate(history):
        image = turn.image if index >= first_with_image else None
        messages.append(Message("user", _user_parts(turn.feedback, HISTORY_LABEL, image)))
        messages.append(Message("assistant", (TextPart(turn.answer),)))
    messages.append(Message("user", _user_parts(feedback, CURRENT_LABEL, current_image)))
    return messages


def _user_parts(feedback: str | None, label: str, image: ImagePart | None) -> tuple[Part, ...]:
    lead = feedback.strip() + "\n" if feedback and feedback.strip() else ""
    if image is None:
        return (TextPart(lead.rstrip("\n")),)
    return (TextPart(lead + label), image)


def grounding(template: str, instruction: str, image: ImagePart) -> list[Message]:
    """One user message, no system message: the image, then the instruction."""
    text = template.replace("{instruction}", instruction.strip()).strip()
    return [Message("user", (image, TextPart(text)))]
