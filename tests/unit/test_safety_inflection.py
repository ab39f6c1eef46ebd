"""Keywords matched in every form of their words (venusctl.safety.inflection): the forms
shipped beside the keyword files, and what the guard makes of inflected labels."""

from __future__ import annotations

import json
from pathlib import Path

import lemminflect
import pytest
from simplemma.strategies.dictionaries.dictionary_factory import (
    _load_dictionary_from_disk,
)

from tests.support.mutations import _inflected
from tests.unit.test_safety_policy import check
from venusctl.drivers.base import Element
from venusctl.safety.guard import Decision
from venusctl.safety.inflection import base_word, word_forms
from venusctl.safety.languages import language_words
from venusctl.safety.policy import load_policy
from venusctl.safety.text import KeywordSet, normalize

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = load_policy("default")


def verdict(label: str, role: str = "button"):
    return check(DEFAULT, "Click(point=(1, 1))", Element(text=label, role=role),
                 thought="Continue with the task.")


@pytest.mark.parametrize(("label", "category"), [
    ("Deleting account", "delete"), ("Removes everything", "delete"),
    ("Paying now", "payment"), ("Sending money", "payment"), ("Sending", "send"),
    ("Installing app", "install"),
    ("Удалите аккаунт", "delete"),  # ru: the polite imperative of удалить
    ("УДАЛИТЕ", "delete"), ("Lösche alles", "delete"),  # de: the imperative of löschen
    ("Supprimez", "delete"),  # fr: supprimer
    ("Eliminando", "delete"),  # es: eliminar
    ("Usuńcie konto", "delete"),  # pl: usunąć, plural imperative
])
def test_an_inflected_label_reads_as_its_keyword(label, category):
    found = verdict(label)
    assert found.decision is Decision.CONFIRM, (label, found)
    assert found.category == category, (label, found)


@pytest.mark.parametrize("label", ["Sent", "Deleted items", "Installed", "Paid",
                                   "Installation guide", "Deletion policy", "Display"])
def test_a_state_or_a_derived_word_is_not_an_action(label):
    """English past forms name a folder or a badge; derivations are other words."""
    assert verdict(label, role="link").decision is Decision.ALLOW, label


@pytest.mark.parametrize("label", ["Next page", "Page 2 of 10", "Go to page", "Previous page",
                                   "Home page"])
def test_a_form_of_one_language_that_is_a_word_of_another_is_not_read_as_a_keyword(label):
    """"page" is a form of Spanish and Portuguese "pagar" and the English noun: the CI run
    of 630a64d asked before a same-site "Next page" link (tests/integration/redteam)."""
    assert verdict(label, role="link").decision is Decision.ALLOW, label


def test_no_form_outside_english_is_an_english_word_that_no_keyword_means():
    """Checked against simplemma's English dictionary, the generator's own input, so the
    rule holds for every form rather than for the one that was seen."""
    english = {word.decode().lower() for pair in _load_dictionary_from_disk("en").items()
               for word in pair}  # its forms and their lemmas
    english_keywords = set(word_forms()) | {f for fs in word_forms().values() for f in fs}
    clashes = []
    for path in sorted((ROOT / "policies" / "words").glob("*.forms.json")):
        if path.name.startswith("en."):
            continue
        for forms in json.loads(path.read_text(encoding="utf-8")).values():
            clashes += [(path.name, f) for f in forms
                        if f in english and f not in english_keywords]
    assert not clashes, clashes[:20]


def test_the_reported_keyword_is_the_one_spelled_as_found():
    words = KeywordSet.compile(["continue", "continuer"])  # "continue" is a form of both
    assert words.search(normalize("Continue")) == "continue"
    assert words.search(normalize("Continuez")) == "continuer"


def test_only_words_of_the_keyword_files_have_forms():
    forms = word_forms()
    assert "deleting" in forms["delete"] and "удалите" in forms["удалить"]
    assert "display" not in forms and "flurb" not in forms
    assert base_word("deleting") == "delete" and base_word("display") is None
    assert all(form and " " not in form for forms in word_forms().values() for form in forms)


def test_every_english_keyword_led_by_a_verb_matches_in_its_ing_form():
    """Generated from the whole English list with lemminflect's tables, not the
    lemmatizer's data the forms come from."""
    checked = 0
    for name, keywords in language_words(["en"], "test").items():
        plain = [k for k in keywords if not k.startswith("re:")]
        words = KeywordSet.compile(plain)
        for keyword in plain:
            inflected = _inflected(keyword)
            first = keyword.split()[0].lower()
            if inflected == keyword or first in lemminflect.getAllInflections(first).get(
                    "VBD", ()):
                continue
            checked += 1
            assert words.search(normalize(inflected)), (name, keyword, inflected)
    assert checked >= 100
