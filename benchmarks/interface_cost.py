"""What the authors' interface costs against lean, per screen size, on this machine.

    .venv/bin/python benchmarks/interface_cost.py [--model vocab|tiny|9b] [--runs 3]

For each screen (phone 1080x2400, desktop 1920x1080 and 2560x1440, browser 1024x768)
and each interface mode, a 3-step run through `LlamaModel` with the messages venusctl
builds for that surface (`venusctl.interface.messages.build` with the mode's profile): the
authors' mode sends screenshots unresized and resends the last two; lean caps them at
1,280 image tokens and resends none. Prints the image tokens per screenshot, the
first step (nothing cached) and the median of the later steps (prefix reuse), as
medians over `--runs` runs, and the authors/lean ratio. Greedy, grammar off, 8 answer
tokens: the figures are prefill, which is what the interface changes.
"""

from __future__ import annotations

import argparse
import os
import time

from model_common import median, model_files, screen

from venusctl.core.actions import Surface
from venusctl.interface.messages import Turn, build, load_template, system_prompt
from venusctl.interface.profile import profile_for
from venusctl.model.base import SamplingOptions
from venusctl.model.llama.backend import LlamaModel, LlamaSettings, default_threads

SCREENS = [
    ("phone 1080x2400", Surface.MOBILE, (1080, 2400)),
    ("desktop 1920x1080", Surface.DESKTOP, (1920, 1080)),
    ("desktop 2560x1440", Surface.DESKTOP, (2560, 1440)),
    ("browser 1024x768", Surface.BROWSER, (1024, 768)),
]
ANSWER = "<think>I look at the screen.</think>\n<action>Wait()</action>"
TASK = "find the order number and tell me"


def run_steps(model: LlamaModel, surface: Surface, size: tuple[int, int], mode: str,
              steps: int = 3) -> tuple[list[float], int]:
    """Seconds per step of one run, and the image tokens of the first step."""
    profile = profile_for(surface.value, mode)
    system = system_prompt(load_template(surface), TASK)
    model.cache.clear()
    history: list[Turn] = []
    seconds: list[float] = []
    image_tokens = 0
    for step in range(steps):
        messages = build(system, history, screen(step, size), profile=profile)
        started = time.perf_counter()
        completion = model.complete(messages, SamplingOptions(max_tokens=8, temperature=0.0))
        seconds.append(time.perf_counter() - started)
        image_tokens = image_tokens or completion.image_tokens
        history.append(Turn(ANSWER, screen(step, size)))
    return seconds, image_tokens


def measure(files, threads: int, label: str, surface: Surface, size: tuple[int, int],
            mode: str, runs: int) -> tuple[int, float, float]:
    budget = profile_for(surface.value, mode).image_max_tokens
    model = LlamaModel(LlamaSettings(files.model, files.mmproj, threads=threads,
                                     grammar=False, image_min_tokens=None,
                                     image_max_tokens=budget), surface)
    try:
        run_steps(model, surface, size, mode, steps=1)  # warm-up
        firsts, laters, tokens = [], [], 0
        for _ in range(runs):
            seconds, tokens = run_steps(model, surface, size, mode)
            firsts.append(seconds[0])
            laters.append(median(seconds[1:]))
        return tokens, median(firsts), median(laters)
    finally:
        model.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="vocab")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=default_threads())
    args = parser.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    files = model_files(args.model)
    print(f"model: {args.model}, threads {args.threads}, medians of {args.runs} runs of 3 "
          "steps (first step: nothing cached; later: median of steps 2-3)")
    for label, surface, size in SCREENS:
        results = {mode: measure(files, args.threads, label, surface, size, mode, args.runs)
                   for mode in ("authors", "lean")}
        parts = [f"{mode}: {tok} image tokens, first {first:.2f} s, later {later:.2f} s"
                 for mode, (tok, first, later) in results.items()]
        ratio_first = results["authors"][1] / results["lean"][1]
        ratio_later = results["authors"][2] / results["lean"][2]
        print(f"{label:18} {' | '.join(parts)} | authors/lean first {ratio_first:.2f}x, "
              f"later {ratio_later:.2f}x")


if __name__ == "__main__":
    main()
