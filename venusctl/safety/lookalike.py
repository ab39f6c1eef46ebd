"""Letters of other scripts drawn like Latin letters, read as the Latin letter.

"Рау" in Cyrillic and "Pay" in Latin are the same picture on the screen; a keyword list
written in Latin letters sees nothing in the first. Unicode's confusables data (UTS #39,
shipped by the `confusable_homoglyphs` package) groups the characters that common fonts
draw alike; every letter or digit outside ASCII whose group holds an ASCII letter or digit
is read as that ASCII character before keywords are matched.

ASCII letters are never changed, so identifiers, roles and URLs read as before; only an
ASCII digit that touches a letter and is drawn like one ("0", "1") reads as that letter. UTS
#39's own skeleton also maps ASCII onto ASCII ("m" to "rn", "I" to "l"), and is case
sensitive; with labels matched case-insensitively that would make "Ignore" and "ignore"
differ. Instead the one group holding two ASCII letters ("I" and "l") gives an upper-case
look-alike "I" and a lower-case or caseless one "l": a Cyrillic "І" reads as the "I" it
looks like.

Folding before case-folding keeps each capital with the letter it looks like (Cyrillic
"В" is a "B", its lower case "в" is no "b"). A keyword therefore matches in each of the
cases labels are written in: `case_forms` gives the spellings to compile.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

_DIGIT_IN_WORD = re.compile(r"(?<=[^\W\d_])[0-9]|[0-9](?=[^\W\d_])")
"""A digit touching a letter: "n0w", "De1ete" (but not "49.00", "2 fa")."""
_MARK = "\u200e"
"""The data file wraps right-to-left characters in left-to-right marks; not part of them."""


def fold_table() -> dict[int, str]:
    """`str.translate` table: each non-ASCII letter or digit to its ASCII look-alike."""
    return _tables()[0]


@cache
def _tables() -> tuple[dict[int, str], dict[str, str]]:
    """The fold table, and the ASCII digits drawn like a letter ("0" "O", "1" "l")."""
    from confusable_homoglyphs.confusables import confusables_data

    parent: dict[str, str] = {}

    def root(char: str) -> str:
        while parent.setdefault(char, char) != char:
            parent[char] = parent[parent[char]]
            char = parent[char]
        return char

    for key, alikes in confusables_data.items():
        key = key.replace(_MARK, "")
        for alike in alikes:
            other = alike["c"].replace(_MARK, "")
            if len(key) == 1 and len(other) == 1:  # "rn" for "m" is no single letter
                parent[root(key)] = root(other)
    groups: dict[str, list[str]] = {}
    for char in parent:
        groups.setdefault(root(char), []).append(char)
    table: dict[int, str] = {}
    digit_letters: dict[str, str] = {}
    for members in groups.values():
        letters = sorted(c for c in members if c.isascii() and c.isalpha())
        digits = sorted(c for c in members if c.isascii() and c.isdigit())
        for char in members:
            kind = unicodedata.category(char)[0]
            if char.isascii() or kind not in "LN":
                continue
            # a letter reads as a letter, never as a digit: a Cyrillic "З" drawn like "3"
            # is still part of its word; a numeral drawn like a letter ("Ⅴ", "𐌢") reads
            # as that letter when no digit looks like it
            alikes = letters if kind == "L" else digits or letters
            compatible = unicodedata.normalize("NFKC", char)
            if kind == "N" and compatible.isascii() and compatible.isalpha():
                table[ord(char)] = compatible  # roman numerals are letters: "ⅼ" is "l"
            elif alikes:
                table[ord(char)] = _alike(char, alikes)
        for digit in digits:
            if letters:
                digit_letters[digit] = _alike(digit, letters)
    return table, digit_letters


def _alike(char: str, candidates: list[str]) -> str:
    """The candidate of the same case as `char`: "I" or "l" (the only group with two)."""
    return next((c for c in candidates if c.isupper() == char.isupper()), candidates[0])


def fold(text: str) -> str:
    """The text with every look-alike read as its ASCII letter or digit, and a digit
    drawn like a letter read as that letter where it touches one (`fold_digits`)."""
    return fold_digits(text if text.isascii() else text.translate(_tables()[0]))


def fold_split(text: str) -> str:
    """Look-alikes that NFKC would turn into something else, folded before it: NFKC makes
    the lunate sigma "ϲ" (drawn as a "c") a final sigma "ς", and the ypogegrammeni "ͺ"
    (drawn as an "i") a space and a mark."""
    return text if text.isascii() else text.translate(_split_table())


@cache
def _split_table() -> dict[int, str]:
    table = fold_table()
    return {code: alike for code, alike in table.items()
            if unicodedata.normalize("NFKC", chr(code)).translate(table).lower()
            != alike.lower()}


def fold_digits(text: str) -> str:
    """A digit drawn like a letter read as that letter where it touches one: "N0W",
    "De1ete" (and never in a number: "49.00", "2 fa")."""
    digit_letters = _tables()[1]
    return _DIGIT_IN_WORD.sub(lambda m: digit_letters.get(m.group(0), m.group(0)), text)


def case_forms(keyword: str) -> tuple[str, ...]:
    """The keyword as written, in lower case, in capitals, capitalised and in title case:
    after folding these may differ ("вход" keeps its "в", "ВХОД" reads "BXOД")."""
    return tuple(dict.fromkeys((keyword, keyword.lower(), keyword.upper(),
                                keyword.capitalize(), keyword.title())))
