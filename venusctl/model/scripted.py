"""A model that plays back answers from a file, one per step.

Tests use it to drive the real loop against real surfaces; people use it to replay
a run or to try a driver without loading a model. Files are JSON lines (each line a
string, or an object with `text` and optional `reasoning`) or plain text with one
answer per blank-line-separated block.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from venusctl.core.actions import Surface
from venusctl.core.errors import ModelError, UsageError
from venusctl.model.base import Completion, Message, OnText, SamplingOptions


class ScriptedModel:
    """Answers in order; running out of answers is a model error (exit 5)."""

    supports_grammar = False

    def __init__(self, answers: list[Completion], name: str = "scripted") -> None:
        self.answers = list(answers)
        self.name = name
        self.surface: Surface | None = None  # recorded answers need no grammar
        self.calls: list[list[Message]] = []

    @classmethod
    def from_file(cls, path: Path) -> ScriptedModel:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise UsageError(f"answers file not found: {path}") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read answers file {path}: {exc}") from None
        answers = parse_answers(text, str(path))
        if not answers:
            raise UsageError(f"answers file {path} holds no answers")
        return cls(answers, name=f"scripted:{path.name}")

    def complete(
        self, messages: list[Message], options: SamplingOptions, on_text: OnText | None = None
    ) -> Completion:
        started = time.perf_counter()
        self.calls.append(messages)
        if len(self.calls) > len(self.answers):
            raise ModelError(
                f"the scripted model has no answer for call {len(self.calls)} "
                f"(it holds {len(self.answers)})"
            )
        answer = self.answers[len(self.calls) - 1]
        if on_text is not None:
            on_text(answer.text)
        return Completion(
            text=answer.text,
            reasoning=answer.reasoning,
            completion_tokens=len(answer.text.split()),
            total_s=time.perf_counter() - started,
        )

    def close(self) -> None:
        return None


def parse_answers(text: str, source: str = "answers") -> list[Completion]:
    """Read answers as JSON lines when the file looks like JSON, else as text blocks."""
    stripped = text.lstrip()
    if stripped.startswith(("{", '"')):
        return _json_lines(text, source)
    blocks = [block.strip() for block in text.replace("\r\n", "\n").split("\n\n")]
    return [Completion(text=block) for block in blocks if block]


def _json_lines(text: str, source: str) -> list[Completion]:
    answers = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{source}:{number}: not valid JSON ({exc.msg})") from None
        if isinstance(value, str):
            answers.append(Completion(text=value))
        elif isinstance(value, dict) and isinstance(value.get("text"), str):
            reasoning = value.get("reasoning")
            answers.append(
                Completion(text=value["text"], reasoning=reasoning if reasoning else None)
            )
        else:
            raise UsageError(
                f"{source}:{number}: each line must be a string or an object with \"text\""
            )
    return answers
