"""The action language UI-Venus-2 speaks, as typed values.

The model answers `<think>…</think><action>Name(key=value)</action>`. This module
turns that text into one frozen dataclass per action and back again. The model's
output is untrusted (screens can carry injected text), so parsing goes through a
small literal-only grammar (`venusctl.core.literals`): nothing the model writes is ever
evaluated as code.

Coordinates in these values are on the model's 0..999 grid until `venusctl.core.grid`
places them on a screen.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, ClassVar, Union

from ada_url import URL as WhatwgURL

from venusctl.core.errors import ParseError
from venusctl.core.literals import Call, LiteralSyntaxError, parse_call
from venusctl.core.text import one_line

Point = tuple[int, int]

GRID_MAX = 999
MAX_TEXT = 4000
MAX_ACTION_TEXT = 12000
MAX_SEQUENCE = 32
MAX_KEYS = 128
MAX_KEY_CHARS = 1024
MAX_REPEAT = 128
MAX_PATH = 1024
MAX_NAME = 200
MAX_FILENAME = 255


class Surface(str, Enum):
    """What kind of screen the model is operating; each has its own action set."""

    MOBILE = "mobile"
    DESKTOP = "desktop"
    BROWSER = "browser"

    def __str__(self) -> str:
        return self.value


# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Click:
    NAME: ClassVar[str] = "Click"
    point: Point | None = None


@dataclass(frozen=True)
class DoubleClick:
    NAME: ClassVar[str] = "DoubleClick"
    point: Point | None = None


@dataclass(frozen=True)
class TripleClick:
    NAME: ClassVar[str] = "TripleClick"
    point: Point | None = None


@dataclass(frozen=True)
class RightClick:
    NAME: ClassVar[str] = "RightClick"
    point: Point | None = None


@dataclass(frozen=True)
class MiddleClick:
    NAME: ClassVar[str] = "MiddleClick"
    point: Point | None = None


@dataclass(frozen=True)
class Hover:
    NAME: ClassVar[str] = "Hover"
    point: Point | None = None


@dataclass(frozen=True)
class LongPress:
    """Press and hold; `duration` (seconds) is the browser surface's optional hold."""

    NAME: ClassVar[str] = "LongPress"
    point: Point | None = None
    duration: float | None = None


@dataclass(frozen=True)
class Drag:
    """Hold at `start` (or at the cursor on the desktop), move to `end`, release."""

    NAME: ClassVar[str] = "Drag"
    end: Point | None = None
    start: Point | None = None


@dataclass(frozen=True)
class Swipe:
    """A mobile flick from `start` to `end`, used to scroll."""

    NAME: ClassVar[str] = "Swipe"
    start: Point | None = None
    end: Point | None = None


@dataclass(frozen=True)
class WheelScroll:
    """The desktop's `Swipe(amount, axis)`: mouse-wheel clicks at the cursor.

    Positive amounts scroll up (vertical) or right (horizontal).
    """

    NAME: ClassVar[str] = "Swipe"
    amount: int = 0
    axis: str = "vertical"


@dataclass(frozen=True)
class Scroll:
    """The browser's scroll at a point by a fraction of the viewport.

    Both arguments may be left out, as the authors' browser harness allows: the
    middle of the page, downwards.
    """

    NAME: ClassVar[str] = "Scroll"
    point: Point | None = (500, 500)
    direction: str = "down"


@dataclass(frozen=True)
class Type:
    NAME: ClassVar[str] = "Type"
    content: str = ""


@dataclass(frozen=True)
class Hotkey:
    NAME: ClassVar[str] = "Hotkey"
    keys: tuple[str, ...] = ()
    repeat: int | None = None


@dataclass(frozen=True)
class KeyDown:
    NAME: ClassVar[str] = "KeyDown"
    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class KeyUp:
    NAME: ClassVar[str] = "KeyUp"
    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class MouseDown:
    NAME: ClassVar[str] = "MouseDown"
    point: Point | None = None


@dataclass(frozen=True)
class MouseUp:
    NAME: ClassVar[str] = "MouseUp"
    point: Point | None = None


@dataclass(frozen=True)
class LaunchApp:
    NAME: ClassVar[str] = "LaunchApp"
    app: str = ""


@dataclass(frozen=True)
class Launch:
    NAME: ClassVar[str] = "Launch"
    url: str = ""


@dataclass(frozen=True)
class SelectOption:
    """An option of the native select list clicked last: by position, value or text."""

    NAME: ClassVar[str] = "SelectOption"
    index: int | None = None
    value: str | None = None
    text: str | None = None


@dataclass(frozen=True)
class Upload:
    """The browser's answer to a file chooser: a path inside the folder the user allowed."""

    NAME: ClassVar[str] = "Upload"
    file: str = ""


@dataclass(frozen=True)
class Download:
    """The browser's name for a download it just started (saved in the run folder)."""

    NAME: ClassVar[str] = "Download"
    filename: str = ""


@dataclass(frozen=True)
class TakeNote:
    NAME: ClassVar[str] = "TakeNote"
    content: str = ""


@dataclass(frozen=True)
class Wait:
    NAME: ClassVar[str] = "Wait"


@dataclass(frozen=True)
class GetScreenshot:
    NAME: ClassVar[str] = "GetScreenshot"


@dataclass(frozen=True)
class GetUrl:
    NAME: ClassVar[str] = "GetUrl"


@dataclass(frozen=True)
class PressBack:
    NAME: ClassVar[str] = "PressBack"


@dataclass(frozen=True)
class PressHome:
    NAME: ClassVar[str] = "PressHome"


@dataclass(frozen=True)
class PressEnter:
    NAME: ClassVar[str] = "PressEnter"


@dataclass(frozen=True)
class PressRecent:
    NAME: ClassVar[str] = "PressRecent"


@dataclass(frozen=True)
class CallUser:
    NAME: ClassVar[str] = "CallUser"
    content: str = ""


@dataclass(frozen=True)
class Answer:
    NAME: ClassVar[str] = "Answer"
    content: str = ""


@dataclass(frozen=True)
class Finished:
    NAME: ClassVar[str] = "Finished"
    content: str = ""


@dataclass(frozen=True)
class Sequence:
    """The desktop's batch of 2..32 actions executed in order within one step."""

    NAME: ClassVar[str] = "Sequence"
    actions: tuple[Action, ...] = ()


Action = Union[  # noqa: UP007 - a runtime alias used in isinstance checks and hints
    Click, DoubleClick, TripleClick, RightClick, MiddleClick, Hover, LongPress, Drag,
    Swipe, WheelScroll, Scroll, Type, Hotkey, KeyDown, KeyUp, MouseDown, MouseUp,
    LaunchApp, Launch, SelectOption, Upload, Download, TakeNote, Wait, GetScreenshot, GetUrl,
    PressBack, PressHome, PressEnter, PressRecent, CallUser, Answer, Finished, Sequence,
]

TERMINAL = (Finished, Answer, CallUser)
"""Actions that end the episode or hand it to the user."""

OBSERVING = (Wait, GetUrl, TakeNote, GetScreenshot, Hover)
"""Actions that change nothing the user cares about (used by confirm-all guards)."""


def is_terminal(action: Action) -> bool:
    """True when the action ends the episode or hands over to the user."""
    return isinstance(action, TERMINAL)


def points_of(action: Action) -> list[Point]:
    """Every coordinate the action carries, in field order (empty when none)."""
    found: list[Point] = []
    for field in fields(action):
        value = getattr(action, field.name)
        if field.name in POINT_FIELDS and value is not None:
            found.append(value)
    return found


POINT_FIELDS = frozenset({"point", "start", "end"})


# ---------------------------------------------------------------------- the grammar


@dataclass(frozen=True)
class Arg:
    """How one keyword argument is read: its kind, whether it must be given."""

    kind: str
    required: bool = True
    field: str | None = None  # dataclass field, when it differs from the keyword


@dataclass(frozen=True)
class Spec:
    """One action as a surface accepts it; `one_of`: at least one of these is given."""

    cls: type
    args: dict[str, Arg]
    one_of: tuple[str, ...] = ()


def _pointer(cls: type, key: str, required: bool) -> Spec:
    return Spec(cls, {key: Arg("point", required, field="point")})


def _text(cls: type) -> Spec:
    """`content` may be left out everywhere, as the authors' parsers allow."""
    return Spec(cls, {"content": Arg("text", required=False)})


def _bare(cls: type) -> Spec:
    return Spec(cls, {})


# Each surface's actions in the order its prompt lists them (the authors' order).
_MOBILE: dict[str, Spec] = {
    "Click": _pointer(Click, "point", True),
    "Drag": Spec(Drag, {"start": Arg("point"), "end": Arg("point")}),
    "Swipe": Spec(Swipe, {"start": Arg("point"), "end": Arg("point")}),
    "DoubleClick": _pointer(DoubleClick, "point", True),
    "LongPress": _pointer(LongPress, "point", True),
    "Type": _text(Type),
    "LaunchApp": Spec(LaunchApp, {"app": Arg("name")}),
    "Wait": _bare(Wait),
    "CallUser": _text(CallUser),
    "GetScreenshot": _bare(GetScreenshot),
    "PressBack": _bare(PressBack),
    "PressHome": _bare(PressHome),
    "PressEnter": _bare(PressEnter),
    "PressRecent": _bare(PressRecent),
    "Answer": _text(Answer),
    "Finished": _text(Finished),
}

_DESKTOP: dict[str, Spec] = {
    "Click": _pointer(Click, "box", False),
    "DoubleClick": _pointer(DoubleClick, "box", False),
    "TripleClick": _pointer(TripleClick, "box", False),
    "RightClick": _pointer(RightClick, "box", False),
    "MiddleClick": _pointer(MiddleClick, "box", False),
    "Hover": _pointer(Hover, "box", True),
    "Drag": Spec(Drag, {"end": Arg("point"), "start": Arg("point", required=False)}),
    "Swipe": Spec(WheelScroll, {"amount": Arg("amount"), "axis": Arg("axis", False)}),
    "Type": _text(Type),
    "Hotkey": Spec(Hotkey, {"keys": Arg("keys128"), "repeat": Arg("repeat", False)}),
    "KeyDown": Spec(KeyDown, {"keys": Arg("keys128")}),
    "KeyUp": Spec(KeyUp, {"keys": Arg("keys128")}),
    "MouseDown": _pointer(MouseDown, "box", False),
    "MouseUp": _pointer(MouseUp, "box", False),
    "Sequence": Spec(Sequence, {"actions": Arg("actions")}),
    "Wait": _bare(Wait),
    "CallUser": _text(CallUser),
    "Finished": _text(Finished),
}

_BROWSER: dict[str, Spec] = {
    "Click": _pointer(Click, "point", True),
    "Drag": Spec(Drag, {"start": Arg("point"), "end": Arg("point")}),
    "Scroll": Spec(Scroll, {"point": Arg("point", required=False),
                            "direction": Arg("direction", required=False)}),
    "Type": _text(Type),
    "Launch": Spec(Launch, {"url": Arg("url")}),
    "Wait": _bare(Wait),
    "GetUrl": _bare(GetUrl),
    "Finished": _text(Finished),
    "TakeNote": _text(TakeNote),
    "CallUser": _text(CallUser),
    "LongPress": Spec(
        LongPress,
        {"point": Arg("point"), "duration": Arg("duration", required=False)},
    ),
    "PressBack": _bare(PressBack),
    "PressHome": _bare(PressHome),
    "PressEnter": _bare(PressEnter),
    "Upload": Spec(Upload, {"file": Arg("file")}),
    "Download": Spec(Download, {"filename": Arg("filename")}),
    "Hover": _pointer(Hover, "point", True),
    "DoubleClick": _pointer(DoubleClick, "point", True),
    "Hotkey": Spec(Hotkey, {"keys": Arg("keys3"), "repeat": Arg("repeat", False)}),
    "SelectOption": Spec(SelectOption, {"index": Arg("index", False), "value": Arg("text", False),
                                        "text": Arg("text", False)},
                         one_of=("index", "value", "text")),
}
BROWSER_NAMES = {name.lower(): name for name in _BROWSER}
"""The browser takes action names in any case and with `_` anywhere (`select_option`)."""

ACTION_SETS: dict[Surface, dict[str, Spec]] = {
    Surface.MOBILE: _MOBILE,
    Surface.DESKTOP: _DESKTOP,
    Surface.BROWSER: _BROWSER,
}

POINT_KEY = {Surface.MOBILE: "point", Surface.DESKTOP: "box", Surface.BROWSER: "point"}
POINT_SYNONYMS = ("point", "box")


def spec_for(action: Action, surface: Surface) -> tuple[str, Spec]:
    """The (name, spec) under which `surface` accepts this action's class."""
    for name, spec in ACTION_SETS[surface].items():
        if spec.cls is type(action):
            return name, spec
    raise ValueError(f"{type(action).__name__} is not an action of the {surface} surface")


# ------------------------------------------------------------------------- parsing


@dataclass(frozen=True)
class Parsed:
    """One model answer understood: the reasoning and the single action chosen."""

    thought: str
    action: Action
    action_text: str


_ACTION_BLOCK = re.compile(r"<action>(.*?)</action>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)


def split_answer(text: str, reasoning: str | None = None) -> tuple[str, str]:
    """Separate the thought from the rest, whichever way the backend delivered it.

    Handles `<think>R</think>rest`, `R</think>rest` (the template opened the think
    block inside the prompt), and reasoning passed separately by a server.
    """
    body = text
    thought = ""
    close = _THINK_CLOSE.search(body)
    if close:
        thought = _THINK_OPEN.sub("", body[: close.start()], count=1)
        body = body[close.end():]
    else:
        opened = _THINK_OPEN.search(body)
        if opened:
            action_at = body.lower().find("<action>", opened.end())
            end = action_at if action_at >= 0 else len(body)
            thought = body[opened.end():end]
            body = body[end:]
    if reasoning and reasoning.strip():
        thought = reasoning
    return thought.strip(), body


def normalize_answer(text: str, reasoning: str | None = None) -> str:
    """The answer as `<think>REASONING</think>` followed by the rest of the text; an
    answer given without thinking (no reasoning, no think tags) stays as it is."""
    if not (reasoning and reasoning.strip()) and not (
            _THINK_OPEN.search(text) or _THINK_CLOSE.search(text)):
        return text.strip()
    thought, body = split_answer(text, reasoning)
    return f"<think>{thought}</think>\n{body.strip()}"


def extract_action_text(body: str) -> str:
    """The content of the single `<action>` block in the text after the thought."""
    blocks = _ACTION_BLOCK.findall(body)
    if len(blocks) > 1:
        raise ParseError(
            f"Found {len(blocks)} <action> blocks; give exactly one <action>…</action>."
        )
    if blocks:
        return blocks[0].strip()
    start = body.lower().find("<action>")
    if start >= 0:  # a stop sequence or max_tokens cut the closing tag
        return body[start + len("<action>"):].strip()
    raise ParseError(
        "No <action> block found. Answer with <think>…</think> then "
        "<action>Name(key=value)</action>."
    )


def parse(text: str, surface: Surface, reasoning: str | None = None) -> Parsed:
    """Read one model answer into its thought and action, or raise `ParseError`."""
    thought, body = split_answer(text, reasoning)
    action_text = extract_action_text(body)
    action = parse_action(action_text, surface)
    return Parsed(thought=thought, action=action, action_text=action_text)


def parse_action(action_text: str, surface: Surface) -> Action:
    """Read `Name(key=value, …)` as an action of `surface`, or raise `ParseError`."""
    if len(action_text) > MAX_ACTION_TEXT:
        raise ParseError(f"The action is too long ({len(action_text)} characters).")
    if not action_text:
        raise ParseError("The <action> block is empty; give one action.")
    try:
        call = parse_call(action_text)
    except LiteralSyntaxError as exc:
        raise ParseError(f"Could not read the action {_clip(action_text)}: {exc}") from None
    return _build(call, surface, nested=False)


def canonical_name(name: str, surface: Surface) -> str:
    """The action's name as the surface lists it (the browser ignores case and `_`)."""
    if surface is Surface.BROWSER:
        return BROWSER_NAMES.get(name.replace("_", "").lower(), name)
    return name


def _build(call: Call, surface: Surface, nested: bool) -> Action:
    specs = ACTION_SETS[surface]
    spec = specs.get(canonical_name(call.name, surface))
    if spec is None:
        raise ParseError(
            f"Unknown action '{call.name}' for the {surface} surface. "
            f"Use one of: {', '.join(specs)}."
        )
    if call.positional:
        keys = ", ".join(f"{k}=…" for k in spec.args) or "no arguments"
        raise ParseError(
            f"{call.name} takes keyword arguments only ({keys}); "
            "positional arguments are not accepted."
        )
    if call.name == "Sequence" and nested:
        raise ParseError("A Sequence cannot contain another Sequence.")
    values: dict[str, Any] = {}
    for key, raw in call.keywords:
        arg_key = _canonical_key(key, spec)
        if arg_key is None:
            allowed = ", ".join(spec.args) or "none"
            raise ParseError(f"{call.name} has no argument '{key}' (arguments: {allowed}).")
        arg = spec.args[arg_key]
        field_name = arg.field or arg_key
        if field_name in values:
            raise ParseError(f"{call.name} got the argument '{key}' twice.")
        values[field_name] = _READERS[arg.kind](raw, f"{call.name}.{key}", surface)
    for arg_key, arg in spec.args.items():
        if arg.required and (arg.field or arg_key) not in values:
            raise ParseError(f"{call.name} needs the argument '{arg_key}'.")
    if spec.one_of and not any(key in values for key in spec.one_of):
        raise ParseError(f"{call.name} needs one of: {', '.join(spec.one_of)}.")
    return spec.cls(**values)


def _canonical_key(key: str, spec: Spec) -> str | None:
    if key in spec.args:
        return key
    if key in POINT_SYNONYMS:
        for other in POINT_SYNONYMS:
            if other in spec.args and spec.args[other].field == "point":
                return other
    return None


def _clip(text: str, limit: int = 80) -> str:
    return repr(one_line(text, limit))


# ------------------------------------------------------------------ value readers


def _read_point(raw: Any, where: str, surface: Surface) -> Point:
    if not isinstance(raw, (tuple, list)) or len(raw) != 2:
        raise ParseError(f"{where} must be a point (x, y) on the 0..999 grid.")
    coords = []
    for value in raw:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParseError(f"{where} must hold two numbers, got {_clip(repr(raw))}.")
        number = round(value)
        if not 0 <= number <= GRID_MAX:
            raise ParseError(
                f"{where} = {tuple(raw)} is outside the screen; "
                f"coordinates go from 0 to {GRID_MAX}."
            )
        coords.append(number)
    return (coords[0], coords[1])


def _read_text(raw: Any, where: str, surface: Surface) -> str:
    if not isinstance(raw, str):
        raise ParseError(f"{where} must be a quoted string.")
    if len(raw) > MAX_TEXT:
        raise ParseError(f"{where} is too long ({len(raw)} characters, at most {MAX_TEXT}).")
    return raw


def _read_name(raw: Any, where: str, surface: Surface) -> str:
    text = _read_text(raw, where, surface).strip()
    _check_length(text, MAX_NAME, where)
    if not text:
        raise ParseError(f"{where} must be a non-empty name.")
    return text


def _check_length(text: str, most: int, where: str) -> None:
    if len(text) > most:
        raise ParseError(f"{where} is too long ({len(text)} characters, at most {most}).")


def _read_url(raw: Any, where: str, surface: Surface) -> str:
    """An address as the authors' browser parser takes it: whatever the WHATWG URL
    standard (what Chromium itself follows) reads as http or https with a host. The
    text stays as written; the guard and the browser read it the same way."""
    text = _read_text(raw, where, surface).strip()
    if not text or len(text) > 2048 or any(c.isspace() for c in text):
        raise ParseError(f"{where} must be one URL without spaces.")
    try:
        parsed = WhatwgURL(text)
    except ValueError:
        raise ParseError(f"{where} is not a valid address: '{text[:100]}'.") from None
    if parsed.protocol not in ("http:", "https:") or not parsed.hostname:
        raise ParseError(f"{where} must be an http or https address, like "
                         "'https://example.org/page'.")
    return text


def _read_int(raw: Any, where: str, low: int, high: int) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise ParseError(f"{where} must be a whole number.")
    if not low <= raw <= high:
        raise ParseError(f"{where} must be between {low} and {high}, got {raw}.")
    return raw


def _read_amount(raw: Any, where: str, surface: Surface) -> int:
    return _read_int(raw, where, -4096, 4096)


def _read_repeat(raw: Any, where: str, surface: Surface) -> int:
    return _read_int(raw, where, 1, MAX_REPEAT)


def _read_file(raw: Any, where: str, surface: Surface) -> str:
    """A relative path inside the upload folder: no root, no empty, `.` or `..` part."""
    text = _read_text(raw, where, surface).strip()
    _check_length(text, MAX_PATH, where)
    parts = text.replace("\\", "/").split("/")
    if not text or text.startswith("/") or any(p in ("", ".", "..") for p in parts) \
            or "\0" in text:
        raise ParseError(f"{where} must be a relative path of a listed file, "
                         "like 'folder/report.pdf'.")
    return text


def _read_filename(raw: Any, where: str, surface: Surface) -> str:
    """One plain file name: no folder part, not `.` or `..`."""
    text = _read_text(raw, where, surface).strip()
    _check_length(text, MAX_FILENAME, where)
    if not text or text in (".", "..") or any(c in text for c in "/\\\0"):
        raise ParseError(f"{where} must be a single file name, like 'report.pdf'.")
    return text


def _read_index(raw: Any, where: str, surface: Surface) -> int:
    return _read_int(raw, where, 0, 10000)


def _read_duration(raw: Any, where: str, surface: Surface) -> float:
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not 0 < raw <= 30:
        raise ParseError(f"{where} must be a number of seconds above 0 and at most 30.")
    return raw


def _read_choice(options: tuple[str, ...]) -> Callable[[Any, str, Surface], str]:
    def read(raw: Any, where: str, surface: Surface) -> str:
        if not isinstance(raw, str) or raw.strip().lower() not in options:
            raise ParseError(f"{where} must be one of {', '.join(repr(o) for o in options)}.")
        return raw.strip().lower()

    return read


def _read_keys(limit: int) -> Callable[[Any, str, Surface], tuple[str, ...]]:
    def read(raw: Any, where: str, surface: Surface) -> tuple[str, ...]:
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, (tuple, list)) or not raw:
            raise ParseError(f"{where} must be a list of key names, e.g. ['ctrl', 'c'].")
        if len(raw) > limit:
            raise ParseError(f"{where} takes at most {limit} keys, got {len(raw)}.")
        keys = []
        for key in raw:
            if not isinstance(key, str) or not key.strip() or len(key) > MAX_KEY_CHARS:
                raise ParseError(f"{where} must hold key names as quoted strings.")
            keys.append(key.strip())
        return tuple(keys)

    return read


def _read_actions(raw: Any, where: str, surface: Surface) -> tuple[Action, ...]:
    if not isinstance(raw, (tuple, list)):
        raise ParseError(f"{where} must be a list of actions, e.g. [Click(box=(1, 2)), …].")
    if not 2 <= len(raw) <= MAX_SEQUENCE:
        raise ParseError(f"{where} must hold 2 to {MAX_SEQUENCE} actions, got {len(raw)}.")
    children: list[Action] = []
    for position, item in enumerate(raw):
        if not isinstance(item, Call):
            raise ParseError(f"{where} must hold actions such as Click(box=(x, y)).")
        child = _build(item, surface, nested=True)
        if is_terminal(child) and position != len(raw) - 1:
            raise ParseError(f"{child.NAME} may only be the last action of a Sequence.")
        children.append(child)
    return tuple(children)


_READERS: dict[str, Callable[[Any, str, Surface], Any]] = {
    "point": _read_point,
    "text": _read_text,
    "name": _read_name,
    "url": _read_url,
    "amount": _read_amount,
    "repeat": _read_repeat,
    "index": _read_index,
    "duration": _read_duration,
    "axis": _read_choice(("vertical", "horizontal")),
    "direction": _read_choice(("up", "down", "left", "right")),
    "keys3": _read_keys(3),
    "keys128": _read_keys(MAX_KEYS),
    "file": _read_file,
    "filename": _read_filename,
    "actions": _read_actions,
}


# ----------------------------------------------------------------------- rendering


def render(action: Action, surface: Surface = Surface.MOBILE) -> str:
    """The canonical text of an action, as the model writes it on `surface`.

    `parse_action(render(a, s), s) == a` for every action `s` accepts.
    """
    name, spec = spec_for(action, surface)
    parts = []
    for key, arg in spec.args.items():
        value = getattr(action, arg.field or key)
        if value is None:
            continue
        parts.append(f"{key}={_render_value(value, arg.kind, surface)}")
    return f"{name}({', '.join(parts)})"


def _render_value(value: Any, kind: str, surface: Surface) -> str:
    if kind == "point":
        return f"({value[0]}, {value[1]})"
    if kind == "actions":
        return "[" + ", ".join(render(child, surface) for child in value) + "]"
    if kind.startswith("keys"):
        inner = ", ".join(_quote(k) for k in value)
        return f"({inner})" if surface is Surface.BROWSER else f"[{inner}]"
    if isinstance(value, str):
        return _quote(value)
    return repr(value)


def _quote(text: str) -> str:
    escaped = (
        text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
        .replace("\r", "\\r").replace("\t", "\\t")
    )
    return f"'{escaped}'"


# ------------------------------------------------------------------- plain words


def describe(action: Action) -> str:
    """The action in a few plain words, for status lines and confirmations."""
    name = type(action).__name__
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", name).lower()
    details = []
    for field in fields(action):
        value = getattr(action, field.name)
        if value is None or value == () or (field.name == "content" and value == ""):
            continue
        if field.name == "actions":
            details.append("; ".join(describe(child) for child in value))
        elif isinstance(value, str):
            details.append(f"{field.name} {_clip(value, 60)}")
        elif isinstance(value, tuple) and field.name == "keys":
            details.append("+".join(value))
        else:
            details.append(f"{field.name} {value}")
    return words + (" " + ", ".join(details) if details else "")


def describe_text(action_text: str, surface: Surface | str) -> str:
    """A recorded action as `describe` words, or its own text when it does not read back
    (a record from an older action language, or one edited by hand)."""
    try:
        return describe(parse_action(action_text, Surface(surface)))
    except (ParseError, ValueError):
        return action_text


def walk(action: Action) -> Iterator[Action]:
    """The action itself and, for a Sequence, each of its children."""
    yield action
    if isinstance(action, Sequence):
        yield from action.actions
