"""Reading what a target shows: OCR of the screenshot around the point.

A button drawn on a canvas, an image without a text alternative, a Tk window
without accessibility: the driver can say where the target is but not what it is
(`nameless` / `unidentified`, or nothing at all). And a name can say one thing while
the pixels show another (an `alt` text, a transparent control over a picture). The
guard reads the crop of the screenshot around the point with Tesseract (through
`tesserocr`, which keeps the engine loaded between reads), and for a named element
also its own box (`element_box`), and judges the words it finds like a label. The
reader remembers what it made of each crop (`CACHE_SIZE`), keyed by a hash of the
pixels, so a screen read before costs nothing.

Why Tesseract (`benchmarks/ocr_crops.py` measures it against RapidOCR's
onnxruntime models): it reads every script of the keyword lists from Debian's
`tesseract-ocr-*` packages (RapidOCR's wheel ships Chinese and English only), a
button crop costs tens of milliseconds on one CPU core, and nothing is fetched at
run time. Languages are grouped by script (the Latin group's eleven languages between
them draw every letter of the other Latin-script keyword files, whose accents the
matching folds anyway); the Latin group is always read, and
another group only when the window's title, app or address is written in that
script (a nameless button speaks the language of the screen around it).

Before reading, the crop is reduced to the control under the point: the colour
that fills the middle of the crop is taken as the control's background, the
control's extent is where that colour reaches, and everything that differs from
it is ink. So light text on a dark button and dark text on a light one read alike,
and neighbouring controls stay out. Where no control stands out (plain rows of a
list or a menu, flat buttons), the line of text at the point is read, not the rows
above and below it; and the crop never reaches past the window the point is in (a
popup menu is its own small window over the one it came from).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from venusctl.drivers.base import Element, Screen, ScreenContext
from venusctl.safety.facts import shown_words
from venusctl.safety.guard import Target
from venusctl.safety.text import names, scripts_of

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

CROP = (320, 96)  # screen units around the point: one control and a little around it
SCALE = 3
BAND = 16  # pixels above and below the point that find a control's extent
CACHE_SIZE = 512  # crops whose reading is remembered, per reader (a few kB each)
GROUPS: dict[str, tuple[str, ...]] = {
    "latin": ("eng", "deu", "fra", "spa", "por", "ita", "tur", "vie", "nld", "pol", "ind"),
    "cyrillic": ("rus", "ukr", "bul"),
    "greek": ("ell",),
    "cjk": ("chi_sim", "jpn"),
    "hangul": ("kor",),
    "arabic": ("ara", "fas"),
    "hebrew": ("heb",),
    "devanagari": ("hin",),
}
_GROUP_OF_SCRIPT = {"CYRILLIC": "cyrillic", "GREEK": "greek", "CJK": "cjk", "HANGUL": "hangul",
                   "ARABIC": "arabic", "HEBREW": "hebrew", "DEVANAGARI": "devanagari"}
"""The engine group that reads each script (`text.scripts_of` names them)."""
TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                 "/usr/share/tessdata", "/usr/local/share/tessdata",
                 "/opt/homebrew/share/tessdata")


class TextReader(Protocol):
    """Reads the words around a point of a screenshot."""

    def read(self, image: Image.Image, box: tuple[int, int, int, int],
             context: ScreenContext, centre: tuple[int, int] | None = None) -> str:
        """The text in `box` (image pixels) of `image` at `centre` (inside the box, its
        middle when None); "" when there is none."""
        ...

    def read_window(self, image: Image.Image, box: tuple[int, int, int, int],
                    context: ScreenContext) -> str:
        """Every line of text in `box` (a whole window); "" when there is none."""
        ...


def groups_for(context: ScreenContext) -> tuple[str, ...]:
    """Latin always, and each other script the screen's title, app or address uses."""
    words = " ".join(p for p in (context.title, context.app, context.activity, context.url)
                     if p)
    found = scripts_of(words)
    return ("latin", *(group for script, group in _GROUP_OF_SCRIPT.items() if script in found))


def tessdata_dir() -> Path | None:
    """Where the language files are: TESSDATA_PREFIX, else the usual system places."""
    env = os.environ.get("TESSDATA_PREFIX")
    for candidate in ((env,) if env else ()) + TESSDATA_DIRS:
        path = Path(candidate)
        if (path / "eng.traineddata").is_file():
            return path
    return None


class TesseractReader:
    """Tesseract through tesserocr, one engine per script group, loaded on first use.

    Engines are not thread-safe, so reads are serialised; a missing library or
    missing language files make the reader unavailable (it then reads nothing, and
    the target stays unidentified), said once in the log.
    """

    def __init__(self, tessdata: Path | None = None) -> None:
        self._tessdata = tessdata
        self._engines: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._broken: str | None = None
        self._cache: OrderedDict[tuple[Any, ...], str] = OrderedDict()
        self._cache_lock = threading.Lock()

    def read(self, image: Image.Image, box: tuple[int, int, int, int],
             context: ScreenContext, centre: tuple[int, int] | None = None) -> str:
        crop = image.crop(box)
        return self._remembered(("line", centre), crop, context, lambda: self._each_group(
            prepared(crop, centre), context, _read_line))

    def read_window(self, image: Image.Image, box: tuple[int, int, int, int],
                    context: ScreenContext) -> str:
        crop = image.crop(box)
        return self._remembered(("block",), crop, context, lambda: self._each_group(
            prepared_window(crop), context, _read_block))

    def _remembered(self, how: tuple[Any, ...], crop: Image.Image, context: ScreenContext,
                    read: Callable[[], str]) -> str:
        """What `read` makes of the crop, from memory when these very pixels were read
        the same way before (a step retried, a screen that has not changed, the checks
        after a run): Tesseract gives the same words for the same pixels."""
        key = (*how, groups_for(context), crop.mode, crop.size,
               hashlib.blake2b(crop.tobytes(), digest_size=16).digest())
        with self._cache_lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        text = read()
        with self._cache_lock:
            self._cache[key] = text
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return text

    def _each_group(self, picture: Image.Image, context: ScreenContext, read: Any) -> str:
        """What each script group's engine reads in the picture, joined."""
        texts = []
        with self._lock:
            for group in groups_for(context):
                engine = self._engine(group)
                if engine is not None:
                    texts.append(read(engine, picture))
        return " | ".join(dict.fromkeys(t for t in texts if t))

    def available(self) -> bool:
        with self._lock:
            return self._engine("latin") is not None

    def _engine(self, group: str) -> Any:
        if group in self._engines:
            return self._engines[group]
        engine = None
        if self._broken is None:
            engine = self._load(group)
        self._engines[group] = engine
        return engine

    def _load(self, group: str) -> Any:
        os.environ.setdefault("OMP_THREAD_LIMIT", "1")  # one core: the loop has others waiting
        try:
            import tesserocr
        except ImportError:
            return self._give_up("tesserocr is not installed")
        folder = self._tessdata or tessdata_dir()
        if folder is None:
            return self._give_up("no Tesseract language files (apt install tesseract-ocr-eng)")
        langs = [lang for lang in GROUPS[group] if (folder / f"{lang}.traineddata").is_file()]
        if not langs:
            return None
        try:
            return tesserocr.PyTessBaseAPI(path=str(folder), lang="+".join(langs),
                                           psm=tesserocr.PSM.SINGLE_LINE)
        except RuntimeError as exc:
            log.warning("could not load the OCR languages %s: %s", "+".join(langs), exc)
            return None

    def _give_up(self, why: str) -> None:
        self._broken = why
        log.warning("nameless targets cannot be read: %s", why)
        return None

    def close(self) -> None:
        with self._lock:
            for engine in self._engines.values():
                if engine is not None:
                    engine.End()
            self._engines.clear()


def _read_line(engine: Any, picture: Image.Image) -> str:
    """One line of text; read as a raw line when the layout analysis finds none."""
    from tesserocr import PSM

    engine.SetPageSegMode(PSM.SINGLE_LINE)
    engine.SetImage(picture)
    text = clean(engine.GetUTF8Text())
    if not text:
        engine.SetPageSegMode(PSM.RAW_LINE)
        engine.SetImage(picture)
        text = clean(engine.GetUTF8Text())
    return text


def _read_block(engine: Any, picture: Image.Image) -> str:
    """Every line Tesseract's own layout analysis finds (a window: many controls)."""
    from tesserocr import PSM

    engine.SetPageSegMode(PSM.AUTO)
    engine.SetImage(picture)
    return clean(engine.GetUTF8Text())


def clean(text: str) -> str:
    """One line of words: OCR's border bars and stray punctuation dropped."""
    words = re.sub(r"[|\[\]{}_~`]+", " ", text)
    return " ".join(words.split())


def prepared(crop: Image.Image, centre: tuple[int, int] | None = None) -> Image.Image:
    """Dark ink on white: the control at `centre` (the crop's middle when None), or the
    line of text there when the control holds several (a menu) or none stands out,
    scaled for Tesseract."""
    import numpy as np

    gray = crop.convert("L")
    pixels = np.asarray(gray).astype(np.int16)
    height, width = pixels.shape
    cx, cy = centre if centre is not None else (width // 2, height // 2)
    cx, cy = min(max(cx, 0), width - 1), min(max(cy, 0), height - 1)
    dy, dx = max(4, height // 6), max(8, width // 10)
    middle = pixels[max(0, cy - dy): cy + dy + 1, max(0, cx - dx): cx + dx + 1]
    values, counts = np.unique(middle, return_counts=True)  # mostly the control's fill
    background = int(values[np.argmax(counts)])
    return _as_ink(gray.crop(_text_box(pixels, background, (cx, cy))), background, SCALE)


def _text_box(pixels: Any, background: int, centre: tuple[int, int],
              ) -> tuple[int, int, int, int]:
    """What to read: a one-line control without its border and round corners, else the
    line at the point between the outline's sides."""
    import numpy as np

    height, width = pixels.shape
    left, top, right, bottom = _control_box(pixels, background, centre)
    like = np.abs(pixels - background) <= 24
    whole = (left, top, right, bottom) == (0, 0, width, height)
    across, down = (bottom - top) // 4, (bottom - top) // 8  # the border and its round corners
    inner = (left + across, top + down, right - across, bottom - down)
    if not whole and len(_lines(~like[inner[1]:inner[3], inner[0]:inner[2]])) <= 1:
        return inner
    inner_left, inner_right = _inside_outline(like[top:bottom, left:right])
    ink = ~like[top:bottom, left + inner_left: left + inner_right]
    line_top, line_bottom = _line_at(ink, centre[1] - top)
    return left + inner_left, top + line_top, left + inner_right, top + line_bottom


def prepared_window(crop: Image.Image) -> Image.Image:
    """A whole window as dark ink on white: whatever differs from its commonest colour
    (the window's own background), doubled in size for its small print."""
    import numpy as np

    gray = crop.convert("L")
    values, counts = np.unique(np.asarray(gray), return_counts=True)
    return _as_ink(gray, int(values[np.argmax(counts)]), 2)


def _as_ink(gray: Image.Image, background: int, scale: int) -> Image.Image:
    import numpy as np
    from PIL import Image, ImageOps

    box = gray.resize((gray.width * scale, gray.height * scale), Image.LANCZOS)
    scaled = np.asarray(box).astype(np.int16)
    ink = np.where(np.abs(scaled - background) > 60, 0, 255).astype(np.uint8)
    return ImageOps.expand(Image.fromarray(ink), border=12, fill=255)


def _control_box(pixels: Any, background: int, centre: tuple[int, int],
                 ) -> tuple[int, int, int, int]:
    """How far the background colour of the centre reaches: the control's extent (the
    whole crop when nothing that small stands out)."""
    import numpy as np

    height, width = pixels.shape
    cx, cy = centre
    like = np.abs(pixels - background) <= 24
    reach = max(height // 6, BAND)  # rows around the point: taller than a line of text
    band = like[max(0, cy - reach): cy + reach + 1]
    left, right = _run(band.mean(axis=0) > 0.2, cx)
    top, bottom = _run(like[:, left:right].mean(axis=1) > 0.2, cy)
    if right - left < 8 or bottom - top < 8:
        return 0, 0, width, height
    return left, top, right, bottom


def _inside_outline(like: Any) -> tuple[int, int]:
    """The columns between the control's outline (or a neighbour cut by the crop) on
    either side: from each edge, columns mostly unlike the fill are left out."""
    filled = like.mean(axis=0) >= 0.5
    if not filled.any():
        return 0, like.shape[1]
    columns = filled.nonzero()[0]
    return int(columns[0]), int(columns[-1]) + 1


def _lines(ink: Any) -> list[tuple[int, int]]:
    """The runs of rows holding text (rows, end exclusive): blank rows a little shorter
    than a quarter of a line (above an i, under an accent) do not end a line."""
    runs: list[list[int]] = []
    for row, flag in enumerate((ink.sum(axis=1) >= 2).tolist()):
        if flag and runs and runs[-1][1] == row:
            runs[-1][1] = row + 1
        elif flag:
            runs.append([row, row + 1])
    merged: list[list[int]] = []
    for run in runs:
        if merged:
            last = merged[-1]
            tallest = max(run[1] - run[0], last[1] - last[0])
            if run[0] - last[1] <= max(2, tallest // 4):
                merged[-1][1] = run[1]
                continue
        merged.append(run)
    return [(a, b) for a, b in merged if b - a >= 3]  # a rule or a border is not text


def _line_at(ink: Any, cy: int) -> tuple[int, int]:
    """The rows of the line of text at row `cy`, or of the nearest line: the words of a
    menu item or a list row, not those of the rows above and below it."""
    lines = _lines(ink)
    if not lines:
        return 0, ink.shape[0]
    top, bottom = min(lines, key=lambda line: 0 if line[0] <= cy < line[1]
                      else min(abs(cy - line[0]), abs(cy - line[1] + 1)))
    return max(0, top - 3), min(ink.shape[0], bottom + 3)


def _run(flags: Any, centre: int) -> tuple[int, int]:
    """The run of true flags around `centre` (start, end exclusive)."""
    start = end = centre
    while start > 0 and flags[start - 1]:
        start -= 1
    while end < len(flags) - 1 and flags[end + 1]:
        end += 1
    return start, end + 1


# ------------------------------------------------------------------- the guard phase


@dataclass(frozen=True)
class Reading:
    """What OCR made of one target, and what it cost."""

    where: tuple[int, int]
    text: str
    seconds: float


def needs_reading(element: Element | None) -> bool:
    """No element, one the driver marked nameless or unidentified, or one with no words
    of its own (a bare canvas or image, or only symbols and icon-font glyphs:
    `text.names`), and not read yet."""
    if element is None:
        return True
    extra = element.extra
    if "ocr" in extra:
        return False
    return bool(extra.get("nameless") or extra.get("unidentified")
                or not names(shown_words(element)))


def unread(element: Element | None) -> bool:
    """Whether the pixels at the target have not been read yet."""
    return element is None or "ocr" not in element.extra


def crop_box(point: tuple[int, int], screen_size: tuple[int, int],
             image_size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The crop around a point (screen units) in image pixels, kept inside the image."""
    sx, sy = image_size[0] / screen_size[0], image_size[1] / screen_size[1]
    half_w, half_h = round(CROP[0] * sx / 2), round(CROP[1] * sy / 2)
    x, y = round(point[0] * sx), round(point[1] * sy)
    left = min(max(0, x - half_w), max(0, image_size[0] - 2 * half_w))
    top = min(max(0, y - half_h), max(0, image_size[1] - 2 * half_h))
    return left, top, min(image_size[0], left + 2 * half_w), min(image_size[1], top + 2 * half_h)


def within_window(box: tuple[int, int, int, int], point: tuple[int, int],
                  window: Any, scale: tuple[float, float]) -> tuple[int, int, int, int]:
    """The crop cut down to the window the point is in (`window_bounds`, screen units):
    a popup menu's item is read without the window under the popup."""
    try:
        left, top, width, height = (int(v) for v in window)
    except (TypeError, ValueError):
        return box
    if not (left <= point[0] < left + width and top <= point[1] < top + height):
        return box
    sx, sy = scale
    inner = (max(box[0], round(left * sx)), max(box[1], round(top * sy)),
             min(box[2], round((left + width) * sx)), min(box[3], round((top + height) * sy)))
    return inner if inner[2] - inner[0] >= 8 and inner[3] - inner[1] >= 8 else box


def read_target(reader: TextReader, image: Image.Image, point: tuple[int, int],
                screen_size: tuple[int, int], element: Element | None,
                context: ScreenContext) -> tuple[Element, Reading]:
    """The element with what OCR read at its point (`extra["ocr"]`): the control or
    line of text under the point and, for an element that has words of its own, the
    box the driver gave for it (`element_box`), where a caption, a picture under a
    transparent control or a font that draws other letters shows what the name hides."""
    started = time.perf_counter()
    scale = (image.size[0] / screen_size[0], image.size[1] / screen_size[1])
    box = crop_box(point, screen_size, image.size)
    if element is not None and element.extra.get("window_bounds"):
        box = within_window(box, point, element.extra["window_bounds"], scale)
    centre = (round(point[0] * scale[0]) - box[0], round(point[1] * scale[1]) - box[1])
    texts = [_read(lambda: reader.read(image, box, context, centre=centre))]
    whole = element_box(element, point, screen_size, image.size)
    if whole is not None:
        texts.append(_read(lambda: reader.read_window(image, whole, context)))
    text = " | ".join(dict.fromkeys(t for t in texts if t))
    reading = Reading(point, text, time.perf_counter() - started)
    base = element if element is not None else Element(extra={"unidentified": True})
    return replace(base, extra={**base.extra, "ocr": text}), reading


def _read(read: Callable[[], str]) -> str:
    try:
        return read()
    except Exception as exc:  # a reader that fails leaves the target as the driver named it
        log.warning("could not read the target: %s", exc)
        return ""


def element_box(element: Element | None, point: tuple[int, int],
                screen_size: tuple[int, int], image_size: tuple[int, int],
                ) -> tuple[int, int, int, int] | None:
    """The element's own box in image pixels, worth reading whole: only an element with
    words of its own (a nameless one is often a canvas holding many controls, whose
    one under the point the line reading finds), whose box holds the point and is no
    larger than a row or a card (a quarter of the screen, a third of its height)."""
    if element is None or element.bounds is None or needs_reading(element):
        return None
    left, top, width, height = element.bounds
    if not (left <= point[0] < left + width and top <= point[1] < top + height):
        return None
    if width * height > screen_size[0] * screen_size[1] / 4 or height > screen_size[1] / 3:
        return None
    return image_box(element.bounds, screen_size, image_size)


def image_box(bounds: Any, screen_size: tuple[int, int], image_size: tuple[int, int],
              ) -> tuple[int, int, int, int] | None:
    """Bounds in screen units (left, top, width, height: an element's, a window's) as a
    box of image pixels, inside the image; None when they are not a box on it."""
    try:
        left, top, width, height = (int(v) for v in bounds)
    except (TypeError, ValueError):
        return None
    sx, sy = image_size[0] / screen_size[0], image_size[1] / screen_size[1]
    box = (max(0, round(left * sx)), max(0, round(top * sy)),
           min(image_size[0], round((left + width) * sx)),
           min(image_size[1], round((top + height) * sy)))
    return box if box[2] - box[0] >= 8 and box[3] - box[1] >= 8 else None


def read_points(reader: TextReader, targets: tuple[Target, ...], screen: Screen,
                pressed: frozenset[tuple[int, int]] = frozenset()) -> tuple[Target, ...]:
    """Every point target with what OCR read there: each point the action presses
    (`pressed`), whatever the driver called it, and every point it could not name."""
    size = (screen.size.width, screen.size.height)
    found = []
    for target in targets:
        where, element = target.where, target.element
        if isinstance(where, tuple) and unread(element) and (
                where in pressed or needs_reading(element)):
            element, _ = read_target(reader, screen.image, where, size, element,
                                     screen.context)
            target = Target(where, element)
        found.append(target)
    return tuple(found)


def shared_reader() -> TesseractReader:
    """This process's reader for the language files found now (`tessdata_dir`).

    Loading a script group's engine reads its language files, about half a second for
    the Latin group: shared, the runs of a batch, the checks after them and the runs an
    API caller starts in one process load each group once. The reader serialises its
    reads; its engines live as long as the process and are never closed."""
    return _reader_for(tessdata_dir())


@functools.cache
def _reader_for(folder: Path | None) -> TesseractReader:
    return TesseractReader(folder)
