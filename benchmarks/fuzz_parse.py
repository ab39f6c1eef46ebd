"""Fuzz the action parser: N random and adversarial answers must only ever give a
parsed action or a ParseError. Prints the counts and the parse rate.

    .venv/bin/python benchmarks/fuzz_parse.py [N]      (default 100000)
"""

from __future__ import annotations

import random
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.action_strategies import adversarial_text, valid_samples
from venusctl.core.actions import Surface, parse
from venusctl.core.errors import ParseError


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    rng = random.Random(1130)
    valid = {s: valid_samples(rng, s, 200) for s in Surface}
    parsed = rejected = 0
    crashes: list[str] = []
    started = time.perf_counter()
    for _ in range(count):
        surface = rng.choice(list(Surface))
        text = adversarial_text(rng, surface, valid[surface])
        try:
            parse(text, surface)
            parsed += 1
        except ParseError:
            rejected += 1
        except Exception:  # the point of the exercise: anything here is a bug
            crashes.append(f"{text!r}\n{traceback.format_exc()}")
    elapsed = time.perf_counter() - started
    print(f"inputs {count}  parsed {parsed}  ParseError {rejected}  "
          f"other exceptions {len(crashes)}")
    print(f"time {elapsed:.2f} s  ({count / elapsed:,.0f} answers/s, "
          f"mean {elapsed / count * 1e6:.1f} µs per answer)")
    for crash in crashes[:5]:
        print(crash)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
