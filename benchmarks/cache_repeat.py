"""What the trajectory cache buys: the offline suite run twice, the model taking 2 s.

Runs `examples/suite/suite.yaml` (a web shop, a Tk app on Xvfb, a simulated phone;
five tasks, each checked) as a batch against a scripted OpenAI-compatible model
server on 127.0.0.1 that takes `--model-seconds` per answer, like a model on a GPU
box. The first run starts with an empty cache and asks the model at every step;
the second finds every task in the cache. Prints the wall time of both side by
side: the agent's runs alone (what the cache shortens), the tasks (the batch's own
clock from the first task to the last: also opening a browser per task, launching
apps, running checks) and the whole batch with its environments starting and stopping.

    .venv/bin/python benchmarks/cache_repeat.py [--model-seconds 2] [--repeats 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.script_server import ScriptServer  # noqa: E402

SUITE = ROOT / "examples" / "suite" / "suite.yaml"
VENUSCTL = str(Path(sys.executable).with_name("venusctl"))


def scripts() -> dict[str, list[str]]:
    """Each suite task's scripted answers, as the model server will say them."""
    data = yaml.safe_load(SUITE.read_text(encoding="utf-8"))
    found = {}
    for task in data["tasks"]:
        lines = (SUITE.parent / task["answers"]).read_text(encoding="utf-8").splitlines()
        answers = [json.loads(line) for line in lines if line.strip()]
        found[task["task"].strip()] = [f"<think>{a.get('reasoning', '')}</think>{a['text']}"
                                       for a in answers]
    return found


def one_batch(server: ScriptServer, cache: Path, browser: str | None) -> dict[str, float]:
    """`venusctl batch` in its own process, as a person or cron would run it (a process
    per batch also gives each its own X connection to its own Xvfb)."""
    runs = Path(tempfile.mkdtemp(prefix="venusctl-bench-runs-"))
    asked_before = len(server.asked)
    command = [VENUSCTL, "batch", str(SUITE), "--server", server.url, "--continue-on-error",
               "--runs-dir", str(runs), "--json", "--cache", "on"]
    if browser:
        command += ["--browser-path", browser]
    try:
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, timeout=1800,
                              env={**os.environ, "VENUSCTL_CACHE_DIR": str(cache)})
        whole = time.perf_counter() - started
        events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        tasks = [e for e in events if e.get("event") == "task"]
        summary = next((e for e in events if e.get("event") == "summary"), None)
        if done.returncode != 0 or summary is None:
            failed = [(t["id"], t["status"], t["error"]) for t in tasks if not t["passed"]]
            raise SystemExit(f"the suite did not pass ({done.returncode}): {failed} "
                             f"{done.stderr[-800:]}")
        per_task = {f"task:{t['id']}": t["seconds"] for t in tasks}
        return {"tasks": summary["seconds"], "whole": whole, "loop": loop_seconds(tasks),
                "asked": len(server.asked) - asked_before,
                "replayed": sum(t["replayed"] for t in tasks),
                "steps": sum(t["steps"] for t in tasks), **per_task}
    finally:
        shutil.rmtree(runs, ignore_errors=True)


def loop_seconds(tasks: list[dict]) -> float:
    """Time inside the agent's runs (first observation to the end, from each run.json):
    the part the cache can shorten; the rest is opening browsers, apps and checks."""
    total = 0.0
    for task in tasks:
        info = json.loads((Path(task["run_dir"]) / "run.json").read_text(encoding="utf-8"))
        total += info["outcome"]["ended_at"] - info["started_at"]
    return total


def measure(args: argparse.Namespace) -> list[tuple[dict[str, float], dict[str, float]]]:
    pairs = []
    with ScriptServer(scripts(), delay_s=args.model_seconds) as server:
        for _ in range(args.repeats):
            cache = Path(tempfile.mkdtemp(prefix="venusctl-bench-cache-"))
            try:
                first = one_batch(server, cache, args.browser_path)
                second = one_batch(server, cache, args.browser_path)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            pairs.append((first, second))
    return pairs


def show(pairs: list[tuple[dict[str, float], dict[str, float]]], seconds: float) -> None:
    def median(run: int, name: str) -> float:
        return statistics.median(pair[run][name] for pair in pairs)

    print(f"offline suite ({median(0, 'steps'):.0f} steps in 5 tasks), model "
          f"{seconds:g} s per answer, median of {len(pairs)} pair(s) of runs")
    print(f"  {'':<28}{'first run':>12}{'second run':>12}{'ratio':>9}")
    for name, label in (("loop", "agent runs (sum)"), ("tasks", "wall time, tasks"),
                        ("whole", "wall time, with environments")):
        first, second = median(0, name), median(1, name)
        print(f"  {label:<28}{first:>10.1f} s{second:>10.1f} s{first / second:>8.1f}x")
    for name, label in (("asked", "model answers"), ("replayed", "steps replayed")):
        print(f"  {label:<28}{median(0, name):>12.0f}{median(1, name):>12.0f}")
    for name in sorted(k for k in pairs[0][0] if k.startswith("task:")):
        first, second = median(0, name), median(1, name)
        print(f"  {name[5:]:<28}{first:>10.1f} s{second:>10.1f} s{first / second:>8.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model-seconds", type=float, default=2.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--browser-path", default=shutil.which("chromium"))
    args = parser.parse_args()
    show(measure(args), args.model_seconds)


if __name__ == "__main__":
    main()
