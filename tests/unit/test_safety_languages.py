"""A policy's words come one keyword file per language (venusctl.safety.languages): the
default policy names its languages, each file adds to the lists rules refer to, and a bad
code or file is one line and exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from venusctl.cli import run_cli
from venusctl.core.errors import UsageError
from venusctl.safety.languages import language_words, shipped_languages
from venusctl.safety.policy import load_policy
from venusctl.safety.text import KeywordSet, normalize

WORDS = Path(__file__).resolve().parents[2] / "policies" / "words"
DEFAULT = load_policy("default")


def test_the_default_policy_reads_every_shipped_language():
    assert set(DEFAULT.languages) == set(shipped_languages())
    assert len(shipped_languages()) >= 16
    assert shipped_languages() == tuple(sorted(p.stem for p in WORDS.glob("*.yaml")))


@pytest.mark.parametrize("code", shipped_languages())
def test_each_language_file_adds_only_to_lists_the_policy_has(code):
    lists = language_words([code], "test")
    assert lists, code
    own = yaml.safe_load((WORDS.parents[0] / "default.yaml").read_text())["keywords"]
    assert set(lists) <= set(own), code
    for name, words in lists.items():
        assert set(words) <= set(DEFAULT.keywords[name]), (code, name)


def test_a_word_of_a_language_file_is_matched_by_the_rules():
    delete = KeywordSet.compile(DEFAULT.keywords["delete"])
    assert delete.search(normalize("삭제"), "삭제") == "삭제"
    assert delete.search(normalize("Supprimer"), "Supprimer") == "supprimer"


def _policy(tmp_path: Path, languages: str, words: str | None = None) -> Path:
    if words is not None:
        (tmp_path / "words").mkdir()
        (tmp_path / "words" / "th.yaml").write_text(words, encoding="utf-8")
    path = tmp_path / "mine.yaml"
    path.write_text(f"extends: default\nlanguages: {languages}\n", encoding="utf-8")
    return path


def test_a_policy_adds_a_keyword_file_of_its_own_by_path(tmp_path):
    path = _policy(tmp_path, "[./words/th.yaml]", "payment: [ชำระเงิน]\ndelete: [ลบ]\n")
    policy = load_policy(path)
    assert "ชำระเงิน" in policy.keywords["payment"] and "ลบ" in policy.keywords["delete"]
    assert "pay now" in policy.keywords["payment"]  # the default's languages stay
    assert str(tmp_path / "words" / "th.yaml") in policy.languages


@pytest.mark.parametrize(("languages", "words", "message"), [
    ("[xx]", None, "unknown language 'xx' (shipped: ar, bg, cs"),
    ("[./words/th.yaml]", "payment: [ชำระเงิน\n", "is not valid YAML (line 2)"),
    ("[./words/th.yaml]", "payment: {a: b}\n", "th.yaml: payment must be a list of words"),
    ("[./words/th.yaml]", "- ชำระเงิน\n", "must map keyword list names to lists of words"),
    ("[./words/none.yaml]", "payment: []\n", "none.yaml not found"),
])
def test_a_bad_language_is_one_usage_error(tmp_path, capsys, languages, words, message):
    path = _policy(tmp_path, languages, words)
    with pytest.raises(UsageError) as raised:
        load_policy(path)
    assert message in str(raised.value) and "\n" not in str(raised.value)
    assert run_cli(["policy", "show", "--policy", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_policy_show_names_the_languages(capsys):
    assert run_cli(["policy", "show"]) == 0
    out = capsys.readouterr().out
    line = next(li for li in out.splitlines() if li.startswith("languages"))
    assert all(code in line for code in shipped_languages())
