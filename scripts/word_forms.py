"""Write policies/words/<code>.forms.json: every inflected form of each keyword's words.

A label says "Deleting", "Paid", "Удалите" or "gelöscht" as often as the base form a
keyword file lists, so the guard matches each word of a keyword in all its forms.
The forms come from simplemma's dictionaries (form -> lemma, built from Wiktionary and
other open word lists): a keyword word's lemma is looked up, and every form that
dictionary maps to that lemma is kept. English past forms are left out (lemminflect
tells which they are): "Sent", "Deleted items" and "Installed" name a folder or a
state, and asking before each click on them costs more trust than it buys; the other
languages keep every form (their dictionaries carry no parts of speech).

Loading and inverting a dictionary takes up to 4 s a language, too long for every run,
so the forms are generated here once and shipped as data; the unit suite checks the
shipped files still match (run this script after editing a keyword file):

    .venv/bin/python scripts/word_forms.py           # rewrite the forms files
    .venv/bin/python scripts/word_forms.py --check   # exit 1 when they are stale

Languages simplemma has no dictionary for (zh, ja, ko, vi: no inflection to speak of)
get no forms file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import lemminflect
import yaml
from simplemma.strategies.dictionaries.dictionary_factory import (
    SUPPORTED_LANGUAGES,
    _load_dictionary_from_disk,
)

WORDS = Path(__file__).resolve().parent.parent / "policies" / "words"
SUFFIX = ".forms.json"
MAX_FORMS = 300  # more than this is a dictionary artefact (a verb has at most ~150)


def keyword_words(code: str) -> list[str]:
    """The distinct lower-case words of every keyword in a language's file."""
    lists = yaml.safe_load((WORDS / f"{code}.yaml").read_text(encoding="utf-8")) or {}
    words: dict[str, None] = {}
    for listed in lists.values():
        for keyword in listed or []:
            keyword = str(keyword)
            if keyword.startswith("re:"):
                continue
            for word in keyword.lower().split():
                words.setdefault(word, None)
    return list(words)


def dictionary_of(code: str) -> dict[str, str]:
    """simplemma's form -> lemma mapping for a language, in lower case."""
    return {k.decode().lower(): v.decode().lower()
            for k, v in _load_dictionary_from_disk(code).items()}


def forms_of(code: str, dictionary: dict[str, str],
             others: dict[str, tuple[dict[str, str], set[str], set[str]]]) -> dict[str, list[str]]:
    """word -> its other forms, for the words of `code`'s keywords that have any.

    A form of a language other than English that is a word of another shipped language,
    meaning something no keyword of that language means, is left out: "page" is a form of
    Spanish "pagar" and an English noun. English forms are all kept: the other
    dictionaries borrow English words ("checking", "removes"), and a label in English is
    far the likelier reading of an English form."""
    by_lemma: dict[str, set[str]] = {}
    for form, lemma in dictionary.items():
        by_lemma.setdefault(lemma, set()).add(form)
    known = set(dictionary) | set(by_lemma)
    out: dict[str, list[str]] = {}
    for word in keyword_words(code):
        lemma = dictionary.get(word, word)
        found = by_lemma.get(lemma, set()) | by_lemma.get(word, set()) | {lemma}
        if code == "en" and len(lemma) > 2:  # the dictionary lacks some regular forms ("buying")
            found |= {f for f in _english_regular(lemma) if f in known}
        if code == "en":
            found -= _english_past(lemma)
        found = {f for f in found if f != word and f.isalpha() and len(f) > 1
                 and (code == "en" or not _elsewhere(f, code, others))}
        if found and len(found) <= MAX_FORMS:
            out[word] = sorted(found)
    return dict(sorted(out.items()))


def _elsewhere(form: str, code: str,
               others: dict[str, tuple[dict[str, str], set[str], set[str]]]) -> bool:
    """Whether `form` is a word of another language that none of its keywords mean."""
    for other, (dictionary, keywords, lemmas) in others.items():
        if other == code or form in keywords:
            continue
        lemma = dictionary.get(form, form if form in lemmas else None)
        if lemma is not None and lemma not in keywords:
            return True
    return False


def _english_past(lemma: str) -> set[str]:
    """The past forms of an English verb that are not also its present ("deleted", "sent",
    "paid", but not "put"): they name a state ("Sent", "Deleted items", "Installed"), the
    label of a folder or a badge, not an action a button takes."""
    tags = lemminflect.getAllInflections(lemma, upos="VERB")
    past = {f for tag in ("VBD", "VBN") for f in tags.get(tag, ())}
    present = {f for tag in ("VB", "VBP", "VBZ", "VBG") for f in tags.get(tag, ())}
    return past - present


def _english_regular(lemma: str) -> set[str]:
    """The regular -s, -ed and -ing forms of an English verb or noun, spelled every way
    the rules allow (the dictionary decides which exist)."""
    stem = lemma[:-1] if lemma.endswith("e") else lemma
    doubled = lemma + lemma[-1] if lemma[-1:] not in "aeiouwxy" else lemma
    forms = {lemma + "s", lemma + "es", stem + "ed", stem + "ing", doubled + "ed",
             doubled + "ing", lemma + "d"}
    if lemma.endswith("y") and lemma[-2:-1] not in "aeiou":
        forms |= {lemma[:-1] + "ies", lemma[:-1] + "ied"}
    return forms


def rendered(forms: dict[str, list[str]]) -> str:
    return json.dumps(forms, ensure_ascii=False, indent=0, sort_keys=True) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether files are stale")
    args = parser.parse_args()
    codes = [p.stem for p in sorted(WORDS.glob("*.yaml")) if p.stem in SUPPORTED_LANGUAGES]
    others = {}
    for code in codes:  # every language's words, to keep one language's forms out of another's
        dictionary = dictionary_of(code)
        words = set(keyword_words(code))
        others[code] = (dictionary, words | {dictionary.get(w, w) for w in words},
                        set(dictionary.values()))
    stale = []
    for code in codes:
        target = WORDS / f"{code}{SUFFIX}"
        text = rendered(forms_of(code, others[code][0], others))
        if target.exists() and target.read_text(encoding="utf-8") == text:
            continue
        stale.append(target.name)
        if not args.check:
            target.write_text(text, encoding="utf-8")
    if stale:
        print(("stale: " if args.check else "wrote: ") + ", ".join(stale))
    return 1 if stale and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
