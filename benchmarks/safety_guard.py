"""What the safety guard costs per action, and what loading a policy costs per run.

    .venv/bin/python benchmarks/safety_guard.py [-n 20]

Over the labelled corpus (tests/corpus/safety): the median time of one
`PolicyGuard.check` for the default and the strict policy, the median time to load
and compile each policy, the median time to blur a password field into a
1280x800 JPEG screenshot (what the secret wrapper adds when a page shows one), and
the OCR phase of a step whose target is nameless (reading a drawn button on a
1280x800 screenshot, Tesseract on one core; the first read also loads the engine),
of a click on a button the driver named (both readings: around the point and the
button's own box), and of a step whose keys go to a window without accessibility
(reading a 600x360 window of buttons and a file list on a 1920x1080 screenshot);
each on new pixels every step and on pixels read before, which the reader remembers.
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


def screens(picture: Image.Image, count: int, pixel: tuple[int, int], title: str) -> list:
    """`count` screenshots of `picture`, decoded already, each with one pixel at `pixel`
    of its own colour: new pixels to the reader every time, the same words to read."""
    from venusctl.core.grid import ScreenSize
    from venusctl.core.pictures import encode
    from venusctl.drivers.base import Screen, ScreenContext

    found = []
    for i in range(count):
        shot = picture.copy()
        shot.putpixel(pixel, (i % 256, i // 256 % 256, 128))
        screen = Screen(encode(shot, "png"), "image/png", ScreenSize(*shot.size),
                        ScreenContext(title=title))
        screen.image  # decoded here, not in the timed read  # noqa: B018
        found.append(screen)
    return found


def phase_ms(read, shots: list, repeat: int) -> tuple[float, float, float]:
    """The first read (the engine loads), the median on new pixels, the median on pixels
    read before (the reader remembers them), in milliseconds."""
    def timed(screen) -> float:
        started = time.perf_counter()
        read(screen)
        return (time.perf_counter() - started) * 1000
    first = timed(shots[0])
    fresh = statistics.median(timed(shot) for shot in shots[1:repeat + 1])
    again = statistics.median(timed(shots[1]) for _ in range(repeat))
    return first, fresh, again


def ocr_phase(repeat: int) -> None:
    """The OCR phase of one step: a nameless target on a Latin and on a Korean screen,
    and a click on a button the driver named (both readings)."""
    from venusctl.drivers.base import Element
    from venusctl.safety.guard import Target
    from venusctl.safety.ocr import TesseractReader, read_points

    reader = TesseractReader()
    for lang in ("en", "ko"):
        label, _, title = BUTTONS[lang]
        target = (Target((640, 400), Element(tag="canvas", extra={"nameless": True})),)
        shots = screens(screenshot(label, lang, 16, 0), repeat + 1, (600, 390), title)
        first, fresh, again = phase_ms(lambda s, t=target: read_points(reader, t, s), shots,
                                       repeat)
        print(f"OCR phase, one nameless target ({lang}): median {fresh:.1f} ms per step, "
              f"{again:.1f} ms on pixels read before (first step {first:.0f} ms, loading "
              "the engine)")
    label, _, title = BUTTONS["en"]
    point = (640, 400)
    target = (Target(point, Element(name="Continue", role="button", bounds=(540, 376, 200, 48))),)
    shots = screens(screenshot(label, "en", 16, 0), repeat + 1, (541, 377), title)
    first, fresh, again = phase_ms(
        lambda s: read_points(reader, target, s, frozenset({point})), shots, repeat)
    read = read_points(reader, target, shots[0], frozenset({point}))[0].element.extra["ocr"]
    print(f"OCR phase, a click on a button the driver named (both readings: around the "
          f"point and its box): median {fresh:.1f} ms per step, {again:.1f} ms on pixels "
          f"read before; read: {read!r}")
    phone_phase(reader, repeat)
    reader.close()


def phone_phase(reader, repeat: int) -> None:
    """A tap on a named button of a 1080x2400 phone screen, drawn as the simulated phone
    draws it: both readings, at the phone's own resolution."""
    from venusctl.drivers.base import Element
    from venusctl.safety.guard import Target
    from venusctl.safety.ocr import read_points
    from venusctl.sim.phone.app import Widget
    from venusctl.sim.phone.render import draw_frame

    size = (1080, 2400)
    button_box = (594, 864, 1026, 1056)
    root = Widget("android.widget.FrameLayout", (0, 0, *size), children=[
        Widget("android.widget.TextView", (0, 72, 1080, 216), text="Transfer money",
               style="title"),
        Widget("android.widget.Button", (54, 864, 486, 1056), text="Cancel", style="button"),
        Widget("android.widget.Button", button_box, text="Send money", style="button")])
    point = (810, 960)
    left, top, right, bottom = button_box
    target = (Target(point, Element(text="Send money", role="android.widget.Button",
                                    bounds=(left, top, right - left, bottom - top))),)
    shots = screens(draw_frame(root, size, 0.0), repeat + 1, (600, 870), "Transfer money")
    _first, fresh, again = phase_ms(
        lambda s: read_points(reader, target, s, frozenset({point})), shots, repeat)
    read = read_points(reader, target, shots[0], frozenset({point}))[0].element.extra["ocr"]
    print(f"OCR phase, a tap on a named button of a 1080x2400 phone screen (both "
          f"readings): median {fresh:.1f} ms per step, {again:.1f} ms on pixels read "
          f"before; read: {read!r}")


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
    from venusctl.drivers.base import Element
    from venusctl.safety.guard import FOCUS, Target
    from venusctl.safety.ocr import TesseractReader
    from venusctl.safety.reading import read_unnamed

    reader = TesseractReader()
    focus = (Target(FOCUS, Element(extra={"unidentified": True,
                                          "window_bounds": [100, 100, 600, 360]})),)
    space = parse_action("Hotkey(keys=['space'])", Surface.DESKTOP)
    shots = screens(tk_like_window(), repeat + 1, (105, 450), "Files")
    first, fresh, again = phase_ms(lambda s: read_unnamed(reader, space, focus, s), shots,
                                   repeat)
    text = read_unnamed(reader, space, focus, shots[0])[0].element.extra["window_text"]
    print(f"OCR phase, the focused window (600x360) for a key: median {fresh:.1f} ms per "
          f"step, {again:.1f} ms on pixels read before (first step {first:.0f} ms, loading "
          f"the engine); read: {text!r}")
    reader.close()


if __name__ == "__main__":
    main()
