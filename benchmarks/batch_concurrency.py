"""How much `--concurrency` buys on one machine: the same web tasks, 1, 2 and 4 at a time.

Each task opens its own Chromium context on the local shop app and plays back scripted
answers (click the About link, finish). Two cases: answers at once (venusctl's own
overhead and the browsers' work), and answers that take `--model-seconds` each, as a
model on a server does (the tasks then wait on the model, not on this machine's CPUs).
Prints the median wall time of the whole batch and its ratio to one task at a time.

    .venv/bin/python benchmarks/batch_concurrency.py [--tasks 8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from venusctl.batch.display import BatchDisplay  # noqa: E402
from venusctl.batch.pool import PoolOptions  # noqa: E402
from venusctl.batch.runner import BatchOptions, run_batch  # noqa: E402
from venusctl.drivers.factory import DriverOptions  # noqa: E402
from venusctl.model.scripted import ScriptedModel  # noqa: E402
from venusctl.sim.web import ShopServer  # noqa: E402

ANSWERS = ["<action>Click(point=(137, 535))</action>",
           "<action>Finished(content='about page')</action>"]


def task_file(folder: Path, url: str, count: int) -> Path:
    (folder / "about.jsonl").write_text("".join(json.dumps(a) + "\n" for a in ANSWERS))
    lines = [json.dumps({"id": f"about-{i}", "task": "open the about page", "driver": "web",
                         "url": url + "/", "answers": "about.jsonl",
                         "check": {"url_matches": "/about$"}}) for i in range(count)]
    path = folder / "tasks.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def one_batch(path: Path, concurrency: int, browser: str | None) -> float:
    runs = Path(tempfile.mkdtemp(prefix="venusctl-bench-"))
    try:
        options = BatchOptions(file=path, runs_dir=runs, concurrency=concurrency,
                               continue_on_error=True,
                               pool=PoolOptions(base=DriverOptions(browser_path=browser)))
        started = time.perf_counter()
        report = run_batch(options, BatchDisplay(live=False))
        seconds = time.perf_counter() - started
        if report.exit_code != 0:
            raise SystemExit(f"a task failed: {[r.error for r in report.results]}")
        return seconds
    finally:
        shutil.rmtree(runs, ignore_errors=True)


def slow_answers(seconds: float) -> None:
    """Every scripted answer takes `seconds`, like a model server's reply."""
    original = ScriptedModel.complete

    def complete(self, messages, options, on_text=None):
        time.sleep(seconds)
        return original(self, messages, options, on_text)

    ScriptedModel.complete = complete  # type: ignore[method-assign]


def measure(path: Path, args: argparse.Namespace) -> dict[int, float]:
    return {concurrency: statistics.median(
        one_batch(path, concurrency, args.browser_path) for _ in range(args.repeats))
        for concurrency in (1, 2, 4)}


def show(title: str, results: dict[int, float], tasks: int) -> None:
    print(title)
    for concurrency, seconds in results.items():
        print(f"  --concurrency {concurrency}: {seconds:6.2f} s  "
              f"({seconds / tasks:.2f} s per task, {results[1] / seconds:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--model-seconds", type=float, default=2.0)
    parser.add_argument("--browser-path", default=shutil.which("chromium"))
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="venusctl-bench-tasks-"))
    with ShopServer() as shop:
        path = task_file(folder, shop.url, args.tasks)
        instant = measure(path, args)
        slow_answers(args.model_seconds)
        waiting = measure(path, args)
    shutil.rmtree(folder, ignore_errors=True)
    head = f"{args.tasks} web tasks of 2 steps, median of {args.repeats} batches"
    show(f"{head}, answers at once:", instant, args.tasks)
    show(f"{head}, {args.model_seconds:g} s per answer (a model server):", waiting, args.tasks)


if __name__ == "__main__":
    main()
