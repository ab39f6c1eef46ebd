"""A recorded run as one self-contained HTML page, or as an animated GIF.

People read a run to learn what the agent saw, what it thought, what it did and
where the time went. The page embeds every image (base64) and its chart (inline
SVG) so it can be mailed, attached to a bug or opened offline years later; it loads
nothing from anywhere. Screenshots are annotated by `venusctl.core.pictures`, the same
code that draws the live view and the safety crop. The page is `templates/report.html.j2`,
rendered with autoescape on (`venusctl.present.render`): this module only gathers the
values, as plain text, and never writes markup itself.
"""

from __future__ import annotations

import base64
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from markupsafe import Markup
from PIL import Image, UnidentifiedImageError

from venusctl.core import pictures
from venusctl.core.actions import Surface, describe_text
from venusctl.core.errors import UsageError
from venusctl.drivers.base import Element
from venusctl.present import timeline
from venusctl.present.render import render
from venusctl.records.store import StepRecord, StoredRun

REPORT_FILE = "report.html"
IMAGE_WIDTH = 1100
GIF_WIDTH = 640
GIF_FRAME_MS = 1200
GIF_LAST_FRAME_MS = 3000


@dataclass(frozen=True)
class Row:
    """One line of a key/value table: `style` is "code", a CSS class for a span, or ""."""

    label: str
    value: str
    style: str = ""
    note: str = ""


# ----------------------------------------------------------------------- public


def default_output(run: StoredRun) -> Path:
    return run.path / REPORT_FILE


def write_report(run: StoredRun, out: Path | None = None) -> Path:
    """Write the HTML report (default: report.html in the run folder); return its path."""
    target = out or default_output(run)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(build_html(run), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write the report to {target}: {exc.strerror}") from None
    return target


def build_html(run: StoredRun) -> str:
    """The whole page as one string."""
    steps = run.steps()
    record = run.record
    chart = timeline.svg(steps)
    page = {
        "title": record.task or run.run_id, "task": record.task, "run_id": run.run_id,
        "when": _when(record.started_at), "driver": record.driver,
        "surface": record.surface or "", "model": record.model,
        "summary": _summary(run, steps), "settings": _settings(record.settings),
        "chart": Markup(chart),  # our own template's output, its values already escaped
        "steps": [_step(run, step) for step in steps],
    }
    return render("report.html.j2", page=page)


def step_picture(run: StoredRun, step: StepRecord) -> Image.Image | None:
    """The screenshot the model saw at this step, with its action drawn on it."""
    if not step.image:
        return None
    path = run.path / Path(step.image).name  # never leave the run folder
    try:
        with Image.open(path) as raw:
            raw.load()
            image = raw.convert("RGB")
    except (OSError, UnidentifiedImageError):
        return None
    return pictures.annotated_step(image, step.as_dict(), _surface(run))


def write_gif(run: StoredRun, out: Path, width: int = GIF_WIDTH) -> int:
    """An animated summary, one captioned frame per step; returns the frame count."""
    steps = run.steps()
    frames = []
    for step in steps:
        picture = step_picture(run, step)
        if picture is None:
            continue
        frame = pictures.fit(picture, width)
        frames.append(pictures.caption(frame, f"step {step.step}/{len(steps)}: "
                                              f"{_action_words(step, run)}"))
    if not frames:
        raise UsageError(f"run {run.run_id} has no screenshots to animate")
    outcome = run.outcome
    frames[-1] = pictures.caption(frames[-1], f"{outcome.status}: {outcome.message}")
    durations = [GIF_FRAME_MS] * (len(frames) - 1) + [GIF_LAST_FRAME_MS]
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        frames[0].save(out, "GIF", save_all=True, append_images=frames[1:],
                       duration=durations, loop=0, optimize=True)
    except OSError as exc:
        raise UsageError(f"cannot write the GIF to {out}: {exc.strerror}") from None
    return len(frames)


# ------------------------------------------------------------------------ parts


def _when(started: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)) if started else "?"


def _surface(run: StoredRun) -> str:
    return run.record.surface or Surface.BROWSER.value


def _summary(run: StoredRun, steps: list[StepRecord]) -> list[Row]:
    outcome = run.outcome
    started, ended = run.record.started_at, outcome.ended_at
    duration = f"{ended - started:.1f} s" if started is not None and ended is not None else "?"
    code = "-" if outcome.exit_code is None else str(outcome.exit_code)
    return [
        Row("outcome", outcome.status, "outcome ok" if outcome.exit_code == 0 else "outcome bad",
            f"exit {code}"),
        Row("answer", outcome.message),
        Row("steps", str(len(steps))),
        Row("wall time", duration),
        Row("folder", str(run.path), "code"),
    ]


def _settings(settings: dict[str, Any]) -> list[Row]:
    return [Row(str(k), json.dumps(v, ensure_ascii=False, default=str))
            for k, v in settings.items() if v is not None]


def _step(run: StoredRun, step: StepRecord) -> dict[str, Any]:
    picture = step_picture(run, step)
    image = None
    if picture is not None:
        data = pictures.encode(pictures.fit(picture, IMAGE_WIDTH), "jpeg", quality=80)
        image = "data:image/jpeg;base64," + base64.b64encode(data).decode("ascii")
    return {"number": step.step, "words": _action_words(step, run), "image": image,
            "thought": step.thought, "rows": _step_rows(step)}


def _step_rows(step: StepRecord) -> list[Row]:
    rows: list[Row] = []
    if step.action:
        rows.append(Row("action", step.action, "code"))
    if step.placed and step.placed != step.action:
        rows.append(Row("in pixels", step.placed, "code"))
    element = Element.from_dict(step.element)
    if element is not None:
        rows.append(Row("target", element.summary()))
    if step.verdict:
        decision = str(step.verdict.get("decision", ""))
        category = step.verdict.get("category")
        extra = f" [{category}]" if category else ""
        rows.append(Row("verdict", decision, f"verdict-{decision}",
                        str(step.verdict.get("reason", "")) + extra))
    for label, text in (("your answer", step.reply), ("fed back to the model", step.feedback)):
        if text:
            rows.append(Row(label, text))
    rows += [Row("error", str(error), "error") for error in [*step.parse_errors, step.error]
             if error]
    rows.append(Row("timings", _timings(step.timings)))
    model = step.model
    if model.get("prompt_tokens") or model.get("completion_tokens"):
        rows.append(Row("tokens", f"prompt {model.get('prompt_tokens', 0)} (reused "
                                  f"{model.get('reused_tokens', 0)}), answer "
                                  f"{model.get('completion_tokens', 0)}"))
    return rows


def _action_words(step: StepRecord, run: StoredRun) -> str:
    if not step.action:
        return "no action" + (f" ({step.error})" if step.error else "")
    return describe_text(step.action, _surface(run))


def _timings(timings: dict[str, Any]) -> str:
    parts = [f"{k} {float(v) * 1000:.0f} ms" for k, v in timings.items()
             if isinstance(v, (int, float))]
    return ", ".join(parts) or "-"
