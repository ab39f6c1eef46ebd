"""`venusctl do … --tui`: watch and steer a run live in the terminal.

The agent runs in a worker thread and reaches this app only through `LiveBridge`
(observer, confirmer, step gate), whose events arrive here as one textual message
type. The screen shows a header (task, model, surface, device, step n/max, elapsed),
the steps so far, the latest screenshot with its action drawn, and the model's
thought as it is decoded. Keys: p pause/resume, s single step, t take over (Enter
hands back), q abort (exit 130).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar

from PIL import Image
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Footer, Static

from venusctl.core.actions import Surface, describe_text
from venusctl.core.errors import ExitCode
from venusctl.present.halfblock import HalfBlockImage
from venusctl.records.store import Outcome, RunInfo
from venusctl.safety.confirm import Reply
from venusctl.safety.sanitize import shown, shown_line
from venusctl.tui.bridge import (
    Ask,
    Control,
    Ended,
    LiveBridge,
    ModelText,
    PhaseBegan,
    Started,
    StepDone,
    Waiting,
)
from venusctl.tui.modals import MODAL_CSS, ConfirmScreen, QuestionScreen

THOUGHT_TAIL = 4000
WORKER_GRACE_S = 10.0
Runner = Callable[[LiveBridge], Outcome]


class BridgeEvent(Message):
    """One event from the agent's thread (see `venusctl.tui.bridge`)."""

    def __init__(self, payload: Any) -> None:
        super().__init__()
        self.payload = payload


class WorkDone(Message):
    """The worker thread has returned (the run is over, or could not start)."""


class ScreenView(Widget):
    """The latest screenshot, drawn with half blocks to fit the widget."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.picture: Image.Image | None = None

    def show(self, picture: Image.Image) -> None:
        self.picture = picture
        self.refresh()

    def render(self) -> Any:
        if self.picture is None:
            return Text("waiting for the first screenshot…", style="dim")
        return HalfBlockImage(self.picture, max_rows=max(1, self.content_size.height))


class LiveApp(App[Outcome | None]):
    """The live view of one run."""

    CSS = MODAL_CSS + """
    #header { height: 2; padding: 0 1; background: $primary-darken-2; color: $text; }
    #body { height: 1fr; }
    #steps { width: 42%; border: round $secondary; }
    #right { width: 58%; }
    #screen { height: 2fr; border: round $accent; }
    #thought { height: 1fr; border: round $secondary; padding: 0 1; }
    #status { height: 1; padding: 0 1; background: $boost; }
    .step { margin-bottom: 1; }
    """
    BINDINGS: ClassVar = [
        Binding("p", "pause", "Pause/resume"),
        Binding("s", "step", "Single step"),
        Binding("t", "take_over", "Take over"),
        Binding("enter", "hand_back", "Hand back"),
        Binding("q", "abort", "Abort / close"),
        Binding("ctrl+c", "abort", "Abort", show=False, priority=True),
    ]

    def __init__(self, runner: Runner, task: str, max_steps: int,
                 control: Control | None = None) -> None:
        super().__init__()
        self.runner = runner
        self.task_text = task
        self.max_steps = max_steps
        self.control = control or Control()
        self.bridge = LiveBridge(self.post_message_from_agent, self.control)
        self.info: RunInfo | None = None
        self.outcome: Outcome | None = None
        self.failure: BaseException | None = None
        self.work_done = False
        self.current_step = 0
        self.phase_name = "starting"
        self.steps: list[dict[str, Any]] = []
        self._thought = ""
        self._thread: threading.Thread | None = None

    # ---------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield Static(id="header", markup=False)
        with Horizontal(id="body"):
            yield VerticalScroll(id="steps")
            with Vertical(id="right"):
                yield ScreenView(id="screen")
                yield VerticalScroll(Static(id="thought-text", markup=False), id="thought")
        yield Static(id="status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#steps").border_title = "steps"
        self.query_one("#screen").border_title = "screen"
        self.query_one("#thought").border_title = "thought"
        self._refresh_header()
        self._set_status("starting: loading the model and the surface…")
        self.set_interval(1.0, self._refresh_header)
        self._thread = threading.Thread(target=self._work, name="venusctl-agent", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        try:
            self.outcome = self.runner(self.bridge)
        except BaseException as exc:  # handed to the main thread after the app closes
            self.failure = exc
        finally:
            self.post_message(WorkDone())

    def join_worker(self, timeout: float) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def post_message_from_agent(self, payload: Any) -> None:
        self.post_message(BridgeEvent(payload))

    # ---------------------------------------------------------------- events
    def on_bridge_event(self, message: BridgeEvent) -> None:
        handlers: dict[type, Callable[[Any], None]] = {
            Started: self._started, PhaseBegan: self._phase, ModelText: self._text,
            StepDone: self._step_done, Ended: self._ended, Waiting: self._waiting,
            Ask: self._ask,
        }
        handler = handlers.get(type(message.payload))
        if handler is not None:
            handler(message.payload)

    def _started(self, event: Started) -> None:
        self.info = event.info
        self.max_steps = int(event.info.settings.get("max_steps") or self.max_steps)
        self._refresh_header()

    def _phase(self, event: PhaseBegan) -> None:
        if event.step != self.current_step:
            self._thought = ""
            self.query_one("#thought-text", Static).update("")
        self.current_step, self.phase_name = event.step, event.name
        self._refresh_header()
        if not (self.control.paused or self.control.taking_over):
            words = "the model is thinking…" if event.name == "model" else f"{event.name}…"
            self._set_status(f"step {event.step}: {words}")

    def _text(self, event: ModelText) -> None:
        self._thought = (self._thought + event.text)[-THOUGHT_TAIL:]
        self.query_one("#thought-text", Static).update(
            shown(readable_answer(self._thought), newlines=True))
        self.query_one("#thought", VerticalScroll).scroll_end(animate=False)

    def _step_done(self, event: StepDone) -> None:
        self.steps.append(event.step)
        entry = Static(self._step_text(event.step), classes="step")
        steps = self.query_one("#steps", VerticalScroll)
        steps.mount(entry)
        steps.scroll_end(animate=False)
        if event.picture is not None:
            self.query_one("#screen", ScreenView).show(event.picture)

    def _ended(self, event: Ended) -> None:
        self.outcome = event.outcome

    def _waiting(self, event: Waiting) -> None:
        self.current_step = max(self.current_step, event.step - 1)
        self._show_control_state(event.step)

    def _ask(self, event: Ask) -> None:
        if event.kind == "confirm":
            self._show_crop(event.payload.crop_path)
            self.push_screen(ConfirmScreen(event.payload), lambda reply: self._answer(
                event, reply if reply is not None else Reply.NO))
        elif event.kind == "question":
            self.push_screen(QuestionScreen(str(event.payload)),
                             lambda reply: event.answer.put(reply))
        else:  # a take-over chosen at a confirmation
            self._show_control_state(self.current_step + 1)

    def _show_crop(self, path: str | None) -> None:
        """The guard's crop of the pending action, when it saved one, replaces the screen."""
        if not path:
            return
        try:
            with Image.open(path) as crop:
                crop.load()
                self.query_one("#screen", ScreenView).show(crop.convert("RGB"))
        except OSError:
            return

    def _answer(self, event: Ask, reply: Reply) -> None:
        if reply is Reply.TAKEOVER:
            self.control.take_over()
        event.answer.put(reply)
        self._show_control_state(self.current_step + 1)

    def on_work_done(self, message: WorkDone) -> None:
        self.work_done = True
        if self.control.aborted or self.failure is not None:
            self.exit(self.outcome)
            return
        outcome = self.outcome
        if outcome is not None:
            text = f"{outcome.status} after {outcome.steps} step(s)"
            if outcome.message:
                text += f": {shown_line(outcome.message)}"
            self._set_status(f"{text} — press q to close")
        self._refresh_header()

    # --------------------------------------------------------------- actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Grey out keys that do nothing now (the footer follows)."""
        if action == "hand_back":
            return True if self.control.taking_over else None
        if action in ("pause", "step", "take_over"):
            return None if self.work_done else True
        return True

    def action_pause(self) -> None:
        if not self.work_done:
            self.control.toggle_pause()
            self._show_control_state(self.current_step + 1)

    def action_step(self) -> None:
        if not self.work_done:
            self.control.single_step()
            self._show_control_state(self.current_step + 1)

    def action_take_over(self) -> None:
        if not self.work_done:
            self.control.take_over()
            self._show_control_state(self.current_step + 1)

    def action_hand_back(self) -> None:
        if self.control.hand_back():
            self._show_control_state(self.current_step + 1)

    def action_abort(self) -> None:
        if self.work_done:
            self.exit(self.outcome)
        elif self.control.aborted:  # a second q: stop waiting for the worker
            self.exit(None)
        else:
            self.control.abort()
            self._set_status("aborting… (q again to leave at once)")

    # ---------------------------------------------------------------- helpers
    def _show_control_state(self, next_step: int) -> None:
        if self.control.taking_over:
            self._set_status("taken over: the surface is yours — press Enter to hand it back")
        elif self.control.paused:
            self._set_status(f"paused before step {next_step} — p resume, s one step, q abort")
        else:
            self._set_status(f"running step {max(self.current_step, 1)}")

    def _set_status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)
        self.refresh_bindings()

    def _refresh_header(self) -> None:
        info = self.info
        elapsed = time.time() - info.started_at if info else 0.0
        if self.work_done and self.outcome is not None and info is not None:
            elapsed = self.outcome.ended_at - info.started_at
        model = info.model if info else "…"
        where = _where(info) if info else "…"
        line1 = f"venusctl · {shown_line(self.task_text)}"
        line2 = (f"model {shown_line(model)} · {shown_line(where)} · "
                 f"step {self.current_step}/{self.max_steps} · "
                 f"{int(elapsed) // 60:d}:{int(elapsed) % 60:02d}")
        self.query_one("#header", Static).update(f"{line1}\n{line2}")

    def _step_text(self, step: dict[str, Any]) -> Text:
        surface = self.info.surface if self.info else Surface.BROWSER.value
        text = Text()
        text.append(f"{step.get('step')} ", style="bold")
        action = step.get("action")
        text.append(shown_line(describe_text(str(action), surface) if action else "(no action)"))
        verdict = (step.get("verdict") or {}).get("decision")
        if verdict:
            colour = {"allow": "green", "confirm": "yellow", "deny": "red"}.get(verdict, "")
            text.append(f"  {verdict}", style=colour)
        if step.get("reply"):
            text.append(f" → {shown_line(step['reply'])}")
        if step.get("error"):
            text.append(f"\n  {shown_line(step['error'])}", style="red")
        timings = step.get("timings") or {}
        spent = " ".join(f"{k} {v:.2f}s" for k, v in timings.items() if v >= 0.005)
        if spent:
            text.append(f"\n  {spent}", style="dim")
        thought = shown_line(step.get("thought") or "", 160)
        if thought:
            text.append(f"\n  {thought}", style="italic dim")
        return text


def readable_answer(text: str) -> str:
    """The streamed answer without its tags: the thought, then the action on its own line."""
    for tag, replacement in (("<think>", ""), ("</think>", "\n"), ("<action>", "\n→ "),
                             ("</action>", "")):
        text = text.replace(tag, replacement)
    return text.strip()


def _where(info: RunInfo) -> str:
    settings = info.settings
    device = settings.get("device") or settings.get("url") or settings.get("monitor")
    return f"{info.surface} ({info.driver}{': ' + str(device) if device else ''})"


# ---------------------------------------------------------------------- running


def run_app(app: LiveApp) -> Outcome:
    """Run the app in this thread; the run's outcome, or the worker's error re-raised.

    A SIGTERM (raised as KeyboardInterrupt by the CLI) aborts the agent and waits a
    little for it, so the record is closed and the surface released before leaving.
    """
    try:
        app.run()
    except KeyboardInterrupt:
        app.control.abort()
        app.join_worker(WORKER_GRACE_S)
        raise
    if app.failure is not None:
        raise app.failure
    if app.outcome is not None:
        return app.outcome
    return Outcome("interrupted", ExitCode.INTERRUPTED, "left the live view before the run ended")


def run_with_tui(request: Any) -> Outcome:
    """`venusctl do --tui`: the same run as `run_task`, shown and steered live."""
    from venusctl.run.build import run_task

    quiet = dataclasses.replace(request, output="quiet")

    def runner(bridge: LiveBridge) -> Outcome:
        return run_task(quiet, confirmer=bridge, observers=[bridge], gate=bridge)

    return run_app(LiveApp(runner, request.task, request.settings.max_steps))


def check_terminal(json_out: bool) -> None:
    """The live view needs a terminal on both ends and cannot share stdout with JSON."""
    import sys

    from venusctl.core.errors import UsageError

    if json_out:
        raise UsageError("--tui and --json cannot be combined: the live view owns the terminal")
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("--tui needs an interactive terminal; drop --tui in scripts and pipes")
