"""The guard reads a label as it is drawn: invisible characters, bidi overrides and
letter spacing change the string, not what a person reads (venusctl.safety.text)."""

from __future__ import annotations

import pytest

from venusctl.safety.text import KeywordSet, normalize, readable

PAY = KeywordSet.compile(["pay now", "delete account", "re:\\bsudo\\b"])


@pytest.mark.parametrize("label", [
    "Pay\u200b now", "P\u200ca\u200dy now", "Pay\u2060 now", "Pa\u00ady now",
    "P\ufe0fa\ufe0fy now", "Pay\U000e0041 now", "\u202ewon yaP\u202c", "\u202ewon yaP",
    "P a y   n o w", "P\u00a0a\u00a0y   now", "Pay\u3164 now",
])
def test_a_respelled_label_reads_as_its_word(label):
    assert normalize(label) == "pay now"
    assert PAY.search(normalize(label), label) == "pay now"


def test_an_override_inside_an_embedding_is_reversed_alone():
    assert readable("Do \u202b\u202etnuocca eteled\u202c\u202c!") == "Do delete account!"


def test_text_without_tricks_is_left_as_it_was():
    for text in ("Pay now", "立即支付", "מחק חשבון", "Send (Ctrl-Enter)", "rm -rf ~/\n"):
        assert readable(text) == text


def test_letter_spacing_keeps_line_breaks_and_ordinary_words():
    assert readable("s u d o  apt\n") == "sudo apt\n"
    assert PAY.search("", readable("s u d o apt")) == "sudo"
    assert readable("Plan A or B") == "Plan A or B"


def test_two_spaced_letters_are_one_word():
    assert normalize("O K") == "ok" and normalize("M o v e   t o   t r a s h") == "move to trash"
