"""Matching keywords in what the guard reads: labels, resource ids, URLs, typed text.

Labels arrive in many shapes: "Pay now", "btn_pay_now", "payNowButton", "立即支付",
"/checkout/pay". `normalize` folds them into lower-case words so one keyword list
covers all of them. Latin-script keywords match whole words only ("pay" does not
match "display" or "PayPal"); CJK and kana keywords match anywhere, since those
scripts put no spaces between words. `re:` entries are regular expressions matched
against the raw lower-cased text, for shapes words cannot express (shell commands).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from venusctl.safety.inflection import base_word, is_keyword_word
from venusctl.safety.lookalike import case_forms, fold, fold_digits, fold_split

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[\s_\-./:?&=#+,;|()\[\]{}\"'`<>*@]+")
_WIDE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# Arabic hamza-carrying alefs read as plain alef, and vowel marks and tatweel are
# dropped; accents of Latin, Greek and Cyrillic letters are dropped (`xóa` is `xoa`,
# `usuń` is `usun`, `ё` is `е`), and letters with strokes read as their base letter:
# so a label matches however it was capitalised, vocalised or accented, and an OCR
# reading that lost its accents, an ASCII resource id or URL, still match.
# Letters written either way in the same language: Arabic alef forms, Persian yeh and
# keheh for the Arabic letters (fa and ar keyboards type different code points for one
# letter), Devanagari candrabindu for anusvara ("मिटाएँ", "मिटाएं") and its nukta dropped.
_FOLD = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ı": "i", "ـ": None,
                       "ł": "l", "đ": "d", "ø": "o", "ħ": "h", "ŧ": "t", "ð": "d",
                       "ی": "ي", "ى": "ي", "ک": "ك", "ँ": "ं", "\u093c": None})
# vowel marks a label may carry or not: Arabic harakat, Hebrew points and cantillation
_VOWEL_MARKS = re.compile("[\u064b-\u065f\u0670\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4"
                          "\u05c5\u05c7]")
_ACCENTED = re.compile("[\u00c0-\u052f\u1e00-\u1fff]")

# Characters drawn as nothing: format controls (zero-width spaces and joiners, soft
# hyphen, bidi controls, word joiner, tags), variation selectors, the combining grapheme
# joiner and the Hangul fillers. A label may hide a word behind any of them.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e0fff\U0001bca0-\U0001bca3\U0001d173-\U0001d17a]")
_OPENS = {"\u202a": False, "\u202b": False, "\u202d": False, "\u202e": True}
"""Embeddings and overrides, each closed by PDF; True: its letters are drawn reversed."""
_PDF = "\u202c"
_SPACED = re.compile(r"(?<!\S)\S(?:\s\S)+(?!\S)")
"""Single characters one space apart form one word ("D E L E T E", "O K", "4 9 . 0 0"); a
wider gap separates words ("M o v e   t o   t r a s h")."""
_GAP = re.compile(r"[^\S\n\r]{2,}")
_WORDS = re.compile(r"\w+")

REGEX_PREFIX = "re:"


def readable(text: str) -> str:
    """The text as a person reads it on the screen: invisible characters dropped, a run
    inside a right-to-left override (stored backwards, "won yaP", drawn forwards) read
    reversed, and letters spaced one apart read as their word."""
    joined, spaced = _SPACED.subn(lambda run: "".join(run.group(0).split()), _displayed(text))
    return _GAP.sub(" ", joined) if spaced else joined  # the wider gaps were word spaces


def _displayed(text: str) -> str:
    if not _INVISIBLE.search(text):
        return text
    runs: list[tuple[list[str], bool]] = [([], False)]
    for char in text:
        if char in _OPENS:
            runs.append(([], _OPENS[char]))
        elif char == _PDF and len(runs) > 1:
            _close(runs)
        else:
            runs[-1][0].append(char)
    while len(runs) > 1:
        _close(runs)
    return _INVISIBLE.sub("", "".join(runs[0][0]))


def _close(runs: list[tuple[list[str], bool]]) -> None:
    chars, reversed_ = runs.pop()
    runs[-1][0].extend(reversed(chars) if reversed_ else chars)


def normalize(text: str | None) -> str:
    """Lower-case words separated by single spaces (camelCase and snake_case split), of
    the text as it is drawn (`readable`), look-alike letters read as the ASCII letter they
    look like (`lookalike.fold`: "Рау" in Cyrillic is "pay")."""
    if not text:
        return ""
    folded = unicodedata.normalize("NFKC", fold_split(readable(text)))
    folded = fold_digits(_without_accents(folded))
    folded = _CAMEL.sub(" ", folded)
    # after the camelCase split: a capital's look-alike may be a small letter ("Ь", "b")
    folded = fold(folded)
    folded = _VOWEL_MARKS.sub("", _SEPARATORS.sub(" ", folded).casefold()).translate(_FOLD)
    # folded again: letters that only become look-alikes in lower case or unvocalised
    return " ".join(fold(_without_accents(folded)).lower().split())


def _without_accents(text: str) -> str:
    """Latin, Greek and Cyrillic letters without their combining accents (other scripts,
    Hangul and kana among them, keep every mark)."""
    if not _ACCENTED.search(text):
        return text
    out: list[str] = []
    for char in unicodedata.normalize("NFD", text):
        if unicodedata.combining(char) and out and out[-1] < "\u0530":
            continue
        out.append(char)
    return unicodedata.normalize("NFC", "".join(out))


def names(text: str | None) -> bool:
    """Whether the text holds a letter or digit: a label of symbols, emoji or an icon
    font's private-use glyphs ("➤", "💳", "\uf1f8") names nothing a person can read as
    a word, however many characters it has."""
    return bool(text) and any(unicodedata.category(c)[0] in "LN" for c in readable(text))


_SCRIPT_GROUPS = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "KATAKANA-HIRAGANA": "CJK",
                  "IDEOGRAPHIC": "CJK"}


@lru_cache(maxsize=4096)
def scripts_of(text: str | None) -> frozenset[str]:
    """The scripts a text's letters are written in, as Unicode's character names begin
    ("LATIN", "CYRILLIC", "THAI", "HANGUL"; Chinese characters and kana are "CJK"): a
    policy reads only the scripts its words are written in (`Policy.scripts`)."""
    if not text:
        return frozenset()
    found = set()
    for char in unicodedata.normalize("NFKC", readable(text)):
        if unicodedata.category(char)[0] == "L":
            script = unicodedata.name(char, "UNKNOWN").split()[0]
            found.add(_SCRIPT_GROUPS.get(script, script))
    return frozenset(found)


def reads_as_words(reading: str | None) -> bool:
    """Whether an OCR reading holds a word: three letters in a row (with their marks), or
    one letter of a script written without spaces. A stray digit or pair of letters is
    what OCR makes of an icon or a picture's edge, not a name."""
    if not reading:
        return False
    run = 0
    for char in readable(reading):
        kind = unicodedata.category(char)[0]
        if is_wide(char):
            return True
        run = run + 1 if kind in "LM" else 0
        if run >= 3:
            return True
    return False


def symbol_names(text: str | None) -> str:
    """The Unicode names of the pictures in a label, one per line ("🗑" reads
    "wastebasket", "💳" "credit card"): a label of symbols names nothing (`names`), but
    some pictures have a settled meaning, and their names are what a policy can match."""
    if not text or text.isascii():
        return ""
    found = (unicodedata.name(c, "") for c in dict.fromkeys(readable(text))
             if unicodedata.category(c) in ("So", "Sm") and not c.isascii())
    return "\n".join(name.lower() for name in found if name)


def is_wide(text: str) -> bool:
    """True for keywords in scripts written without spaces (Chinese, Japanese, Korean)."""
    return bool(_WIDE.search(text))


@dataclass(frozen=True)
class KeywordSet:
    """A compiled list of keywords and `re:` patterns; `search` returns the first hit."""

    source: tuple[str, ...]
    _words: re.Pattern[str] | None
    _keywords: tuple[tuple[str, str], ...]
    """Each keyword as the policy writes it, with its pattern."""
    _patterns: tuple[re.Pattern[str], ...]

    @classmethod
    def compile(cls, entries: Iterable[str]) -> KeywordSet:
        source = tuple(dict.fromkeys(e for e in entries if e and e.strip()))
        keywords = [" ".join(e.split()) for e in source if not e.startswith(REGEX_PREFIX)]
        patterns = tuple(_regex(e[len(REGEX_PREFIX):]) for e in source
                         if e.startswith(REGEX_PREFIX))
        # longest first, so "pay now" is reported rather than "pay"
        keywords.sort(key=_length, reverse=True)
        forms = tuple(_word_pattern(k) for k in keywords)
        joined = re.compile("|".join(forms)) if forms else None
        return cls(source, joined, tuple(zip(keywords, forms, strict=True)), patterns)

    def search(self, normalized: str, raw: str = "") -> str | None:
        """The keyword as the policy writes it (not the label's spelling of it, which may
        be folded from look-alikes), or the text a pattern matched, or None; `raw` feeds
        the `re:` entries."""
        if self._words is not None and normalized:
            # as written, then with every word in its base form ("deleting" is "delete")
            for text in (normalized, *base_readings(normalized, raw)):
                found = self._words.search(text)
                if found:  # which keyword: asked only on a hit, so the search stays one pass
                    return next(k for k, form in self._keywords
                                if re.fullmatch(form, found[0]))
        if not self._patterns or not raw:
            return None
        shown = readable(raw)
        # as written (a pattern may hold non-Latin letters) and with look-alikes folded
        for lowered in dict.fromkeys((shown.casefold(), fold(fold(shown).casefold()).lower())):
            for pattern in self._patterns:
                hit = pattern.search(lowered)
                if hit:
                    return hit.group(0).strip() or pattern.pattern
        return None

    def __bool__(self) -> bool:
        return bool(self.source)


@lru_cache(maxsize=4096)
def base_readings(normalized: str, raw: str = "") -> tuple[str, ...]:
    """The text with each word that is a form of a keyword word read as that word
    (`inflection`), when that changes it: from the normalised words (Latin, and what
    look-alike folding made Latin) and from the raw text's words (other scripts, whose
    letters folding may change)."""
    found: list[str] = []
    for words in (normalized.split(), _WORDS.findall(readable(raw).casefold()) if raw else []):
        # a keyword word that is also a form of another ("booking", "book") is read both ways
        kept = [w if is_keyword_word(w) else base_word(w) or w for w in words]
        based = [base_word(w) or w for w in words]
        found.extend(normalize(" ".join(r)) for r in (kept, based) if r != words)
    return tuple(t for t in dict.fromkeys(found) if t != normalized)


@cache
def _length(keyword: str) -> int:
    return len(normalize(keyword))


@cache
def _word_pattern(keyword: str) -> str:
    """The keyword in every case form that reads differently (`case_forms`)."""
    forms = dict.fromkeys(_form_pattern(form) for form in case_forms(keyword))
    return next(iter(forms)) if len(forms) == 1 else "(?:" + "|".join(forms) + ")"


def _form_pattern(keyword: str) -> str:
    if is_wide(keyword):
        return r"\s?".join(re.escape(w) for w in normalize(keyword).split())
    words = normalize(keyword).split()
    if not words:
        return r"(?!x)x"
    # a capital "I" is drawn as a small "l" ("DeIete"), but case-folds to "i"
    body = r"\s".join(re.escape(w) for w in words).replace("l", "[li]")
    return rf"(?<!\w){body}(?!\w)"


def _regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.IGNORECASE | re.MULTILINE)
    except re.error as exc:
        raise ValueError(f"bad regular expression '{pattern}': {exc}") from None
