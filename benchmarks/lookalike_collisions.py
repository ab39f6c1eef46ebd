"""How often a real word of another script reads as one of the policy's Latin keywords once
look-alike letters are folded (venusctl.safety.lookalike): the cost of reading "Рау" as
"pay" is that a Cyrillic word drawn like an English keyword is read as it too.

    .venv/bin/python benchmarks/lookalike_collisions.py /usr/share/dict/ukrainian \\
        /usr/share/dict/bulgarian [--policy default]

Word lists come from Debian (`apt-get install wukrainian wbulgarian`, one word per line).
Each word is judged as written, in capitals and capitalised. Prints, per list, how many
forms fold wholly into ASCII letters and how many of those hit a Latin keyword, with the
hits.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from venusctl.safety.policy import load_policy
from venusctl.safety.text import REGEX_PREFIX, KeywordSet, normalize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lists", nargs="+", type=Path, help="word lists, one word per line")
    parser.add_argument("--policy", default="default", help="policy name or YAML file")
    args = parser.parse_args()
    policy = load_policy(args.policy)
    latin = KeywordSet.compile(w for words in policy.keywords.values() for w in words
                               if w.isascii() and not w.startswith(REGEX_PREFIX))
    print(f"policy {args.policy}: {len(latin.source)} Latin keywords")
    for path in args.lists:
        started = time.perf_counter()
        words = path.read_text(encoding="utf-8", errors="replace").split()
        forms = ascii_ = 0
        hits: list[str] = []
        for word in words:
            for form in dict.fromkeys((word, word.upper(), word.capitalize())):
                forms += 1
                folded = normalize(form)
                if not folded.isascii():
                    continue
                ascii_ += 1
                hit = latin.search(folded)
                if hit:
                    hits.append(f"{form} ({hit})")
        print(f"{path}: {len(words)} words, {forms} forms; {ascii_} fold wholly into ASCII; "
              f"{len(hits)} read as a keyword ({100 * len(hits) / forms:.5f} %) in "
              f"{time.perf_counter() - started:.0f} s")
        if hits:
            print("  " + ", ".join(hits[:20]))


if __name__ == "__main__":
    main()
