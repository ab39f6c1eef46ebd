"""Loop overhead per step on the web driver: everything but the model.

Runs the real agent loop (scripted model, real Chromium, the shop test app) for N
steps of clicks and hovers on a static page and prints the median time of each
phase and of the whole step without the model.

    .venv/bin/python benchmarks/web_loop.py [STEPS] [--png]     (default 30 steps, JPEG)
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from loop_timing import TimedRecord, print_reading

from venusctl.drivers.web.driver import WebDriver, WebOptions
from venusctl.loop.agent import Agent, AgentSettings
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import Recorder, RunInfo
from venusctl.run.build import make_guard
from venusctl.safety.confirm import NonInteractiveConfirmer
from venusctl.safety.ocr import shared_reader
from venusctl.sim.web import ShopServer

PHASES = ("observe", "parse", "place", "describe", "ocr", "guard", "act", "settle", "record")


def answers(steps: int) -> list[Completion]:
    out = []
    for i in range(steps):
        x, y = 24 + (i % 10) * 2, 700 + (i // 10) * 20  # on the words "Row N"
        kind = "Click" if i % 2 else "Hover"
        out.append(Completion(text=f"<think>step {i}</think><action>{kind}(point=({x}, {y}))"
                                   "</action>"))
    out.append(Completion(text="<think>done</think><action>Finished(content='ok')</action>"))
    return out


def main() -> None:
    steps = int(next((a for a in sys.argv[1:] if a.isdigit()), "30"))
    image_format = "png" if "--png" in sys.argv else "jpeg"
    browser = shutil.which("chromium") or shutil.which("google-chrome")
    with ShopServer() as shop, tempfile.TemporaryDirectory() as tmp:
        driver = WebDriver(WebOptions(url=shop.url + "/long", browser_path=browser,
                                      image_format=image_format))
        recorder = Recorder(Path(tmp), "benchmark")
        observer = TimedRecord(recorder)
        info = RunInfo(recorder.run_id, "benchmark", "browser", "web", "scripted",
                       recorder.run_dir)
        model = ScriptedModel(answers(steps))
        guard = make_guard("policy", assume_yes=False)  # the default policy, as `do` uses
        agent = Agent(driver, model, guard, NonInteractiveConfirmer(), "S", info,
                      AgentSettings(max_steps=steps + 1), [observer], reader=shared_reader())
        try:
            outcome = agent.run()
        finally:
            driver.close()
    assert outcome.status == "finished", outcome
    measured = observer.records[1:-1]  # skip the first (warm-up) and the Finished step
    print(f"web driver, {image_format.upper()} screenshots, 1280x800 viewport, "
          f"{len(measured)} steps (median ms)")
    totals = []
    for phase in PHASES:
        values = [r.timings.get(phase, 0.0) * 1000 for r in measured]
        print(f"  {phase:<9} {statistics.median(values):8.1f}")
    for record in measured:
        totals.append(sum(v for k, v in record.timings.items() if k != "model") * 1000)
    print(f"  {'total':<9} {statistics.median(totals):8.1f}   (everything but the model)")
    print_reading(measured)


if __name__ == "__main__":
    main()
