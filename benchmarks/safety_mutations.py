"""How the guard holds on mutants of the labelled corpus, per axis and surface.

    .venv/bin/python benchmarks/safety_mutations.py [--policy default]

Every consequential and benign case of tests/corpus/safety is judged as written (with a
neutral thought: the baseline) and once per spelling axis of tests/support/mutations.py
(homoglyphs, zero-width characters, variation selectors, soft hyphens, a right-to-left
override, letter spacing) and label axis (the target's words replaced by its category's
emoji, a symbol, an icon font's glyph, a drawing OCR reads as noise). Prints held
(consequential mutants gated) and asked (benign mutants gated), counts and shares, per
axis and surface; tests/unit/test_safety_mutations.py prints the same table in the suite.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.mutations import outcomes, rates, report
from tests.support.safety_corpus import load_cases
from venusctl.safety.policy import load_policy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="default", help="policy name or YAML file")
    args = parser.parse_args()
    policy = load_policy(args.policy)
    started = time.perf_counter()
    found = list(outcomes(load_cases(), lambda case: case.policy_for(policy)))
    print(f"policy {args.policy}: {len(found)} verdicts in {time.perf_counter() - started:.1f} s")
    print(report(rates(found)))


if __name__ == "__main__":
    main()
