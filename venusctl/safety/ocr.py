"""Reading what a nameless target says: OCR of the screenshot around the point.

A button drawn on a canvas, an image without a text alternative, a Tk window
without accessibility: the driver can say where the target is but not what it is
(`nameless` / `unidentified`, or nothing at all). The guard then reads the crop of
the screenshot around the point with Tesseract (through `tesserocr`, which keeps
the engine loaded between reads) and judges the words it finds like a label.

Why Tesseract (`benchmarks/ocr_crops.py` measures it against RapidOCR's
onnxruntime models): it reads all 16 languages of the keyword lists from Debian's
`tesseract-ocr-*` packages (RapidOCR's wheel ships Chinese and English only), a
button crop costs tens of milliseconds on one CPU core, and nothing is fetched at
run time. Languages are grouped by script; the Latin group is always read, and
another group only when the window's title, app or address is written in that
script (a nameless button speaks the language of the screen around it).

Before reading, the crop is reduced to the control under the point: the colour
that fills the middle of the crop is taken as the control's background, the
control's extent is where that colour reaches, and everything that differs from
it is ink. So light text on a dark button and dark text on a light one read alike,
and neighbouring controls stay out.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from venusctl.drivers.base import Element, Screen, ScreenContext
from venusctl.safety.facts import shown_words
from venusctl.safety.guard import Target
from venusctl.safety.text import normalize

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

CROP = (320, 96)  # screen units around the point: one control and a little around it
SCALE = 3
GROUPS: dict[str, tuple[str, ...]] = {
    "latin": ("eng", "deu", "fra", "spa", "por", "ita", "tur", "vie", "nld", "pol", "ind"),
    "cyrillic": ("rus",),
    "cjk": ("chi_sim", "jpn"),
    "hangul": ("kor",),
    "arabic": ("ara",),
}
_SCRIPTS = {
    "cyrillic": re.compile(r"[\u0400-\u04ff]"),
    "cjk": re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]"),
    "hangul": re.compile(r"[\uac00-\ud7af\u1100-\u11ff]"),
    "arabic": re.compile(r"[\u0600-\u06ff]"),
}
TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                 "/usr/share/tessdata", "/usr/local/share/tessdata",
                 "/opt/homebrew/share/tessdata")


class TextReader(Protocol):
    """Reads the words around a point of a screenshot."""

    def read(self, image: Image.Image, box: tuple[int, int, int, int],
             context: ScreenContext) -> str:
        """The text in `box` (image pixels) of `image`; "" when there is none."""
        ...


def groups_for(context: ScreenContext) -> tuple[str, ...]:
    """Latin always, and each other script the screen's title, app or address uses."""
    words = " ".join(p for p in (context.title, context.app, context.activity, context.url)
                     if p)
    return ("latin", *(name for name, pattern in _SCRIPTS.items() if pattern.search(words)))


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

    def read(self, image: Image.Image, box: tuple[int, int, int, int],
             context: ScreenContext) -> str:
        picture = prepared(image.crop(box))
        texts = []
        with self._lock:
            for group in groups_for(context):
                engine = self._engine(group)
                if engine is None:
                    continue
                texts.append(_read_line(engine, picture))
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


def clean(text: str) -> str:
    """One line of words: OCR's border bars and stray punctuation dropped."""
    words = re.sub(r"[|\[\]{}_~`]+", " ", text)
    return " ".join(words.split())


def prepared(crop: Image.Image) -> Image.Image:
    """Dark ink on white, the control under the centre only, scaled for Tesseract."""
    import numpy as np
    from PIL import Image, ImageOps

    gray = crop.convert("L")
    pixels = np.asarray(gray)
    height, width = pixels.shape
    cy, cx, dy, dx = height // 2, width // 2, max(4, height // 6), max(8, width // 10)
    middle = pixels[cy - dy: cy + dy + 1, cx - dx: cx + dx + 1]  # mostly the control's fill
    values, counts = np.unique(middle, return_counts=True)
    background = int(values[np.argmax(counts)])
    left, top, right, bottom = _control_box(pixels, background)
    box = gray.crop((left, top, right, bottom))
    box = box.resize((box.width * SCALE, box.height * SCALE), Image.LANCZOS)
    scaled = np.asarray(box).astype(np.int16)
    ink = np.where(np.abs(scaled - background) > 60, 0, 255).astype(np.uint8)
    return ImageOps.expand(Image.fromarray(ink), border=12, fill=255)


def _control_box(pixels: Any, background: int) -> tuple[int, int, int, int]:
    """How far the background colour of the centre reaches: the control's extent."""
    import numpy as np

    height, width = pixels.shape
    like = np.abs(pixels.astype(np.int16) - background) <= 24
    columns = like[height // 3: 2 * height // 3 + 1].mean(axis=0) > 0.2
    left, right = _run(columns, width // 2)
    rows = like[:, left:right].mean(axis=1) > 0.2
    top, bottom = _run(rows, height // 2)
    if right - left < 8 or bottom - top < 8:
        return 0, 0, width, height
    if (left, top, right, bottom) == (0, 0, width, height):
        return left, top, right, bottom  # plain text on the page: nothing to trim
    across, down = (bottom - top) // 4, (bottom - top) // 8  # the border and its round corners
    return left + across, top + down, right - across, bottom - down


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
    of its own (a bare canvas or image), and not read yet."""
    if element is None:
        return True
    extra = element.extra
    if "ocr" in extra:
        return False
    return bool(extra.get("nameless") or extra.get("unidentified")
                or not normalize(shown_words(element)))


def crop_box(point: tuple[int, int], screen_size: tuple[int, int],
             image_size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The crop around a point (screen units) in image pixels, kept inside the image."""
    sx, sy = image_size[0] / screen_size[0], image_size[1] / screen_size[1]
    half_w, half_h = round(CROP[0] * sx / 2), round(CROP[1] * sy / 2)
    x, y = round(point[0] * sx), round(point[1] * sy)
    left = min(max(0, x - half_w), max(0, image_size[0] - 2 * half_w))
    top = min(max(0, y - half_h), max(0, image_size[1] - 2 * half_h))
    return left, top, min(image_size[0], left + 2 * half_w), min(image_size[1], top + 2 * half_h)


def read_target(reader: TextReader, image: Image.Image, point: tuple[int, int],
                screen_size: tuple[int, int], element: Element | None,
                context: ScreenContext) -> tuple[Element, Reading]:
    """The element with what OCR read around its point (`extra["ocr"]`)."""
    started = time.perf_counter()
    box = crop_box(point, screen_size, image.size)
    try:
        text = reader.read(image, box, context)
    except Exception as exc:  # a reader that fails leaves the target unidentified
        log.warning("could not read the target: %s", exc)
        text = ""
    reading = Reading(point, text, time.perf_counter() - started)
    base = element if element is not None else Element(extra={"unidentified": True})
    return replace(base, extra={**base.extra, "ocr": text}), reading


def read_nameless(reader: TextReader, targets: tuple[Target, ...], screen: Screen,
                  ) -> tuple[Target, ...]:
    """Every point target the driver could not name, with what OCR read around it."""
    size = (screen.size.width, screen.size.height)
    found = []
    for target in targets:
        if isinstance(target.where, tuple) and needs_reading(target.element):
            element, _ = read_target(reader, screen.image, target.where, size, target.element,
                                     screen.context)
            target = Target(target.where, element)
        found.append(target)
    return tuple(found)
