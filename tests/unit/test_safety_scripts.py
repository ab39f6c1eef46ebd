"""The policy's scripts: a label written in a script none of its words use is read as
nameless (`Policy.scripts`, `text.scripts_of`), and the words of its 30 languages are
read as GTK's translators write them (tests/support/translations.py)."""

from __future__ import annotations

import pytest

from tests.support.translations import (
    BENIGN,
    CHROMIUM_WORDS,
    DELETING,
    SHIPPED,
    UNKNOWN_SCRIPTS,
    chromium_word,
    translated,
)
from tests.unit.test_safety_policy import check
from venusctl.drivers.base import Element, ScreenContext
from venusctl.safety.guard import Decision
from venusctl.safety.policy import load_policy
from venusctl.safety.text import scripts_of

DEFAULT = load_policy("default")
FILES = ScreenContext(title="Files")


def test_scripts_are_named_as_unicode_names_their_letters():
    assert scripts_of("Delete 3 files") == {"LATIN"}
    assert scripts_of("Pаy") == {"LATIN", "CYRILLIC"}  # a Cyrillic а among Latin letters
    assert scripts_of("削除する") == scripts_of("カート") == scripts_of("ラーメン") == {"CJK"}
    assert scripts_of("ลบ") == {"THAI"} and scripts_of("➤ 💳 42") == frozenset()
    assert scripts_of("Ｄｅｌｅｔｅ") == {"LATIN"}  # full-width letters are Latin once folded


def test_the_default_policy_reads_the_script_of_each_of_its_languages():
    """GTK's words, not ours: every shipped language's "Delete" is in a script the
    policy has words for, and no unknown script's is."""
    for code in SHIPPED:
        words = translated(code, DELETING + BENIGN)
        assert len(words) >= 4, code  # libgtk-3-common is missing or lacks the language
        assert all(scripts_of(w) <= DEFAULT.scripts for w in words), code
    for code in UNKNOWN_SCRIPTS:
        assert all(not scripts_of(w) & DEFAULT.scripts for w in translated(code, DELETING))


@pytest.mark.parametrize("code", SHIPPED)
def test_gtks_delete_reads_as_deleting_in_every_language_of_the_policy(code):
    for word in translated(code, DELETING):
        found = check(DEFAULT, "Click(point=(1, 1))", Element(text=word, role="button"),
                      FILES, thought="Continue with the task.")
        assert found.decision is Decision.CONFIRM and found.category == "delete", (code, word)


@pytest.mark.parametrize("code", SHIPPED)
def test_gtks_everyday_buttons_are_not_asked_about_in_any_language(code):
    for word in translated(code, BENIGN):
        found = check(DEFAULT, "Click(point=(1, 1))", Element(text=word, role="button"),
                      FILES, thought="Continue with the task.")
        assert found.decision is Decision.ALLOW, (code, word, found)


DIALOG = "Delete 3 files permanently?"


@pytest.mark.parametrize("label", ["ลบ", "წაშლა", "அழி"])  # Thai, Georgian, Tamil "delete"
def test_a_label_in_an_unknown_script_is_judged_by_its_context(label):
    in_dialog = Element(text=label, role="button", extra={"dialog": DIALOG})
    assert check(DEFAULT, "Click(point=(1, 1))", in_dialog, FILES,
                 thought="Continue with the task.").decision is Decision.CONFIRM
    plain = Element(text=label, role="button")
    assert check(DEFAULT, "Click(point=(1, 1))", plain, FILES,
                 thought="Continue with the task.").decision is Decision.ALLOW


def test_a_keyword_file_of_its_own_makes_a_script_readable(tmp_path):
    """With Thai words the policy reads Thai: an unknown Thai word is a name again."""
    (tmp_path / "th.yaml").write_text("delete: [ลบ]\n", encoding="utf-8")
    (tmp_path / "mine.yaml").write_text("extends: default\nlanguages: [./th.yaml]\n",
                                        encoding="utf-8")
    policy = load_policy(tmp_path / "mine.yaml")
    assert "THAI" in policy.scripts and "THAI" not in DEFAULT.scripts
    cancel = Element(text="ยกเลิก", role="button", extra={"dialog": DIALOG})
    assert check(policy, "Click(point=(1, 1))", cancel, FILES,
                 thought="Continue with the task.").decision is Decision.ALLOW
    assert check(DEFAULT, "Click(point=(1, 1))", cancel, FILES,
                 thought="Continue with the task.").decision is Decision.CONFIRM


@pytest.mark.parametrize("code", SHIPPED)
def test_chromiums_consequential_buttons_read_as_their_act_in_every_language(code):
    """Chromium's own buttons (chromium-l10n), found by their English text: Pay, Send,
    Install, Change password, Reset password, Remove account, Restart."""
    for category, words in CHROMIUM_WORDS.items():
        for english in words:
            word = chromium_word(code, english)
            if word is None:  # UNREADABLE: Vietnamese "Cài đặt" is Install and Settings
                continue
            found = check(DEFAULT, "Click(point=(1, 1))", Element(text=word, role="button"),
                          FILES, thought="Continue with the task.")
            assert found.decision is Decision.CONFIRM and found.category == category, (
                code, english, word, found.category)
