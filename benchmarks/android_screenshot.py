"""Android screenshot latency per capture path, and the agent loop's overhead per step.

Against the simulated phone (started here with its own adb server):

    .venv/bin/python benchmarks/android_screenshot.py [-n 20] [--size 1080x2400]
                                                      [--realistic] [--think 2.0]

`--realistic` gives the simulated phone a real one's timings (`input` 0.3-1 s,
`uiautomator dump` 1-3 s, no ADB Keyboard); `--think S` makes the scripted model
take S seconds per answer, as a local model does (the dump of the screen overlaps
with it). The driver is wrapped as `venusctl do` wraps it (secrets, blurring) and
guarded by the default policy.

Against a real phone on your adb server (the loop then runs dry: it observes,
describes and guards, but performs nothing on the phone):

    .venv/bin/python benchmarks/android_screenshot.py --serial "$(adb get-serialno)"

Prints medians (milliseconds) of N captures per path, the png/raw ratio, and the
median time of each loop phase over N steps (everything but the model).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loop_timing import TimedRecord, print_reading

from venusctl.drivers.android.driver import AndroidDriver, AndroidOptions
from venusctl.drivers.android.screen import Capturer, encode
from venusctl.drivers.wrappers import DryRunDriver
from venusctl.loop.agent import Agent, AgentSettings
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import Recorder, RunInfo
from venusctl.run.build import make_guard
from venusctl.safety.confirm import NonInteractiveConfirmer
from venusctl.safety.ocr import shared_reader
from venusctl.safety.setup import protected
from venusctl.sim.phone import PhoneConfig, android_env

PHASES = ("observe", "describe", "ocr", "guard", "act", "settle", "record")


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def capture_paths(driver: AndroidDriver, runs: int) -> None:
    frame = driver.capturer.grab()
    width, height = frame.image.size
    print(f"screenshot latency, {width}x{height} frames (median of {runs}, ms)")
    medians = {}
    for path in ("raw", "png"):
        capturer = Capturer(driver.link.binary, path)
        try:
            capturer.grab()
        except Exception as exc:  # a phone without this path: say so, measure the other
            print(f"  {path:<4} unavailable: {exc}")
            continue
        medians[path] = median_ms(capturer.grab, runs)
        what = "screencap, raw pixels decoded on the host" if path == "raw" else \
            "screencap -p, PNG made on the phone, decoded on the host"
        print(f"  {path:<4} {medians[path]:8.1f}   ({what})")
    if len(medians) == 2:
        print(f"  png/raw ratio {medians['png'] / medians['raw']:.2f}")
    jpeg = median_ms(lambda: encode(frame.image, "jpeg"), runs)
    print(f"  jpeg encode for the model {jpeg:8.1f}")
    print(f"  driver.screenshot() with the current app ({driver.capturer.path} path) "
          f"{median_ms(driver.screenshot, runs):8.1f}")


def answers(steps: int, size: tuple[int, int]) -> list[Completion]:
    """Taps on empty screen (bottom band of the home screen), varied to pass the loop guard."""
    out = []
    for i in range(steps):
        x, y = 100 + (i % 8) * 100, 900 + (i % 3) * 30
        out.append(Completion(text=f"<think>step {i}</think><action>Click(point=({x}, {y}))"
                                   "</action>"))
    out.append(Completion(text="<action>Finished(content='ok')</action>"))
    return out


class ThinkingModel(ScriptedModel):
    """The scripted answers, each after `think_s` seconds (a local model's step)."""

    def __init__(self, answers: list[Completion], think_s: float) -> None:
        super().__init__(answers)
        self.think_s = think_s

    def complete(self, messages, options, on_text=None) -> Completion:
        time.sleep(self.think_s)
        return super().complete(messages, options, on_text)


def loop_overhead(driver: AndroidDriver, steps: int, dry: bool, think_s: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        recorder = Recorder(Path(tmp), "benchmark")
        observer = TimedRecord(recorder)
        info = RunInfo(recorder.run_id, "benchmark", "mobile", "android", "scripted",
                       recorder.run_dir)
        surface = protected(DryRunDriver(driver) if dry else driver)
        model = ThinkingModel(answers(steps, driver.input_size), think_s)
        guard = make_guard("policy", assume_yes=False)  # the default policy, as `do` uses
        agent = Agent(surface, model, guard, NonInteractiveConfirmer(), "S", info,
                      AgentSettings(max_steps=steps + 1), [observer], reader=shared_reader())
        outcome = agent.run()
    assert outcome.status == "finished", outcome
    measured = observer.records[1:-1]  # skip the warm-up step and the Finished step
    mode = "dry run: nothing performed" if dry else "taps performed"
    print(f"loop overhead per step ({mode}; model {think_s:.1f} s per answer, not counted; "
          f"{len(measured)} steps, median ms)")
    for phase in PHASES:
        values = [r.timings.get(phase, 0.0) * 1000 for r in measured]
        print(f"  {phase:<9} {statistics.median(values):8.1f}")
    totals = [sum(v for k, v in r.timings.items() if k != "model") * 1000 for r in measured]
    print(f"  {'total':<9} {statistics.median(totals):8.1f}   (everything but the model)")
    print_reading(measured)


@contextmanager
def simulated(size: tuple[int, int], realistic: bool) -> Iterator[None]:
    config = PhoneConfig.realistic(size=size, seed=1) if realistic else PhoneConfig(size=size)
    with android_env(config) as env:
        saved = dict(os.environ)
        os.environ.update(env.environ())
        os.environ.pop("ANDROID_SERIAL", None)
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=20, help="captures per path and loop steps")
    parser.add_argument("--serial", help="a real phone on your adb server")
    parser.add_argument("--size", default="540x960", help="simulated phone size, WxH")
    parser.add_argument("--realistic", action="store_true",
                        help="simulated phone with a real one's timings")
    parser.add_argument("--think", type=float, default=0.0,
                        help="seconds the scripted model takes per answer")
    parser.add_argument("--loop-only", action="store_true", help="skip the capture timings")
    args = parser.parse_args()
    runs = max(args.n, 20) if not args.realistic else args.n
    options = AndroidOptions(device=args.serial, cache_dir=None, aliases_file=None)
    if args.serial:
        driver = AndroidDriver(options)
        print(f"real phone {driver.serial}")
        try:
            if not args.loop_only:
                capture_paths(driver, runs)
            loop_overhead(driver, runs, dry=True, think_s=args.think)
        finally:
            driver.close()
        return
    width, height = (int(v) for v in args.size.split("x"))
    with simulated((width, height), args.realistic):
        driver = AndroidDriver(options)
        kind = "realistic simulated phone" if args.realistic else "simulated phone"
        print(f"{kind} {driver.serial} through the adb server")
        try:
            if not args.loop_only:
                capture_paths(driver, runs)
            loop_overhead(driver, runs, dry=False, think_s=args.think)
        finally:
            driver.close()


if __name__ == "__main__":
    main()
