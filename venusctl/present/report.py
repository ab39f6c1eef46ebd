"""A recorded run as one self-contained HTML page, or as an animated GIF.

People read a run to learn what the agent saw, what it thought, what it did and
where the time went. The page embeds every image (base64) and its chart (inline
SVG) so it can be mailed, attached to a bug or opened offline years later; it loads
nothing from anywhere. Screenshots are annotated by `venusctl.core.pictures`, the same
code that draws the live view and the safety crop.
"""

from __future__ import annotations

import base64
import html
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from venusctl.core import pictures
from venusctl.core.actions import Surface, describe, parse_action
from venusctl.core.errors import ParseError, UsageError
from venusctl.present import timeline
from venusctl.records.store import StoredRun
from venusctl.safety.sanitize import shown

REPORT_FILE = "report.html"
IMAGE_WIDTH = 1100
GIF_WIDTH = 640
GIF_FRAME_MS = 1200
GIF_LAST_FRAME_MS = 3000

_CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;background:#f5f5f7;color:#1d1d1f}
header{background:#1d1d2b;color:#fff;padding:18px 28px}
header h1{margin:0 0 6px;font-size:22px} header .meta{opacity:.8;font-size:13px}
main{padding:8px 28px 40px;max-width:1200px}
.outcome{display:inline-block;padding:2px 10px;border-radius:10px;font-weight:600}
.ok{background:#d7f5dd;color:#11632a} .bad{background:#fde2e1;color:#8a1c14}
table.kv td{padding:2px 12px 2px 0;vertical-align:top} table.kv td:first-child{color:#666}
section.step{background:#fff;border-radius:10px;padding:14px 18px;margin:18px 0;
 box-shadow:0 1px 3px rgba(0,0,0,.08)}
section.step h3{margin:0 0 8px} .shot{max-width:100%;border:1px solid #ddd;border-radius:6px}
.thought{white-space:pre-wrap;background:#f7f7fa;border-left:3px solid #b0b0c8;
 padding:6px 10px;margin:8px 0}
code{background:#eef;padding:1px 4px;border-radius:4px;word-break:break-all}
.verdict-allow{color:#11632a} .verdict-confirm{color:#a35b00} .verdict-deny{color:#8a1c14}
.error{color:#8a1c14} .dim{color:#777;font-size:13px}
nav a{margin-right:8px} .timeline{max-width:100%;height:auto}
"""


# ----------------------------------------------------------------------- public


def escape(text: str) -> str:
    """Record text as HTML: markup escaped, and controls and bidi overrides shown escaped
    (a record holds a model's and a page's words; a reversed label would mislead)."""
    return html.escape(shown(text, newlines=True))



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
    info, steps = run.info, run.steps()
    surface = str(info.get("surface") or Surface.BROWSER.value)
    chart = timeline.svg(steps)
    body = [
        _header(run, steps),
        "<main>",
        _summary(run, steps),
        _settings(info.get("settings") or {}),
        f"<h2>Where the time went</h2>{chart}" if chart else "",
        _index(steps),
        *(_step(run, step, surface) for step in steps),
        "</main>",
    ]
    title = escape(f"venusctl · {info.get('task', run.run_id)}")
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{title}</title><style>{_CSS}</style></head>"
        f"<body>{''.join(body)}</body></html>"
    )


def step_picture(run: StoredRun, step: Mapping[str, Any]) -> Image.Image | None:
    """The screenshot the model saw at this step, with its action drawn on it."""
    name = step.get("image")
    if not name:
        return None
    path = run.path / Path(str(name)).name  # never leave the run folder
    try:
        with Image.open(path) as raw:
            raw.load()
            image = raw.convert("RGB")
    except (OSError, UnidentifiedImageError):
        return None
    return pictures.annotated_step(image, step, str(run.info.get("surface") or "browser"))


def write_gif(run: StoredRun, out: Path, width: int = GIF_WIDTH) -> int:
    """An animated summary, one captioned frame per step; returns the frame count."""
    steps = run.steps()
    frames = []
    for step in steps:
        picture = step_picture(run, step)
        if picture is None:
            continue
        frame = pictures.fit(picture, width)
        frames.append(pictures.caption(frame, f"step {step.get('step')}/{len(steps)}: "
                                              f"{_action_words(step, run)}"))
    if not frames:
        raise UsageError(f"run {run.run_id} has no screenshots to animate")
    outcome = run.outcome
    frames[-1] = pictures.caption(
        frames[-1], f"{outcome.get('status', '?')}: {outcome.get('message', '')}")
    durations = [GIF_FRAME_MS] * (len(frames) - 1) + [GIF_LAST_FRAME_MS]
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        frames[0].save(out, "GIF", save_all=True, append_images=frames[1:],
                       duration=durations, loop=0, optimize=True)
    except OSError as exc:
        raise UsageError(f"cannot write the GIF to {out}: {exc.strerror}") from None
    return len(frames)


# ------------------------------------------------------------------------ parts


def _header(run: StoredRun, steps: list[dict[str, Any]]) -> str:
    info = run.info
    started = info.get("started_at")
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)) if started else "?"
    return (
        f"<header><h1>{escape(str(info.get('task', '')))}</h1>"
        f'<div class="meta">run {escape(run.run_id)} · {escape(when)} · '
        f"{escape(str(info.get('driver', '')))} ({escape(str(info.get('surface', '')))}) · "
        f"model {escape(str(info.get('model', '')))}</div></header>"
    )


def _summary(run: StoredRun, steps: list[dict[str, Any]]) -> str:
    outcome = run.outcome
    code = outcome.get("exit_code")
    css = "ok" if code == 0 else "bad"
    started, ended = run.info.get("started_at"), outcome.get("ended_at")
    duration = f"{ended - started:.1f} s" if isinstance(started, (int, float)) and isinstance(
        ended, (int, float)) else "?"
    rows = [
        ("outcome", f'<span class="outcome {css}">{escape(str(outcome.get("status", "?")))}'
                    f"</span> exit {escape(str(code if code is not None else '-'))}"),
        ("answer", escape(str(outcome.get("message", "")))),
        ("steps", str(len(steps))),
        ("wall time", duration),
        ("folder", f"<code>{escape(str(run.path))}</code>"),
    ]
    return "<h2>Summary</h2>" + _kv(rows)


def _settings(settings: Mapping[str, Any]) -> str:
    rows = [(escape(str(k)), escape(json.dumps(v, ensure_ascii=False, default=str)))
            for k, v in settings.items() if v is not None]
    return "<h2>Settings</h2>" + _kv(rows) if rows else ""


def _index(steps: list[dict[str, Any]]) -> str:
    links = " ".join(f'<a href="#step-{s.get("step")}">{s.get("step")}</a>' for s in steps)
    return f"<h2>Steps</h2><nav>{links}</nav>" if steps else "<h2>Steps</h2><p>No steps.</p>"


def _step(run: StoredRun, step: Mapping[str, Any], surface: str) -> str:
    number = step.get("step")
    parts = [f'<section class="step" id="step-{escape(str(number))}">'
             f"<h3>Step {escape(str(number))}: {escape(_action_words(step, run))}</h3>"]
    picture = step_picture(run, step)
    if picture is not None:
        data = pictures.encode(pictures.fit(picture, IMAGE_WIDTH), "jpeg", quality=80)
        uri = "data:image/jpeg;base64," + base64.b64encode(data).decode("ascii")
        parts.append(f'<img class="shot" alt="screenshot of step {escape(str(number))}" '
                     f'src="{uri}">')
    else:
        parts.append('<p class="dim">(no screenshot for this step)</p>')
    if step.get("thought"):
        parts.append(f'<div class="thought">{escape(str(step["thought"]))}</div>')
    parts.append(_kv(_step_rows(step)))
    return "".join(parts) + "</section>"


def _step_rows(step: Mapping[str, Any]) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    if step.get("action"):
        rows.append(("action", f"<code>{escape(str(step['action']))}</code>"))
    if step.get("placed") and step.get("placed") != step.get("action"):
        rows.append(("in pixels", f"<code>{escape(str(step['placed']))}</code>"))
    element = step.get("element") or {}
    if element:
        rows.append(("target", escape(_element_words(element))))
    verdict = step.get("verdict") or {}
    if verdict:
        decision = str(verdict.get("decision", ""))
        extra = f" [{verdict['category']}]" if verdict.get("category") else ""
        rows.append(("verdict", f'<span class="verdict-{escape(decision)}">{escape(decision)}'
                                f"</span> {escape(str(verdict.get('reason', '')) + extra)}"))
    for key, label in (("reply", "your answer"), ("feedback", "fed back to the model")):
        if step.get(key):
            rows.append((label, escape(str(step[key]))))
    for error in [*(step.get("parse_errors") or []), step.get("error")]:
        if error:
            rows.append(("error", f'<span class="error">{escape(str(error))}</span>'))
    rows.append(("timings", escape(_timings(step.get("timings") or {}))))
    model = step.get("model") or {}
    if model.get("prompt_tokens") or model.get("completion_tokens"):
        rows.append(("tokens", escape(
            f"prompt {model.get('prompt_tokens', 0)} (reused {model.get('reused_tokens', 0)}), "
            f"answer {model.get('completion_tokens', 0)}")))
    return rows


def _kv(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><td>{k}</td><td>{v}</td></tr>" for k, v in rows)
    return f'<table class="kv">{body}</table>'


def _action_words(step: Mapping[str, Any], run: StoredRun) -> str:
    text = step.get("action")
    if not text:
        return "no action" + (f" ({step['error']})" if step.get("error") else "")
    try:
        return describe(parse_action(str(text), Surface(run.info.get("surface") or "browser")))
    except (ParseError, ValueError):
        return str(text)


def _element_words(element: Mapping[str, Any]) -> str:
    label = element.get("name") or element.get("text") or element.get("resource_id") or ""
    kind = element.get("role") or element.get("tag") or "element"
    if element.get("input_type"):
        kind = f"{kind}[{element['input_type']}]"
    label = " ".join(str(label).split())[:80]
    return f"{kind} '{label}'" if label else str(kind)


def _timings(timings: Mapping[str, Any]) -> str:
    parts = [f"{k} {float(v) * 1000:.0f} ms" for k, v in timings.items()
             if isinstance(v, (int, float))]
    return ", ".join(parts) or "-"
