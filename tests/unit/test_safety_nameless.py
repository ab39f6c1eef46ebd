"""A label of symbols, an icon font's glyph or OCR noise names nothing (issue 37, slice 4):
the target counts as blind, so OCR reads it and the context rules apply; pictures with a
settled meaning are read by their Unicode names (`icons`)."""

from __future__ import annotations

import pytest

from venusctl.core.actions import Surface, parse_action
from venusctl.drivers.base import Element, ScreenContext
from venusctl.safety.facts import is_blind
from venusctl.safety.guard import Decision, GuardRequest
from venusctl.safety.ocr import needs_reading
from venusctl.safety.policy import load_policy
from venusctl.safety.policy_guard import PolicyGuard
from venusctl.safety.text import names, reads_as_words, symbol_names

DEFAULT = load_policy("default")
NEWS = ScreenContext(url="https://news.example/today", title="Today")
CHECKOUT = ScreenContext(url="https://shop.example/checkout", title="Checkout")


def verdict(element: Element, context: ScreenContext = NEWS):
    action = parse_action("Click(point=(100, 100))", Surface.BROWSER)
    return PolicyGuard(DEFAULT).check(GuardRequest(1, action, action, element, context, ""))


@pytest.mark.parametrize("label", ["\u27a4", "\u2715", "\U0001f4b3", "\uf1f8", "\ue872",
                                   "\u2192 \u2190", "\u00b7\u00b7\u00b7", "\u200b"])
def test_symbols_emoji_and_private_use_glyphs_name_nothing(label):
    assert not names(label)
    element = Element(text=label, role="button", tag="button")
    assert is_blind(element, label)
    assert needs_reading(element)


@pytest.mark.parametrize("label", ["OK", "X", "2", "49,00 \u20ac", "\u652f\u4ed8", "\u2795 Add"])
def test_a_letter_or_digit_is_a_name(label):
    element = Element(text=label, role="button", tag="button")
    assert names(label) and not is_blind(element, label) and not needs_reading(element)


@pytest.mark.parametrize(("reading", "words"), [
    ("", False), ("ee", False), ("1", False), ("|", False), ("a1", False), ("\u2014 i", False),
    ("Pay", True), ("Delete all", True), ("\u652f", True), ("\uc0ad\uc81c", True),
    ("\u092d\u0941\u0917\u0924\u093e\u0928", True),  # Hindi: letters with vowel signs
])
def test_an_ocr_reading_is_a_name_only_with_a_word(reading, words):
    assert reads_as_words(reading) is words
    drawn = Element(role="canvas", extra={"nameless": True, "ocr": reading})
    assert is_blind(drawn, reading or "canvas") is not words


def test_a_symbol_label_over_noise_stays_blind_and_over_a_word_is_named():
    assert is_blind(Element(text="\u27a4", extra={"ocr": "ee"}), "\u27a4 | ee")
    assert not is_blind(Element(text="\u27a4", extra={"ocr": "Send"}), "\u27a4 | Send")


def test_a_blind_symbol_on_a_checkout_page_asks_and_on_a_news_page_does_not():
    arrow = Element(text="\u27a4", role="button", tag="button")
    assert verdict(arrow, CHECKOUT).decision is Decision.CONFIRM
    assert verdict(arrow, NEWS).decision is Decision.ALLOW


def test_pictures_are_read_by_their_unicode_names():
    assert symbol_names("\U0001f5d1 \U0001f4b3") == "wastebasket\ncredit card"
    assert symbol_names("Pay now") == "" and symbol_names("\uf1f8") == ""


@pytest.mark.parametrize(("icon", "category"), [
    ("\U0001f4b3", "payment"), ("\U0001f4b8", "payment"), ("\U0001f5d1\ufe0f", "delete"),
    ("\U0001f4e4", "send"),
])
def test_a_picture_with_a_settled_meaning_is_gated_anywhere(icon, category):
    found = verdict(Element(text=icon, role="button", tag="button"))
    assert (found.decision, found.category) == (Decision.CONFIRM, category)


@pytest.mark.parametrize("icon", ["\U0001f50d", "\u2630", "\u2699", "\u2b50", "\u2764"])
def test_an_everyday_picture_is_not(icon):
    assert verdict(Element(text=icon, role="button", tag="button")).decision is Decision.ALLOW
