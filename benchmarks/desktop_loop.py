"""Loop overhead per step on the desktop driver at 1920x1080: everything but the model.

Starts its own Xvfb (1920x1080), covers it with a busy full-screen window (lines of
coloured text, so JPEG has real work) and the Tk test app, then runs the real agent
loop (scripted model, default safety policy, run record on disk) for N steps of
hovers and clicks. Prints the median of each phase, the capture split into grab /
image preparation / window context, and, side by side, the naive observation path
(pyautogui.screenshot() + PNG).

    .venv/bin/python benchmarks/desktop_loop.py [STEPS] [--png]   (default 30 steps, JPEG)
"""

from __future__ import annotations

import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from loop_timing import TimedRecord, print_reading  # noqa: E402

from venusctl.core.actions import Surface  # noqa: E402
from venusctl.core.grid import ScreenSize, to_grid  # noqa: E402
from venusctl.drivers.desktop.capture import Capturer, list_monitors  # noqa: E402
from venusctl.drivers.desktop.driver import DesktopDriver, DesktopOptions  # noqa: E402
from venusctl.loop.agent import Agent, AgentSettings  # noqa: E402
from venusctl.loop.events import RunObserver  # noqa: E402
from venusctl.model.base import Completion  # noqa: E402
from venusctl.model.scripted import ScriptedModel  # noqa: E402
from venusctl.records.store import Recorder, RunInfo, StepRecord  # noqa: E402
from venusctl.run.build import make_guard  # noqa: E402
from venusctl.safety.confirm import NonInteractiveConfirmer  # noqa: E402
from venusctl.safety.ocr import shared_reader  # noqa: E402
from venusctl.sim.xserver import TkApp, XServer  # noqa: E402

WALLPAPER = """
import tkinter as tk, random
random.seed(7)
root = tk.Tk(); root.geometry("1920x1080+0+0"); root.title("wallpaper")
canvas = tk.Canvas(root, background="#20242c", highlightthickness=0)
canvas.pack(fill="both", expand=True)
words = "the quick brown fox jumps over a lazy dog while venus reads every pixel".split()
for row in range(60):
    for col in range(6):
        text = " ".join(random.choice(words) for _ in range(5))
        colour = "#%02x%02x%02x" % tuple(random.randint(90, 250) for _ in range(3))
        canvas.create_text(10 + col * 320, 10 + row * 18, text=text, anchor="nw", fill=colour)
root.mainloop()
"""

LOOP_PHASES = ("observe", "parse", "place", "describe", "ocr", "guard", "act", "record")


class Stopwatch:
    """Adds the time spent in wrapped calls to the current step's bucket."""

    def __init__(self) -> None:
        self.current: dict[str, float] = {}
        self.steps: list[dict[str, float]] = []

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = time.perf_counter() - started
                self.current[name] = self.current.get(name, 0.0) + spent
        return timed

    def next_step(self) -> None:
        self.steps.append(self.current)
        self.current = {}


class StepCloser(RunObserver):
    """Closes the stopwatch's bucket at the end of each step."""

    def __init__(self, watch: Stopwatch) -> None:
        self.watch = watch

    def step_finished(self, record: StepRecord) -> None:
        self.watch.next_step()


def answers(steps: int, app: TkApp) -> list[Completion]:
    x0, y0 = app.widgets["pad"][:2]
    out = []
    for i in range(steps):
        point = (x0 + 40 + (i % 10) * 28, y0 + 40 + (i // 10) * 30)
        gx, gy = to_grid(point, ScreenSize(1920, 1080), Surface.DESKTOP)
        kind = "Click" if i % 2 else "Hover"
        out.append(Completion(text=f"<think>step {i}</think><action>{kind}(box=({gx}, {gy}))"
                                   "</action>"))
    out.append(Completion(text="<think>done</think><action>Finished(content='ok')</action>"))
    return out


def instrument(driver: DesktopDriver, watch: Stopwatch) -> None:
    """Time grabs made for the screenshot (not the settle's), encodes and window lookups."""
    capturer = driver.capturer
    grab, screenshot = capturer.grab, driver.screenshot
    in_screenshot = {"on": False}

    def grab_timed(*args: Any) -> Any:
        return watch.wrap("grab", grab)(*args) if in_screenshot["on"] else grab(*args)

    def screenshot_timed() -> Any:
        in_screenshot["on"] = True
        try:
            return screenshot()
        finally:
            in_screenshot["on"] = False

    capturer.grab = grab_timed  # type: ignore[method-assign]
    capturer.encode = watch.wrap("encode", capturer.encode)  # type: ignore[method-assign]
    driver.context = watch.wrap("context", driver.context)  # type: ignore[method-assign]
    driver.screenshot = screenshot_timed  # type: ignore[method-assign]


def run_loop(steps: int, image_format: str, app: TkApp, tmp: Path
             ) -> tuple[list[StepRecord], Stopwatch]:
    watch = Stopwatch()
    driver = DesktopDriver(DesktopOptions(image_format=image_format, accessibility=False))
    instrument(driver, watch)
    recorder = Recorder(tmp, "benchmark")
    observer = TimedRecord(recorder)
    info = RunInfo(recorder.run_id, "benchmark", "desktop", "desktop", "scripted",
                   recorder.run_dir)
    agent = Agent(driver, ScriptedModel(answers(steps, app)), make_guard("policy", False),
                  NonInteractiveConfirmer(), "S", info, AgentSettings(max_steps=steps + 1),
                  [observer, StepCloser(watch)], reader=shared_reader())
    try:
        outcome = agent.run()
    finally:
        driver.close()
    assert outcome.status == "finished", outcome
    return observer.records, watch


def naive_observe(rounds: int) -> list[float]:
    """pyautogui.screenshot() (scrot) + PNG, the path many agents take."""
    import pyautogui  # only now: it binds to DISPLAY when imported

    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        image = pyautogui.screenshot()
        image.save(io.BytesIO(), "PNG")
        times.append((time.perf_counter() - started) * 1000)
    return times


def ours_observe(rounds: int, image_format: str) -> list[float]:
    monitor = list_monitors()[0]
    capturer = Capturer(image_format)
    times = []
    try:
        for _ in range(rounds):
            started = time.perf_counter()
            capturer.encode(capturer.grab(monitor))
            times.append((time.perf_counter() - started) * 1000)
    finally:
        capturer.close()
    return times


def median_ms(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def report(records: list[StepRecord], watch: Stopwatch, image_format: str) -> None:
    measured = list(zip(records, watch.steps, strict=False))[1:-1]  # no warm-up, no Finished
    print(f"desktop driver, 1920x1080 Xvfb, {image_format.upper()}, {len(measured)} steps "
          "(median ms per step)")
    for name in LOOP_PHASES:
        values = [r.timings.get(name, 0.0) * 1000 for r, _ in measured]
        print(f"  {name:<9} {median_ms(values):8.1f}")
    for name, label in (("grab", "capture (mss grab)"), ("encode", "image preparation"),
                        ("context", "active window")):
        values = [w.get(name, 0.0) * 1000 for _, w in measured]
        print(f"    {label:<22} {median_ms(values):6.1f}")
    totals = [sum(r.timings.get(p, 0.0) for p in LOOP_PHASES) * 1000 for r, _ in measured]
    settle = [r.timings.get("settle", 0.0) * 1000 for r, _ in measured]
    print(f"  {'total':<9} {median_ms(totals):8.1f}   (everything but the model and the settle)")
    print(f"  {'settle':<9} {median_ms(settle):8.1f}   (waiting for two equal frames, cap 3 s)")
    print_reading([r for r, _ in measured])


def main() -> None:
    steps = max(int(next((a for a in sys.argv[1:] if a.isdigit()), "30")), 22)
    image_format = "png" if "--png" in sys.argv else "jpeg"
    server = XServer.start(1920, 1080)
    os.environ.update(DISPLAY=server.display, XDG_SESSION_TYPE="x11")
    wallpaper = subprocess.Popen([sys.executable, "-c", WALLPAPER], env=server.env())
    with tempfile.TemporaryDirectory() as tmp:
        try:
            time.sleep(1.0)
            app = TkApp.launch(server, Path(tmp) / "events.jsonl")
            try:
                records, watch = run_loop(steps, image_format, app, Path(tmp) / "runs")
                ours = ours_observe(20, image_format)
                naive = naive_observe(20)
            finally:
                app.stop()
        finally:
            wallpaper.terminate()
            server.stop()
    report(records, watch, image_format)
    print(f"observation alone, median of 20: mss + {image_format.upper()} "
          f"{median_ms(ours):.1f} ms vs pyautogui.screenshot() + PNG {median_ms(naive):.1f} ms "
          f"({median_ms(naive) / max(median_ms(ours), 1e-9):.1f}x)")


if __name__ == "__main__":
    main()
