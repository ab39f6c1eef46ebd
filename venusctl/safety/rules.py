"""One policy rule: conditions on an action's facts, and the verdict when they hold.

In YAML:

    - id: pay-button
      verdict: confirm          # allow | confirm | deny
      category: payment
      reason: a payment or purchase
      when:                     # every field must match (a list matches if any item does)
        action: [activate]      # action names (Click, Type, ...) or groups
        target: [$payment]      # keywords; $name refers to a keyword list
      unless:                   # the rule is skipped when any of these match
        secret_permitted: true

Text fields (target, role, dialog, form, form_fields, icons, selection, link,
page, reason, typed) take keywords and `re:` patterns; `input_type`, `detect`, `keys`
take exact values; `app` takes globs; `domain` takes domain patterns; `command`
takes shell command specs (see `commands.py`), matched against the line a shell
would run; `blind`, `selected`, `terminal` and `secret_permitted` take booleans.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from venusctl.core.actions import ACTION_SETS
from venusctl.safety.commands import compile_spec, matching
from venusctl.safety.detect import DETECTORS
from venusctl.safety.facts import GROUPS, Facts, combo_of
from venusctl.safety.guard import Decision
from venusctl.safety.places import in_apps, in_domains
from venusctl.safety.text import KeywordSet, normalize

TEXT_FIELDS = ("target", "target_also", "role", "dialog", "form", "form_fields", "icons",
               "selection", "link", "page", "reason", "typed")
SET_FIELDS = ("action", "input_type", "detect", "keys", "app", "domain", "command")
BOOL_FIELDS = ("blind", "selected", "terminal", "secret_permitted")
FIELDS = TEXT_FIELDS + SET_FIELDS + BOOL_FIELDS
ACTION_NAMES = frozenset(
    spec.cls.__name__ for specs in ACTION_SETS.values() for spec in specs.values())

Test = Callable[[Facts], str | None]


class RuleError(ValueError):
    """A rule that cannot be read; the message names the rule and the field."""


@dataclass(frozen=True)
class Rule:
    id: str
    verdict: Decision
    category: str | None
    reason: str
    when: Mapping[str, Any]
    unless: Mapping[str, Any]
    _when: tuple[tuple[str, Test], ...] = ()
    _unless: tuple[tuple[str, Test], ...] = ()

    def match(self, facts: Facts) -> str | None:
        """A short account of why the rule applies, or None when it does not."""
        found = []
        for name, test in self._when:
            hit = test(facts)
            if hit is None:
                return None
            found.append(f"{name} {hit}")
        if any(test(facts) is not None for _, test in self._unless):
            return None
        telling = [f for f in found if not f.startswith("action ")] or found
        return ", ".join(telling)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "verdict": self.verdict.value}
        if self.category:
            out["category"] = self.category
        out["reason"] = self.reason
        out["when"] = dict(self.when)
        if self.unless:
            out["unless"] = dict(self.unless)
        return out


def compile_rule(raw: Mapping[str, Any], keywords: Mapping[str, list[str]], where: str) -> Rule:
    if not isinstance(raw, Mapping):
        raise RuleError(f"{where}: a rule must be a mapping")
    rule_id = str(raw.get("id") or where)
    unknown = set(raw) - {"id", "verdict", "category", "reason", "when", "unless"}
    if unknown:
        raise RuleError(f"rule '{rule_id}': unknown key(s) {', '.join(sorted(unknown))}")
    try:
        verdict = Decision(str(raw.get("verdict", "")).lower())
    except ValueError:
        raise RuleError(f"rule '{rule_id}': verdict must be allow, confirm or deny") from None
    when, unless = _mapping(raw, "when", rule_id), _mapping(raw, "unless", rule_id)
    if not when:
        raise RuleError(f"rule '{rule_id}': 'when' needs at least one condition")
    return Rule(
        id=rule_id, verdict=verdict,
        category=str(raw["category"]) if raw.get("category") else None,
        reason=str(raw.get("reason") or rule_id), when=when, unless=unless,
        _when=tuple((k, _test(k, v, keywords, rule_id)) for k, v in when.items()),
        _unless=tuple((k, _test(k, v, keywords, rule_id)) for k, v in unless.items()),
    )


def _mapping(raw: Mapping[str, Any], key: str, rule_id: str) -> dict[str, Any]:
    value = raw.get(key) or {}
    if not isinstance(value, Mapping):
        raise RuleError(f"rule '{rule_id}': '{key}' must be a mapping of conditions")
    unknown = set(value) - set(FIELDS)
    if unknown:
        raise RuleError(f"rule '{rule_id}': unknown condition(s) {', '.join(sorted(unknown))} "
                        f"(known: {', '.join(FIELDS)})")
    return dict(value)


def _listed(value: Any) -> list[str]:
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def expand(entries: list[str], keywords: Mapping[str, list[str]], rule_id: str) -> list[str]:
    """Replace `$name` entries by the keyword list they name."""
    out: list[str] = []
    for entry in entries:
        if entry.startswith("$"):
            if entry[1:] not in keywords:
                raise RuleError(f"rule '{rule_id}': no keyword list named '{entry[1:]}'")
            out.extend(keywords[entry[1:]])
        else:
            out.append(entry)
    return out


def _test(name: str, value: Any, keywords: Mapping[str, list[str]], rule_id: str) -> Test:
    if name in BOOL_FIELDS:
        if not isinstance(value, bool):
            raise RuleError(f"rule '{rule_id}': '{name}' must be true or false")
        return _bool_test(name, value)
    entries = expand(_listed(value), keywords, rule_id)
    if name in TEXT_FIELDS:
        try:
            words = KeywordSet.compile(entries)
        except ValueError as exc:
            raise RuleError(f"rule '{rule_id}': {exc}") from None
        return _text_test(name, words)
    return _set_test(name, entries, rule_id)


def _bool_test(name: str, wanted: bool) -> Test:
    def test(facts: Facts) -> str | None:
        return "yes" if getattr(facts, name) is wanted else None
    return test


_TEXT_SOURCES: dict[str, Callable[[Facts], tuple[str, str]]] = {
    "target": lambda f: (f.target, f.target_raw),
    # a second list the same label must also hold: a noun with a verb ("password" and
    # "reset"), each list free of the other's word order and forms
    "target_also": lambda f: (f.target, f.target_raw),
    "role": lambda f: (f.role, f.role),
    "dialog": lambda f: (f.dialog, f.dialog),
    "form": lambda f: (f.form, f.form),
    "form_fields": lambda f: (f.form_fields, f.form_fields),
    "icons": lambda f: (f.icons, f.icons),
    "selection": lambda f: (f.selection, f.selection),
    "link": lambda f: (normalize(f.link), f.link),
    "page": lambda f: (f.page, f.page_raw),
    "reason": lambda f: (f.reason, f.reason_raw),
    "typed": lambda f: (normalize(f.typed_raw), f.typed_raw),
}


def _text_test(name: str, words: KeywordSet) -> Test:
    source = _TEXT_SOURCES[name]

    def test(facts: Facts) -> str | None:
        normalized, raw = source(facts)
        hit = words.search(normalized, raw)
        return f"'{hit}'" if hit else None
    return test


def _set_test(name: str, entries: list[str], rule_id: str) -> Test:
    if name == "action":
        bad = [e for e in entries if e not in ACTION_NAMES and e not in GROUPS]
        if bad:
            raise RuleError(f"rule '{rule_id}': unknown action or group {', '.join(bad)} "
                            f"(groups: {', '.join(GROUPS)})")
        wanted = frozenset(entries)
        return lambda f: _first(wanted & (f.kinds | f.groups))
    if name == "detect":
        bad = [e for e in entries if e not in DETECTORS]
        if bad:
            raise RuleError(f"rule '{rule_id}': unknown detector {', '.join(bad)} "
                            f"(known: {', '.join(DETECTORS)})")
        wanted = frozenset(entries)
        return lambda f: _first(wanted & f.detectors)
    if name == "input_type":
        wanted = frozenset(e.lower() for e in entries)
        return lambda f: _first(wanted & f.input_types)
    if name == "keys":
        combos = {combo_of(e): e for e in entries}
        return lambda f: next((combos[c] for c in f.keys if c in combos), None)
    if name == "app":
        return lambda f: next((a for a in f.apps if in_apps(a, entries)), None)
    if name == "command":
        return _command_test(entries, rule_id)
    return lambda f: next((h for h in (*f.hosts, *f.destinations) if in_domains(h, entries)), None)


def _command_test(entries: list[str], rule_id: str) -> Test:
    try:
        specs = [compile_spec(e) for e in entries]
    except ValueError as exc:
        raise RuleError(f"rule '{rule_id}': {exc}") from None

    def test(facts: Facts) -> str | None:
        text = facts.line or facts.typed_raw
        hit = matching(specs, text) if text else None
        return f"'{hit}'" if hit else None
    return test


def _first(found: frozenset[str]) -> str | None:
    return sorted(found)[0] if found else None

