"""The interface UI-Venus-2 was trained on, one declarative profile per surface.

The model follows its authors' harness best when it is spoken to exactly as it was
tuned: the same prompt structure, labels, message layout, sampling, image size and
gesture timings. Every such setting lives in `TABLE` below, one row per setting,
with its value on each surface (mobile, desktop, browser, grounding) and, beside
it, where the authors set it (files of inclusionAI/UI-Venus at `AUTHORS_COMMIT`).
The rest of venusctl reads these values through `profile_for`; nothing else
hard-codes them, and the docs' interface table (docs/model-interface.md) is generated from this one.

Two interface modes:
- `authors`: exactly the authors' profile (the default on a GPU or a server);
- `lean`: the same prompts and answer format, but screenshots capped at
  `LEAN_IMAGE_MAX_TOKENS` and no earlier screenshots resent (the default for a
  local model on a CPU, where each image token costs real seconds).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from venusctl.core.errors import UsageError

AUTHORS_REPO = "inclusionAI/UI-Venus"
AUTHORS_COMMIT = "81945ac7c08e023eaf8f01c5831c6885dfba70a0"
SURFACES = ("mobile", "desktop", "browser", "grounding")
MODES = ("authors", "lean")
LEAN_IMAGE_MAX_TOKENS = 1280
"""lean: a 1920x1080 desktop lands at 1,222 image tokens, a 1080x2400 phone at 1,272."""

_MOBILE = "models/mobile/mobile_example.py"
_MOBILE_SH = "scripts/mobile.sh"
_PHONE_ADB = "Venus_framework/Venus_framework_mobile/device/adb_controller.py"
_PHONE_RUN = "Venus_framework/Venus_framework_mobile/app/run_handler.py"
_DESKTOP = "models/computer/computer_example.py"
_DESKTOP_SH = "scripts/computer.sh"
_BROWSER = "models/browser/venus_browser.py"
_BROWSER_SH = "scripts/browser.sh"
_GROUND = "models/grounding/ui_venus2_gd.py"


@dataclass(frozen=True)
class Fact:
    """One setting's value on one surface, and where the authors set it."""

    value: Any
    source: str


@dataclass(frozen=True)
class Row:
    """One interface setting across the surfaces; a surface left out does not have it."""

    field: str
    label: str
    facts: Mapping[str, Fact]


def _row(field: str, label: str, **facts: Fact) -> Row:
    return Row(field, label, facts)


TABLE: tuple[Row, ...] = (
    _row("prompt", "prompt template (venusctl's `prompts/`)",
         mobile=Fact("mobile.md", f"{_MOBILE} SYSTEM_PROMPT"),
         desktop=Fact("desktop.md", f"{_DESKTOP} SYSTEM_PROMPT"),
         browser=Fact("browser.md", f"{_BROWSER} PROMPT"),
         grounding=Fact("grounding.md", f"{_GROUND} DEFAULT_USER_PROMPT")),
    _row("identity", "identity line",
         mobile=Fact("**You are a GUI Agent.**", f"{_MOBILE} SYSTEM_PROMPT"),
         desktop=Fact("**You are a GUI Agent.**", f"{_DESKTOP} SYSTEM_PROMPT"),
         browser=Fact("**You are a GUI Browser Agent.**", f"{_BROWSER} PROMPT")),
    _row("headings", "prompt headings, in order",
         mobile=Fact(("### Available Actions", "### Instructions", "### Output Format",
                      "### User Task"), f"{_MOBILE} SYSTEM_PROMPT"),
         desktop=Fact(("### Available Actions", "### Instructions", "### Output Format",
                       "### User Task"), f"{_DESKTOP} SYSTEM_PROMPT"),
         browser=Fact(("### Available Actions", "### Instruction", "# Very Important",
                       "### Output Format", "### User Task"), f"{_BROWSER} PROMPT")),
    _row("thinking", "thinking (reasoning before the action)",
         mobile=Fact(True, f"{_MOBILE} call_model sends no enable_thinking: template default"),
         desktop=Fact(True, f"{_DESKTOP_SH} ENABLE_THINKING=false sends nothing: "
                            "template default"),
         browser=Fact(False, f"{_BROWSER_SH} LLM_THINKING=false, sent as enable_thinking"),
         grounding=Fact(False, f"{_GROUND} _call_endpoint enable_thinking False")),
    _row("history_images", "earlier screenshots resent (N)",
         mobile=Fact(2, f"{_MOBILE_SH} N_IMG=2 (the real-device framework uses 0)"),
         desktop=Fact(2, f"{_DESKTOP_SH} N_IMG=2"),
         browser=Fact(2, f"{_BROWSER} history deque(maxlen=2)"),
         grounding=Fact(0, f"{_GROUND} one user message")),
    _row("history_turns", "earlier turns kept (None: all)",
         mobile=Fact(None, f"{_MOBILE} build_messages"),
         desktop=Fact(None, f"{_DESKTOP} build_messages"),
         browser=Fact(2, f"{_BROWSER} history deque(maxlen=2), turns kept whole")),
    _row("history_label", "label before an earlier screenshot",
         mobile=Fact("History Screenshot:", f"{_MOBILE} build_messages"),
         desktop=Fact("History Screenshot:\n", f"{_DESKTOP} build_messages"),
         browser=Fact(None, f"{_BROWSER} make_user: no label")),
    _row("current_label", "label before the current screenshot",
         mobile=Fact("Current Screenshot:\n", f"{_MOBILE} build_messages"),
         desktop=Fact("Current Screenshot:\n", f"{_DESKTOP} build_messages"),
         browser=Fact(None, f"{_BROWSER} make_user: feedback, notes, then the image")),
    _row("notes_label", "label of the notes taken so far",
         browser=Fact("Notes from earlier steps:\n- ", f"{_BROWSER} make_user")),
    _row("temperature", "temperature",
         mobile=Fact(0.0, f"{_MOBILE_SH} TEMPERATURE=0.0"),
         desktop=Fact(0.0, f"{_DESKTOP_SH} TEMPERATURE=0.0"),
         browser=Fact(0.0, f"{_BROWSER} run: temperature=0"),
         grounding=Fact(0.0, f"{_GROUND} _call_endpoint temperature=0")),
    _row("top_p", "top_p (None: not sent)",
         mobile=Fact(None, f"{_MOBILE} call_model"),
         desktop=Fact(0.7, f"{_DESKTOP_SH} TOP_P=0.7"),
         browser=Fact(None, f"{_BROWSER} run"),
         grounding=Fact(1.0, f"{_GROUND} _call_endpoint top_p=1.0")),
    _row("repetition_penalty", "repetition penalty (None: not sent)",
         mobile=Fact(1.05, f"{_MOBILE} call_model extra_body"),
         desktop=Fact(None, f"{_DESKTOP} call_model"),
         browser=Fact(None, f"{_BROWSER} run"),
         grounding=Fact(None, f"{_GROUND} _call_endpoint")),
    _row("frequency_penalty", "frequency penalty (None: not sent)",
         mobile=Fact(0.3, f"{_MOBILE} call_model extra_body"),
         desktop=Fact(None, f"{_DESKTOP} call_model"),
         browser=Fact(None, f"{_BROWSER} run"),
         grounding=Fact(None, f"{_GROUND} _call_endpoint")),
    _row("max_tokens", "max tokens per answer",
         mobile=Fact(16384, f"{_MOBILE_SH} MAX_TOKENS=16384"),
         desktop=Fact(4096, f"{_DESKTOP_SH} MAX_TOKENS=4096"),
         browser=Fact(4096, f"{_BROWSER_SH} LLM_MAX_TOKENS=4096"),
         grounding=Fact(1024, f"{_GROUND} _call_endpoint max_tokens=1024")),
    _row("image_max_tokens", "image tokens per screenshot (None: unresized, up to the "
                             "projector's limit)",
         mobile=Fact(None, f"{_MOBILE} image_content: the PNG as captured"),
         desktop=Fact(None, f"{_DESKTOP} image_content: the PNG as captured"),
         browser=Fact(None, f"{_BROWSER} image_url: the viewport PNG as captured"),
         grounding=Fact(None, f"{_GROUND} max_pixels 12,845,056 (12,544 tokens), above "
                              "the projector's limit")),
    _row("image_format", "image format",
         mobile=Fact("png", f"{_MOBILE} image_content data:image/png"),
         desktop=Fact("png", f"{_DESKTOP} image_content data:image/png"),
         browser=Fact("png", f"{_BROWSER} page.screenshot(step_NNN.png)"),
         grounding=Fact("png", f"{_GROUND} encode_image format=PNG")),
    _row("viewport", "browser viewport (CSS pixels)",
         browser=Fact((1024, 768), f"{_BROWSER} WIDTH, HEIGHT = 1024, 768")),
    _row("type_clears_field", "Type clears the field first",
         mobile=Fact(True, f"{_PHONE_ADB} input_text(clear_first=True)"),
         desktop=Fact(False, f"{_DESKTOP} SYSTEM_PROMPT: types into the focused field"),
         browser=Fact(False, f"{_BROWSER} execute: keyboard.insert_text at the focus")),
    _row("type_newline_enter", "a newline in Type presses Enter",
         mobile=Fact(True, "venusctl: Enter between lines (the authors' IME broadcast "
                           "types the text as one)"),
         desktop=Fact(True, f"{_DESKTOP} SYSTEM_PROMPT: each \\n presses Enter"),
         browser=Fact(True, "venusctl: Enter between lines (insert_text would put a "
                            "raw newline)")),
    _row("swipe_min_ms", "swipe duration, shortest (ms)",
         mobile=Fact(1000, f"{_PHONE_ADB} swipe: max(1000, ...)")),
    _row("swipe_max_ms", "swipe duration, longest (ms)",
         mobile=Fact(2000, f"{_PHONE_ADB} swipe: min(..., 2000)")),
    _row("swipe_px2_per_ms", "swipe: squared pixels of distance per ms",
         mobile=Fact(1000, f"{_PHONE_ADB} swipe: dist_sq / 1000")),
    _row("long_press_ms", "long press (ms)",
         mobile=Fact(500, f"{_PHONE_ADB} longpress(duration=500)"),
         browser=Fact(20000, f"{_BROWSER} execute: LongPress duration defaults to 20 s")),
    _row("drag_as_swipe", "Drag is the same slow swipe",
         mobile=Fact(True, f"{_MOBILE} normalize_action: Drag -> SWIPE")),
    _row("scroll_fraction", "Scroll distance (share of the viewport)",
         browser=Fact(2 / 3, f"{_BROWSER} execute: height * 2 // 3")),
    _row("max_steps", "step limit",
         mobile=Fact(30, "Venus_framework/Venus_framework_mobile/config/ui_venus_2_single.yaml"
                         " step_limit"),
         desktop=Fact(30, "venusctl (the authors' desktop example replays recordings)"),
         browser=Fact(30, f"{_BROWSER_SH} MAX_STEPS=30")),
    _row("loop_limit", "loop guard: identical actions in a row",
         mobile=Fact(5, f"{_PHONE_RUN} max_repeat = 5"),
         desktop=Fact(5, "venusctl (as on mobile)"),
         browser=Fact(5, "venusctl (as on mobile)")),
)


@dataclass(frozen=True)
class InterfaceProfile:
    """Every interface setting of one surface, resolved for one mode."""

    surface: str
    mode: str
    prompt: str
    identity: str | None
    headings: tuple[str, ...]
    thinking: bool
    history_images: int
    history_turns: int | None
    history_label: str | None
    current_label: str | None
    notes_label: str | None
    temperature: float
    top_p: float | None
    repetition_penalty: float | None
    frequency_penalty: float | None
    max_tokens: int
    image_max_tokens: int | None
    image_format: str
    viewport: tuple[int, int] | None
    type_clears_field: bool
    type_newline_enter: bool
    swipe_min_ms: int | None
    swipe_max_ms: int | None
    swipe_px2_per_ms: int | None
    long_press_ms: int | None
    drag_as_swipe: bool
    scroll_fraction: float | None
    max_steps: int
    loop_limit: int

    def swipe_ms(self, dx: int, dy: int) -> int:
        """How long a swipe moving (dx, dy) pixels takes: slower the longer, within
        bounds (integer arithmetic, as the authors' executor)."""
        low, high = self.swipe_min_ms or 0, self.swipe_max_ms or 0
        per = self.swipe_px2_per_ms or 1
        return max(low, min(int((dx * dx + dy * dy) / per), high))


_DEFAULTS: dict[str, Any] = {
    "identity": None, "headings": (), "history_turns": None, "history_label": None,
    "current_label": None, "notes_label": None, "top_p": None, "repetition_penalty": None,
    "frequency_penalty": None, "viewport": None, "type_clears_field": False,
    "type_newline_enter": False, "swipe_min_ms": None, "swipe_max_ms": None,
    "swipe_px2_per_ms": None, "long_press_ms": None, "drag_as_swipe": False,
    "scroll_fraction": None, "max_steps": 30, "loop_limit": 5, "history_images": 0,
}


def authors_profile(surface: str) -> InterfaceProfile:
    """The surface's settings exactly as in the authors' harness."""
    name = _surface_name(surface)
    values: dict[str, Any] = {}
    for row in TABLE:
        fact = row.facts.get(name)
        values[row.field] = fact.value if fact is not None else _DEFAULTS[row.field]
    return InterfaceProfile(surface=name, mode="authors", **values)


def profile_for(surface: str, mode: str = "authors") -> InterfaceProfile:
    """The profile of `surface` in interface mode `mode` (authors or lean)."""
    mode = check_mode(mode)
    base = authors_profile(surface)
    if mode == "authors":
        return base
    return dataclasses.replace(base, mode="lean", history_images=0,
                               image_max_tokens=LEAN_IMAGE_MAX_TOKENS)


def check_mode(mode: str) -> str:
    """`authors` or `lean`; anything else is a usage error (exit 2)."""
    cleaned = str(mode).strip().lower()
    if cleaned not in MODES:
        raise UsageError(f"unknown --interface '{mode}'; choose authors or lean")
    return cleaned


def choose_mode(requested: str | None, backend: str, on_gpu: bool) -> tuple[str, str]:
    """The interface mode for a run, and why, in words for the first progress line.

    `backend` is `server`, `local` or `scripted`; a local model on a CPU gets `lean`
    (each image token there costs real time), everything else the authors' profile.
    """
    if requested is not None:
        return check_mode(requested), "chosen with --interface"
    if backend == "server":
        return "authors", "the model runs on a server"
    if backend == "scripted":
        return "authors", "recorded answers"
    if on_gpu:
        return "authors", "the local model runs on a GPU"
    return "lean", (f"CPU-only local model: screenshots capped at {LEAN_IMAGE_MAX_TOKENS} "
                    "tokens, no earlier screenshots; --interface authors for the full layout")


def _surface_name(surface: Any) -> str:
    name = str(getattr(surface, "value", surface))
    if name not in SURFACES:
        raise ValueError(f"no interface profile for '{surface}'")
    return name


def table_markdown() -> str:
    """The docs' interface table: every setting, its value per surface, its source."""
    lines = ["| setting | mobile | desktop | browser | grounding |",
             "|---|---|---|---|---|"]
    for row in TABLE:
        cells = [_cell(row.facts.get(surface)) for surface in SURFACES]
        lines.append(f"| {row.label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(fact: Fact | None) -> str:
    if fact is None:
        return "—"
    value = fact.value
    if isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
        shown = ", ".join(f"`{v}`" for v in value)
    elif isinstance(value, tuple):
        shown = "x".join(str(v) for v in value)
    elif isinstance(value, str):
        shown = "`" + value.replace("\n", "\\n") + "`"
    elif isinstance(value, float) and not value.is_integer():
        shown = f"{value:.3g}"
    else:
        shown = str(value)
    return f"{shown} <br><sub>{fact.source.replace('|', '/')}</sub>"
