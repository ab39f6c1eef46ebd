"""Where the test suite spends its time: seconds per test folder, slowest first.

    .venv/bin/python benchmarks/suite_time.py                      # runs the whole suite
    .venv/bin/python benchmarks/suite_time.py -- -m unit -n 0      # pytest arguments after --
    .venv/bin/python benchmarks/suite_time.py --junit report.xml   # an earlier run's report

Without `--junit` it runs pytest once (the arguments after `--` are passed on) with a
JUnit report in a temporary folder, then reads that report. Each test's time is pytest's
own: set-up, call and teardown together, so a session fixture's start-up is charged to
the first test that asks for it. With several workers the folder times add up to more
than the wall-clock time, which is printed beside them.

Prints, per folder: tests, seconds, share of the total, and the median and slowest test.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Case:
    folder: str
    name: str
    seconds: float


def folder_of(classname: str) -> str:
    """`tests.integration.web.test_x.TestY` -> `tests/integration/web`: the dotted parts
    before the test module (modules are `test_*`; a class may follow)."""
    parts = classname.split(".")
    for index, part in enumerate(parts):
        if part.startswith("test_"):
            return "/".join(parts[:index]) or "."
    return "/".join(parts[:-1]) or "."


def read_cases(report: Path) -> list[Case]:
    root = ElementTree.parse(report).getroot()
    return [Case(folder_of(case.get("classname", "")),
                 f"{case.get('classname', '')}::{case.get('name', '')}",
                 float(case.get("time") or 0.0))
            for case in root.iter("testcase")]


def table(cases: list[Case]) -> str:
    by_folder: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        by_folder[case.folder].append(case)
    total = sum(case.seconds for case in cases) or 1.0
    rows = [f"{'folder':<34} {'tests':>6} {'seconds':>9} {'share':>6} {'median':>8}  slowest"]
    for folder, members in sorted(by_folder.items(), key=lambda item: -sum(
            case.seconds for case in item[1])):
        seconds = sum(case.seconds for case in members)
        slowest = max(members, key=lambda case: case.seconds)
        rows.append(f"{folder:<34} {len(members):>6} {seconds:>9.1f} {seconds / total:>6.1%} "
                    f"{statistics.median(case.seconds for case in members):>8.2f}  "
                    f"{slowest.seconds:.1f} s {slowest.name.rsplit('.', 1)[-1]}")
    rows.append(f"{'all':<34} {len(cases):>6} {total:>9.1f}")
    return "\n".join(rows)


def run_pytest(arguments: list[str], report: Path) -> float:
    """Run the suite with a JUnit report; returns the wall-clock seconds."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "pytest", "-q", f"--junitxml={report}", *arguments],
                   cwd=ROOT, check=False)
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--junit", type=Path, help="read this JUnit report instead of running")
    parser.add_argument("pytest_args", nargs="*", help="pytest arguments (after --)")
    options = parser.parse_args()
    wall: float | None = None
    if options.junit is not None:
        report = options.junit
        if not report.is_file():
            print(f"error: no such report: {report}", file=sys.stderr)
            return 2
        cases = read_cases(report)
    else:
        with tempfile.TemporaryDirectory() as folder:
            report = Path(folder) / "junit.xml"
            wall = run_pytest(options.pytest_args, report)
            if not report.is_file():
                print("error: pytest wrote no report (see its output above)", file=sys.stderr)
                return 2
            cases = read_cases(report)
    print(table(cases))
    if wall is not None:
        print(f"wall-clock: {wall:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
