"""OCR of nameless buttons: speed and accuracy on CPU, Tesseract against RapidOCR.

    .venv/bin/python benchmarks/ocr_crops.py [--sizes 13 16 20 26] [--engines tesseract rapidocr]

Renders the consequential button of each of the 16 languages the policy speaks
(the label a model would click on a canvas) at several font sizes and in several
colour themes (light text on dark buttons and the reverse), crops the screenshot
around the button as the guard does, and reads it with:

  tesseract   venusctl's reader: tesserocr, Debian's language files, Latin always
              plus the script of the window title (as in a run)
  tesseract-eng  the same with English alone for every Latin-script language
  rapidocr    RapidOCR's onnxruntime models as its wheel ships them (Chinese and
              English), on the same prepared crop (needs `pip install rapidocr-onnxruntime`)

For each: how often the label is read (accents may be lost: the guard folds them),
how often the default policy then gates the click with the right category, the
median time per crop (one core: OMP_THREAD_LIMIT=1) and the time to load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image

from tests.support.button_crops import BUTTONS, POINT, SCREEN, THEMES, screenshot
from venusctl.core.actions import Click
from venusctl.drivers.base import Element, ScreenContext
from venusctl.safety.guard import Decision, GuardRequest, Target
from venusctl.safety.ocr import CROP, TesseractReader, crop_box, prepared
from venusctl.safety.policy import load_policy
from venusctl.safety.policy_guard import PolicyGuard
from venusctl.safety.text import normalize


def gated(reading: str, category: str, context: ScreenContext, guard: PolicyGuard) -> bool:
    element = Element(role="canvas", extra={"nameless": True, "ocr": reading})
    click = Click(point=POINT)
    verdict = guard.check(GuardRequest(1, click, click, element, context, "Click it.",
                                       (Target(POINT, element),)))
    return verdict.decision is not Decision.ALLOW and verdict.category == category


def read_ok(reading: str, label: str) -> bool:
    return normalize(label).replace(" ", "") in normalize(reading).replace(" ", "")


class EnglishOnly(TesseractReader):
    """Tesseract with English alone standing for every Latin-script language."""

    def _load(self, group: str):  # type: ignore[no-untyped-def]
        from venusctl.safety import ocr

        saved = ocr.GROUPS["latin"]
        ocr.GROUPS["latin"] = ("eng",)
        try:
            return super()._load(group)
        finally:
            ocr.GROUPS["latin"] = saved


class Rapid:
    def __init__(self) -> None:
        from rapidocr_onnxruntime import RapidOCR

        self.engine = RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1)

    def read(self, image: Image.Image, box: tuple[int, int, int, int],
             context: ScreenContext, centre: tuple[int, int] | None = None) -> str:
        import numpy as np

        picture = prepared(image.crop(box), centre).convert("RGB")
        result, _ = self.engine(np.asarray(picture))
        return " ".join(item[1] for item in (result or []))


def engine(name: str):  # type: ignore[no-untyped-def]
    if name == "tesseract":
        return TesseractReader()
    if name == "tesseract-eng":
        return EnglishOnly()
    return Rapid()


def measure(name: str, samples: list, policy) -> None:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    try:
        reader = engine(name)
    except ImportError as exc:
        print(f"{name:<14} not installed ({exc})")
        return
    times, read, right, load = [], 0, 0, 0.0
    per_lang: dict[str, int] = {}
    for index, (lang, label, category, title, image) in enumerate(samples):
        context = ScreenContext(app="canvas-app", title=title)
        box = crop_box(POINT, SCREEN, image.size)
        begun = time.perf_counter()
        text = reader.read(image, box, context)
        spent = time.perf_counter() - begun
        if index == 0:
            load = spent + begun - started  # the first read loads the engine
        else:
            times.append(spent)
        ok = gated(text, category, context, PolicyGuard(policy))
        read += read_ok(text, label)
        right += ok
        per_lang[lang] = per_lang.get(lang, 0) + ok
    count = len(samples)
    worst = ", ".join(f"{k} {v}" for k, v in sorted(per_lang.items(), key=lambda kv: kv[1])[:4])
    print(f"{name:<14} read {read / count:5.0%}  gated right {right / count:5.0%}  "
          f"median {statistics.median(times) * 1000:6.1f} ms/crop  first read (load) "
          f"{load:5.2f} s  fewest per language: {worst} of {count // len(BUTTONS)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[13, 16, 20, 26])
    parser.add_argument("--engines", nargs="+",
                        default=["tesseract", "tesseract-eng", "rapidocr"])
    args = parser.parse_args()
    samples = [(lang, label, category, title, screenshot(label, lang, size, theme))
               for size in args.sizes for theme in range(len(THEMES))
               for lang, (label, category, title) in BUTTONS.items()]
    print(f"{len(samples)} button crops ({CROP[0]}x{CROP[1]} around the point), "
          f"{len(BUTTONS)} languages, sizes {args.sizes} px, {len(THEMES)} colour themes")
    policy = load_policy("default")
    for name in args.engines:
        measure(name, samples, policy)


if __name__ == "__main__":
    main()
