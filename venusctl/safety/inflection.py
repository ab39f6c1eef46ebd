"""Every form of a keyword's words: "Deleting", "Pays", "Удалите" read as the keyword.

Keyword files list base forms; labels use whichever form the sentence needs. The forms
of each word of the shipped keyword files are generated once from a lemmatizer's
dictionaries (`scripts/word_forms.py`, simplemma) and shipped beside them as
`policies/words/<code>.forms.json`. Matching reads a label a second time with each such
form replaced by its base word ("deleting account" as "delete account"), so keyword
patterns stay as small as the keyword files (putting every form into them made the
first compile of the default policy take 1.4 s instead of 0.17 s). A word no file
knows reads as written: a policy's own keywords get the forms of the words a shipped
file also lists, and no others.
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache
from importlib import resources

FOLDER = "words"
SUFFIX = ".forms.json"


@cache
def word_forms() -> dict[str, tuple[str, ...]]:
    """Lower-case base word -> its other forms, every shipped language merged."""
    folder = resources.files("venusctl.policies").joinpath(FOLDER)
    merged: dict[str, dict[str, None]] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(SUFFIX):
            continue
        for word, forms in json.loads(entry.read_text("utf-8")).items():
            merged.setdefault(word, {}).update(dict.fromkeys(forms))
    return {word: tuple(forms) for word, forms in merged.items()}


@cache
def _bases() -> dict[str, str]:
    """Form -> the base word it is a form of, as written and without accents (the
    normalised text has none). A keyword word may be a form of another ("booking" of
    "book"): it maps to that other word."""
    bases: dict[str, str] = {}
    for word, forms in sorted(word_forms().items()):
        for form in forms:
            for key in dict.fromkeys((form, _unaccented(form))):
                bases.setdefault(key, word)
    return bases


@cache
def _keyword_words() -> frozenset[str]:
    return frozenset(w for word in word_forms() for w in (word, _unaccented(word)))


def is_keyword_word(word: str) -> bool:
    """Whether a keyword file lists `word` (lower case) itself."""
    return word in _keyword_words()


def _unaccented(word: str) -> str:
    if word.isascii():
        return word
    stripped = "".join(c for c in unicodedata.normalize("NFD", word)
                       if not unicodedata.combining(c))
    return unicodedata.normalize("NFC", stripped)


def base_word(word: str) -> str | None:
    """The keyword word `word` (lower case) is a form of, or None."""
    return _bases().get(word)
