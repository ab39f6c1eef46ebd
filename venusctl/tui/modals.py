"""The live view's dialogs: a safety confirmation, the model's question, a take-over.

Each dialog dismisses with the person's answer; the app hands that answer back to
the waiting agent thread. The confirmation offers the same five answers, with the
same letters, as the terminal prompt (`venusctl.safety.confirm`).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from venusctl.safety.confirm import ConfirmRequest, Reply, confirm_lines
from venusctl.safety.sanitize import shown

MODAL_CSS = """
ConfirmScreen, QuestionScreen { align: center middle; }
#dialog { width: 90; max-width: 95%; height: auto; border: thick $warning;
          background: $surface; padding: 1 2; }
#dialog .title { text-style: bold; color: $warning; margin-bottom: 1; }
#dialog Horizontal { height: auto; margin-top: 1; }
#dialog Button { margin-right: 1; min-width: 10; }
"""

_ANSWERS = (
    ("y", Reply.YES, "Yes, once", "success"),
    ("n", Reply.NO, "No", "primary"),
    ("a", Reply.ALWAYS, "Always this run", "default"),
    ("t", Reply.TAKEOVER, "Take over", "default"),
    ("q", Reply.ABORT, "Abort run", "error"),
)


def confirm_text(request: ConfirmRequest) -> str:
    """The facts a person needs to decide, one per line (plain text, no markup): the
    same sanitized lines as the terminal prompt, decisive ones last."""
    return "\n".join(line.strip() for line in confirm_lines(request)[2:])


class ConfirmScreen(ModalScreen[Reply]):
    """Ask whether a gated action may run: y / n / a / t / q, or click a button."""

    BINDINGS = [  # noqa: RUF012 - textual's declared class attribute
        *(Binding(key, f"answer('{reply.value}')", label, show=False)
          for key, reply, label, _ in _ANSWERS),
        Binding("escape", "answer('no')", "No", show=False),
    ]

    def __init__(self, request: ConfirmRequest) -> None:
        super().__init__()
        self.request = request

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(f"Confirmation needed (step {self.request.step})", classes="title",
                         markup=False)
            yield Static(confirm_text(self.request), id="confirm-text", markup=False)
            with Horizontal():
                for key, reply, label, variant in _ANSWERS:
                    yield Button(f"{key} · {label}", id=f"answer-{reply.value}",
                                 variant=variant)  # type: ignore[arg-type]

    def action_answer(self, value: str) -> None:
        self.dismiss(Reply(value))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id and event.button.id.startswith("answer-"):
            self.dismiss(Reply(event.button.id.removeprefix("answer-")))


class QuestionScreen(ModalScreen[str | None]):
    """The model asks the person something (`CallUser`); Enter sends, Escape declines."""

    BINDINGS = [Binding("escape", "decline", "Decline", show=False)]  # noqa: RUF012

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static("The agent asks", classes="title")
            yield Static(shown(self.question, newlines=True), id="question-text",
                         markup=False)
            yield Input(placeholder="your reply, then Enter (Escape: no reply)", id="reply")

    def on_mount(self) -> None:
        self.query_one("#reply", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_decline(self) -> None:
        self.dismiss(None)
