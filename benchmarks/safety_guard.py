"""What the safety guard costs per action, and what loading a policy costs per run.

    .venv/bin/python benchmarks/safety_guard.py [-n 20]

Over the labelled corpus (tests/corpus/safety): the median time of one
`PolicyGuard.check` for the default and the strict policy, the median time to load
and compile each policy, the median time to blur a password field into a
1280x800 JPEG screenshot (what the secret wrapper adds when a page shows one), and
the OCR phase of a step whose target is nameless (reading a drawn button on a
1280x800 screenshot, Tesseract on one core; the first read also loads the engine),
and of a step whose keys go to a window without accessibility (reading a 600x360
window of buttons and a file list on a 1920x1080 screenshot).
Medians in milliseconds over N repetitions; ratios against the default policy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PIL import Image

from tests.support.button_crops import BUTTONS, screenshot
from tests.support.safety_corpus import load_cases
from venusctl.core.pictures import blur_boxes, encode
from venusctl.safety.policy import load_policy
from venusctl.safety.policy_guard import PolicyGuard


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20, help="repetitions (default 20)")
    args = parser.parse_args()
    cases = load_cases()
    results = {}
    for name in ("default", "strict"):
        policy = load_policy(name)
        load = median_ms(lambda name=name: load_policy(name), args.n)
        per_case = [median_ms(lambda c=c, p=policy: PolicyGuard(p).check(c.request), args.n)
                    for c in cases]
        results[name] = (load, statistics.median(per_case), max(per_case))
    base = results["default"][1]
    print(f"{len(cases)} corpus situations, {args.n} repetitions each")
    for name, (load, check, worst) in results.items():
        print(f"{name:<8} load+compile {load:6.1f} ms   check median {check:6.3f} ms "
              f"(worst case {worst:.3f} ms, x{check / base:.2f} of default)")
    shot = Image.effect_noise((1280, 800), 60).convert("RGB")
    blur = median_ms(lambda: encode(blur_boxes(shot, [(100, 300, 400, 40)]), "jpeg"), args.n)
    plain = median_ms(lambda: encode(shot, "jpeg"), args.n)
    print(f"blur one field + JPEG re-encode {blur:.1f} ms (JPEG encode alone {plain:.1f} ms, "
          f"x{blur / plain:.2f})")
    ocr_phase(args.n)
    window_phase(args.n)


def ocr_phase(repeat: int) -> None:
    """The OCR phase of one step: a nameless target on a Latin and on a Korean screen."""
    from venusctl.core.grid import ScreenSize
    from venusctl.core.pictures import encode
    from venusctl.drivers.base import Element, Screen, ScreenContext
    from venusctl.safety.guard import Target
    from venusctl.safety.ocr import TesseractReader, read_nameless

    reader = TesseractReader()
    for lang in ("en", "ko"):
        label, _, title = BUTTONS[lang]
        data = encode(screenshot(label, lang, 16, 0), "jpeg")
        target = (Target((640, 400), Element(tag="canvas", extra={"nameless": True})),)
        context = ScreenContext(title=title)
        started = time.perf_counter()
        read_nameless(reader, target, Screen(data, "image/jpeg", ScreenSize(1280, 800), context))
        first = (time.perf_counter() - started) * 1000
        step = median_ms(lambda d=data, t=target, c=context: read_nameless(
            reader, t, Screen(d, "image/jpeg", ScreenSize(1280, 800), c)), repeat)
        print(f"OCR phase, one nameless target ({lang}): median {step:.1f} ms per step "
              f"(first step {first:.0f} ms, loading the engine)")
    reader.close()


def tk_like_window() -> Image.Image:
    """A 1920x1080 screen with a 600x360 window of raised buttons and a file list."""
    from PIL import ImageDraw, ImageFont

    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 19)
    shot = Image.new("RGB", (1920, 1080), (0, 0, 0))
    draw = ImageDraw.Draw(shot)
    draw.rectangle((100, 100, 699, 459), fill=(217, 217, 217))
    draw.rectangle((110, 110, 689, 200), fill=(255, 255, 255), outline=(120, 120, 120))
    for row, name in enumerate(("report.txt", "photo.png", "notes.md")):
        draw.text((114, 114 + 28 * row), name, font=font, fill=(0, 0, 0))
    for row, label in enumerate(("Keep files", "Delete all files", "Send")):
        top = 215 + 54 * row
        draw.rectangle((110, top, 689, top + 42), outline=(120, 120, 120))
        draw.text((400, top + 21), label, font=font, fill=(0, 0, 0), anchor="mm")
    return shot


def window_phase(repeat: int) -> None:
    """The OCR phase of a key step whose focus nobody identified: the window is read."""
    from venusctl.core.actions import Surface, parse_action
    from venusctl.core.grid import ScreenSize
    from venusctl.core.pictures import encode
    from venusctl.drivers.base import Element, Screen, ScreenContext
    from venusctl.safety.guard import FOCUS, Target
    from venusctl.safety.ocr import TesseractReader
    from venusctl.safety.reading import read_unnamed

    reader = TesseractReader()
    data = encode(tk_like_window(), "jpeg")
    focus = (Target(FOCUS, Element(extra={"unidentified": True,
                                          "window_bounds": [100, 100, 600, 360]})),)
    space = parse_action("Hotkey(keys=['space'])", Surface.DESKTOP)

    def step() -> str:
        screen = Screen(data, "image/jpeg", ScreenSize(1920, 1080), ScreenContext(title="Files"))
        return read_unnamed(reader, space, focus, screen)[0].element.extra["window_text"]
    started = time.perf_counter()
    text = step()
    first = (time.perf_counter() - started) * 1000
    print(f"OCR phase, the focused window (600x360) for a key: median "
          f"{median_ms(step, repeat):.1f} ms per step (first step {first:.0f} ms, loading "
          f"the engine); read: {text!r}")
    reader.close()


if __name__ == "__main__":
    main()
