"""The shape a policy file must have, checked before anything is merged or compiled.

YAML happily reads `[[pay, buy]]` as a list inside a list, `yes` as true and
`{a: b}` where a word was meant; merging or compiling such values would either
crash or quietly turn them into words nobody wrote ("['pay', 'buy']", "True"). So
every file is checked first, and the first mistake becomes one line naming the
file, the key and what was expected (exit 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from venusctl.core.errors import UsageError

SCALAR_KEYS = ("name", "description", "extends", "otherwise")
LIST_KEYS = ("allow_domains", "deny_domains", "allow_apps", "deny_apps", "home_apps",
             "allow_categories", "disable_rules", "languages")
RULE_TEXT_KEYS = ("id", "verdict", "category", "reason")


def check_shape(raw: Mapping[str, Any], where: str) -> None:
    """Raise a one-line UsageError for the first value of the wrong type."""
    for key in SCALAR_KEYS:
        if key in raw and raw[key] is not None:
            _text(raw[key], f"{where}: {key}")
    if "version" in raw and not isinstance(raw["version"], (int, str)):
        raise UsageError(f"{where}: 'version' must be a number")
    for key in LIST_KEYS:
        _words(raw.get(key), f"{where}: {key}")
    _keywords(raw.get("keywords"), where)
    _secrets(raw.get("secrets"), where)
    _rules(raw.get("rules"), where)


def _text(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise UsageError(f"{what} must be text, not {_kind(value)}")


def _words(value: Any, what: str) -> None:
    """None, one word, or a flat list of words (numbers allowed, not true/false)."""
    if value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool)):
        return
    if not isinstance(value, list):
        raise UsageError(f"{what} must be a list of words, not {_kind(value)}")
    for index, item in enumerate(value):
        if isinstance(item, bool):
            raise UsageError(f"{what}[{index}] is {str(item).lower()}, not a word "
                             f"(quote it: '{'yes' if item else 'no'}')")
        if not isinstance(item, (str, int, float)):
            raise UsageError(f"{what}[{index}] must be a word, not {_kind(item)}")


def check_keyword_file(raw: Any, where: str) -> None:
    """A language's keyword file: a mapping of keyword list names to lists of words."""
    _word_lists(raw, where, "keyword list names", f"{where}: ")


def _keywords(value: Any, where: str) -> None:
    _word_lists(value, f"{where}: 'keywords'", "list names", f"{where}: keywords.")


def _word_lists(value: Any, what: str, names: str, item: str) -> None:
    """None, or a mapping of names to lists of words (`_words`)."""
    if value is None:
        return
    if not isinstance(value, Mapping):
        raise UsageError(f"{what} must map {names} to lists of words, not {_kind(value)}")
    for name, words in value.items():
        _words(words, f"{item}{name}")


def _secrets(value: Any, where: str) -> None:
    if value is None:
        return
    if not isinstance(value, Mapping):
        raise UsageError(f"{where}: 'secrets' must map secret names to where they may be "
                         f"typed, not {_kind(value)}")
    for name, spec in value.items():
        if spec is None:
            continue
        if not isinstance(spec, Mapping):
            raise UsageError(f"{where}: secrets.{name} must be a mapping with 'domains' "
                             f"and 'apps', not {_kind(spec)}")
        for key, words in spec.items():
            _words(words, f"{where}: secrets.{name}.{key}")


def _rules(value: Any, where: str) -> None:
    if value is None:
        return
    if not isinstance(value, list):
        raise UsageError(f"{where}: 'rules' must be a list of rules, not {_kind(value)}")
    for index, rule in enumerate(value):
        what = f"{where}: rule {index + 1}"
        if not isinstance(rule, Mapping):
            raise UsageError(f"{what} must be a mapping (id, verdict, when, ...), "
                             f"not {_kind(rule)}")
        for key in RULE_TEXT_KEYS:
            if key in rule and rule[key] is not None:
                _text(rule[key], f"{what}: {key}")
        for part in ("when", "unless"):
            _conditions(rule.get(part), f"{what}: {part}")


def _conditions(value: Any, what: str) -> None:
    if value is None:
        return
    if not isinstance(value, Mapping):
        raise UsageError(f"{what} must be a mapping of conditions, not {_kind(value)}")
    for name, condition in value.items():
        if isinstance(condition, bool):
            continue  # blind, selected, terminal, secret_permitted (checked when compiled)
        _words(condition, f"{what}.{name}")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "empty"
    if isinstance(value, (int, float)):
        return "a number"
    return f"a {type(value).__name__}"
