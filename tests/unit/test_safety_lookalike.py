"""Look-alike letters read as the Latin letter they are drawn as (venusctl.safety.lookalike).

The attacker's alphabet here is all of Unicode's confusables data (UTS #39, as shipped by
confusable_homoglyphs), not the handful of Cyrillic and Greek letters the mutation axis
uses: every keyword of the default policy, respelled with look-alikes drawn at random from
any script, in every case a label is written in, must still be found.
"""

from __future__ import annotations

import unicodedata

import pytest
from confusable_homoglyphs.confusables import confusables_data
from hypothesis import given, settings
from hypothesis import strategies as st

from venusctl.safety.lookalike import case_forms, fold, fold_table
from venusctl.safety.policy import load_policy
from venusctl.safety.text import KeywordSet, normalize

POLICY = load_policy("default")
KEYWORDS = sorted({w for words in POLICY.keywords.values() for w in words
                   if not w.startswith("re:")})
LATIN = [w for w in KEYWORDS if w.isascii()]
OTHER = [w for w in KEYWORDS if not w.isascii()]
WORDS = KeywordSet.compile(KEYWORDS)


def _look_alikes(letter: str, alone: bool = False) -> list[str]:
    """Every single letter or digit Unicode lists as confusable with `letter`, but a
    capital "I" for a small "l" (inside a word it reads as a camelCase break: "DeIete" is
    "de iete", as "btnInstall" is "btn install", a gap docs/safety.md names) and, for a
    letter `alone` in its word, a digit (a lone digit is read as a number: "l'" as "1'")."""
    found = [e["c"].replace("\u200e", "") for e in confusables_data.get(letter, [])]
    return [c for c in found if len(c) == 1 and not c.isascii()
            and unicodedata.category(c)[0] in "LN"
            and not (alone and unicodedata.category(c) == "Nd")
            and unicodedata.normalize("NFKC", c) != "I"]


def _alone(word: str, index: int) -> bool:
    before = word[index - 1] if index else " "
    after = word[index + 1] if index + 1 < len(word) else " "
    return not before.isalpha() and not after.isalpha()


def test_the_mutation_axis_letters_and_far_scripts_read_as_latin():
    assert normalize("Рау now") == "pay now"  # Cyrillic Р, а, у
    assert normalize("ΝΕΧΤ") == "next"  # Greek capitals
    assert normalize("Ꭰelete") == "delete"  # Cherokee
    assert normalize("ꓓelete") == "delete"  # Lisu
    assert normalize("Іgnore") == normalize("Ignore") == "ignore"  # Cyrillic І is an I
    assert normalize("ⅼоgіn") == "login"  # a small roman fifty, Cyrillic о and і


def test_ascii_letters_are_never_changed_and_digits_only_inside_words():
    assert all(not chr(code).isascii() for code in fold_table())
    assert fold("menuitem rn I l 0 O 1") == "menuitem rn I l 0 O 1"
    assert fold("49.00 EUR, 2 fa, 10:15") == "49.00 EUR, 2 fa, 10:15"
    assert normalize("PAY N0W") == normalize("De1ete") .replace("delete", "pay now") == "pay now"


def test_a_letter_reads_as_a_letter_and_a_digit_as_a_digit():
    for code, alike in fold_table().items():
        if unicodedata.category(chr(code)).startswith("L"):
            assert alike.isalpha(), chr(code)
    assert not any(c.isdigit() for c in normalize("ЗАМОРОЗОК БЕЗ ЗОБ"))  # З is no 3, Б no 6


def test_the_table_covers_the_data_it_is_built_from():
    """Every non-ASCII letter Unicode lists beside an ASCII letter is folded."""
    listed = {c for letter in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
              for c in _look_alikes(letter)}
    assert len(listed) > 400
    assert listed <= {chr(code) for code in fold_table()}


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.sampled_from(LATIN), st.randoms(use_true_random=False))
def test_any_latin_keyword_respelled_with_any_look_alikes_is_found(keyword, rnd):
    form = rnd.choice(case_forms(keyword))
    spelled = "".join(rnd.choice(_look_alikes(c, _alone(form, i)) or [c])
                      if c.isalpha() and rnd.random() < 0.7 else c
                      for i, c in enumerate(form))
    assert WORDS.search(normalize(spelled), spelled) is not None, (keyword, spelled)


@pytest.mark.parametrize("keyword", OTHER)
def test_a_keyword_in_another_script_is_found_in_every_case(keyword):
    for form in case_forms(keyword):
        assert WORDS.search(normalize(form), form) is not None, (keyword, form)


def test_the_hit_names_the_policy_keyword_not_the_folded_label():
    words = KeywordSet.compile(["удалить", "pay now"])
    assert words.search(normalize("УДАЛИТЬ"), "УДАЛИТЬ") == "удалить"
    assert words.search(normalize("Рау now"), "Рау now") == "pay now"


def test_a_pattern_reads_the_label_both_as_written_and_folded():
    words = KeywordSet.compile(["re:\\d\\s?eur\\b", "re:(?<!내)보내기"])
    assert words.search("", "49.00 ЕUR") == "0 eur"  # Cyrillic Е
    assert words.search("", "보내기") == "보내기"
