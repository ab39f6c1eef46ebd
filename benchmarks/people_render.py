"""How long the people's side takes to draw: report pages, step pictures, the live view.

Prints medians. A 1280x800 screenshot with text and shapes stands in for a browser
page; the run has 30 steps. Run: .venv/bin/python benchmarks/people_render.py
"""

from __future__ import annotations

import io
import statistics
import tempfile
import time
from pathlib import Path

from PIL import Image, ImageDraw
from rich.console import Console

from venusctl.core import pictures
from venusctl.core.errors import ExitCode
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import Screen
from venusctl.present.halfblock import HalfBlockImage
from venusctl.present.report import build_html, write_gif
from venusctl.records.store import Outcome, Recorder, RunInfo, StepRecord, load_run

STEPS = 30
ACTIONS = ["Click(point=(234, 150))", "Type(content='Ada Lovelace')",
           "Scroll(point=(500, 500), direction='down')", "Drag(start=(100, 100), end=(800, 600))"]


def page(seed: int) -> bytes:
    image = Image.new("RGB", (1280, 800), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    for row in range(20):
        draw.text((40, 30 + row * 36), f"Row {row} of page {seed}: some text to compress",
                  fill=(20, 20, 20), font=pictures.font(18))
        draw.rectangle((700, 30 + row * 36, 700 + (row * 37 + seed) % 400, 56 + row * 36),
                       fill=((row * 40) % 255, 120, 200))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=80)
    return out.getvalue()


def record_run(folder: Path) -> Path:
    recorder = Recorder(folder, "benchmark run")
    recorder.start(RunInfo(recorder.run_id, "benchmark run", "browser", "web", "scripted",
                           recorder.run_dir, settings={"max_steps": STEPS}))
    for step in range(1, STEPS + 1):
        recorder.step(StepRecord(
            step=step, started_at=0.0, screen_size=(1280, 800), thought="thinking " * 20,
            action=ACTIONS[step % len(ACTIONS)], element={"bounds": [200, 100, 300, 40]},
            timings={"observe": 0.05, "model": 2.0, "act": 0.02, "settle": 0.3},
            screen=Screen(page(step), "image/jpeg", ScreenSize(1280, 800))))
    recorder.finish(Outcome("finished", ExitCode.FINISHED, "done", steps=STEPS))
    return recorder.run_dir


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        run = load_run(record_run(Path(tmp)))
        html_ms = median_ms(lambda: build_html(run), 5)
        gif_ms = median_ms(lambda: write_gif(run, Path(tmp) / "run.gif"), 3)
        size = len(build_html(run).encode()) / 1e6
    screenshot = Image.open(io.BytesIO(page(1)))
    screenshot.load()
    step = {"action": ACTIONS[0], "screen_size": [1280, 800],
            "element": {"bounds": [200, 100, 300, 40]}}
    full_ms = median_ms(lambda: pictures.annotated_step(screenshot, step, "browser"), 30)
    console = Console(file=io.StringIO(), width=100, height=40, color_system="truecolor")

    def live_frame(image: Image.Image) -> None:
        console.print(HalfBlockImage(image, max_rows=30))

    small_ms = median_ms(lambda: live_frame(pictures.annotated_step(
        pictures.fit(screenshot, 240, resample=Image.Resampling.BILINEAR), step, "browser")), 30)
    naive_ms = median_ms(lambda: live_frame(pictures.annotated_step(
        screenshot, step, "browser")), 30)
    print(f"report: {STEPS} steps in {html_ms:.0f} ms ({html_ms / STEPS:.1f} ms/step), "
          f"{size:.1f} MB of HTML")
    print(f"gif: {STEPS} frames in {gif_ms:.0f} ms")
    print(f"annotate one 1280x800 screenshot: {full_ms:.1f} ms")
    print(f"live view frame (shrink to 240 px, annotate, 100x30 half-block cells): "
          f"{small_ms:.1f} ms; annotating at full size (marks too thin to see): "
          f"{naive_ms:.1f} ms (ratio {small_ms / naive_ms:.2f})")


if __name__ == "__main__":
    main()
