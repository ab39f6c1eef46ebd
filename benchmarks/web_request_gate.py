"""What the web request gate costs per step, and how well the red-team corpus is held.

Runs the real loop (scripted model, real Chromium, the default policy) on a feed page
whose steps make ordinary traffic (an XHR, an analytics POST and ten pictures per
"Load more", a page with twelve pictures per "Next page"), alternately with the
request gate and with the same driver without it, and prints the median time of a
step without the model, the difference, the requests judged per step and the median
time to judge one. `--corpus` also runs the web red-team corpus
(tests/redteam/web/cases.yaml) and prints the share of consequential cases held and
of benign cases gated.

    .venv/bin/python benchmarks/web_request_gate.py [STEPS] [--corpus]   (default 20 steps)
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.web_redteam import VIEWPORT, load_cases, run_case
from tests.support.web_redteam_site import RedTeamSite
from venusctl.core.actions import Surface
from venusctl.core.grid import to_grid
from venusctl.drivers.capabilities import Capability
from venusctl.drivers.factory import DriverOptions
from venusctl.drivers.web.driver import WebDriver, WebOptions
from venusctl.loop.agent import AgentSettings
from venusctl.loop.events import RunObserver
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import StepRecord
from venusctl.run.build import RunRequest, run_task
from venusctl.safety.confirm import NonInteractiveConfirmer
from venusctl.safety.requests import RequestGate
from venusctl.safety.setup import SafetyOptions

ROUNDS = 3


class Unheld(WebDriver):
    """The same driver with the request hold never switched on."""

    capabilities = WebDriver.capabilities - {Capability.HOLD_REQUESTS}

    def _start_hold(self) -> None:
        self._hold = None

    def _pump(self) -> None:  # only there to hand held requests to the judge
        return None


class Steps(RunObserver):
    def __init__(self) -> None:
        self.records: list[StepRecord] = []

    def step_finished(self, record: StepRecord) -> None:
        self.records.append(record)


def answers(steps: int) -> list[Completion]:
    more, page = (to_grid(p, VIEWPORT, Surface.BROWSER) for p in ((320, 230), (320, 330)))
    out = [Completion(text=f"<think>Go on.</think><action>Click(point={more if i % 2 else page})"
                           "</action>") for i in range(steps)]
    return [*out, Completion(text="<think>Done.</think><action>Finished(content='ok')</action>")]


def one_run(site: RedTeamSite, browser: str, steps: int, held: bool) -> tuple[list[float], int]:
    """Step times without the model (ms), and how many requests the gate judged."""
    url = site.allowed + "/p/feed.html"
    cls = WebDriver if held else Unheld
    driver = cls(WebOptions(url=url, viewport=VIEWPORT, browser_path=browser))
    observer = Steps()
    judged: list[float] = []
    original = RequestGate.judge

    def timed(self: RequestGate, request: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(self, request)
        finally:
            judged.append(time.perf_counter() - started)

    RequestGate.judge = timed  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            request = RunRequest(task="read the feed", driver=DriverOptions(driver="web", url=url),
                                 settings=AgentSettings(max_steps=steps + 1, settle_cap_s=3.0),
                                 safety=SafetyOptions(config={}), runs_dir=Path(tmp),
                                 output="quiet")
            run_task(request, confirmer=NonInteractiveConfirmer(), driver=driver,
                     model=ScriptedModel(answers(steps)), observers=[observer])
        finally:
            RequestGate.judge = original  # type: ignore[method-assign]
    measured = observer.records[1:-1]
    timed_steps = [sum(v for k, v in r.timings.items() if k != "model") * 1000 for r in measured]
    JUDGE_TIMES.extend(judged)
    return timed_steps, len(judged)


JUDGE_TIMES: list[float] = []


def gate_cost(site: RedTeamSite, browser: str, steps: int) -> None:
    with_gate: list[float] = []
    without: list[float] = []
    requests = 0
    for _round in range(ROUNDS):
        times, count = one_run(site, browser, steps, held=True)
        with_gate += times
        requests += count
        without += one_run(site, browser, steps, held=False)[0]
    on, off = statistics.median(with_gate), statistics.median(without)
    print(f"request gate, feed page, {ROUNDS} x {steps} steps each way (median ms per step, "
          "model excluded)")
    print(f"  without the gate {off:8.1f}")
    print(f"  with the gate    {on:8.1f}")
    print(f"  added per step   {on - off:8.1f}   ({requests / (ROUNDS * (steps + 1)):.1f} "
          "requests judged per step)")
    print(f"  judging one request {statistics.median(JUDGE_TIMES) * 1000:.2f} ms median "
          "(the policy's verdict; the round trip to the browser is in the step time)")


def corpus(browser_path: str) -> None:
    from playwright.sync_api import sync_playwright

    consequential, benign = load_cases()
    with RedTeamSite() as site, sync_playwright() as playwright, \
            tempfile.TemporaryDirectory() as tmp:
        def launch() -> Any:
            return playwright.chromium.launch(executable_path=browser_path, headless=True)

        browser, results, restarts = launch(), [], 0
        for case in [*consequential, *benign]:
            try:
                results.append(run_case(case, site, browser, Path(tmp) / case.id))
            except Exception:
                if browser.is_connected():
                    raise
                browser, restarts = launch(), restarts + 1  # crashed under load: once more
                results.append(run_case(case, site, browser, Path(tmp) / f"{case.id}-again"))
        browser.close()
    if restarts:
        print(f"  (Chromium crashed and was started again {restarts} times)")
    held = [r for r in results if r.case.consequential]
    gated = [r for r in results if not r.case.consequential and r.gated]
    layers: dict[str, int] = {}
    for result in held:
        if result.held:
            layers[result.layer] = layers.get(result.layer, 0) + 1
    print(f"web red-team corpus: consequential held {sum(r.held for r in held)}/{len(held)} "
          f"({100 * sum(r.held for r in held) / len(held):.0f} %; stopped by {layers}); "
          f"benign gated {len(gated)}/{len(benign)} ({100 * len(gated) / len(benign):.0f} %)")
    for result in held:
        if not result.held:
            print(f"  NOT held: {result.case.id}: {[str(h) for h in result.leaked]}")


def main() -> None:
    steps = int(next((a for a in sys.argv[1:] if a.isdigit()), "20"))
    browser = shutil.which("chromium") or shutil.which("google-chrome")
    if browser is None:
        sys.exit("chromium is not installed")
    with RedTeamSite() as site:
        gate_cost(site, browser, steps)
    if "--corpus" in sys.argv:
        corpus(browser)


if __name__ == "__main__":
    main()
