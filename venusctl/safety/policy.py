"""Safety policies: YAML files of rules, lists and permissions, and reading them.

A policy is `policies/default.yaml` (shipped), `policies/strict.yaml` (shipped:
confirm every state-changing action), or a user file that `extends` one of them.
Top-level keys:

    name, description
    extends: default            # a shipped policy's name or a path (relative to this file)
    otherwise: allow            # verdict for a state-changing action no rule matched
    allow_domains: []           # when given, leaving them needs confirmation
    deny_domains: []            # acting on or going to them is denied
    allow_apps: [] / deny_apps: [] / home_apps: []
    allow_categories: []        # confirmations pre-approved for every run
    secrets: {bank_pin: {domains: [bank.example]}}   # where typing a secret needs no confirmation
    keywords: {payment: [pay, 支付, ...]}           # lists rules refer to as $payment
    languages: [en, zh, ./words/th.yaml]   # keyword files adding to those lists
    rules: [...]                # see `venusctl.safety.rules`
    disable_rules: [rule-id]    # drop rules inherited through `extends`

Merging with `extends`: the child's rules come first and replace base rules of the
same id, lists and keyword lists are extended, scalars are overridden. Nothing on
the screen or in the model's answer can change a policy; only files and flags can.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from venusctl.core.errors import UsageError
from venusctl.safety.guard import Decision
from venusctl.safety.languages import anchored, language_words, merged
from venusctl.safety.policy_shape import check_shape
from venusctl.safety.rules import Rule, RuleError, compile_rule
from venusctl.safety.text import KeywordSet, scripts_of

SHIPPED = ("default", "strict")
LIST_KEYS = ("allow_domains", "deny_domains", "allow_apps", "deny_apps", "home_apps",
             "allow_categories", "languages")
TOP_KEYS = frozenset({"version", "name", "description", "extends", "otherwise", "secrets",
                      "keywords", "rules", "disable_rules", *LIST_KEYS})
BUILTIN_CATEGORIES = ("secret", "leave-domain", "leave-app")
STATE_CHANGE = "state-change"
MAX_DEPTH = 8
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class SecretPermit:
    """Where typing one stored secret needs no confirmation."""

    domains: tuple[str, ...] = ()
    apps: tuple[str, ...] = ()


@dataclass(frozen=True)
class Policy:
    name: str
    source: str
    description: str = ""
    otherwise: Decision = Decision.ALLOW
    allow_domains: tuple[str, ...] = ()
    deny_domains: tuple[str, ...] = ()
    allow_apps: tuple[str, ...] = ()
    deny_apps: tuple[str, ...] = ()
    home_apps: tuple[str, ...] = ()
    allow_categories: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    """The keyword files read: shipped language codes or paths (`languages.py`)."""
    secrets: Mapping[str, SecretPermit] = field(default_factory=dict)
    keywords: Mapping[str, list[str]] = field(default_factory=dict)
    rules: tuple[Rule, ...] = ()

    @cached_property
    def scripts(self) -> frozenset[str]:
        """The scripts the policy's words are written in (`text.scripts_of`). A label
        with letters of another script says something none of its words can match, so
        the guard reads it as nameless (`Facts.blind`): never as harmless."""
        return frozenset().union(*(scripts_of(word) for words in self.keywords.values()
                                   for word in words if not word.startswith("re:")))

    @cached_property
    def help_addresses(self) -> KeywordSet:
        """Words of an address that serves reading (help, FAQ, documentation): a link
        there is not consequential whatever it says (`PolicyGuard._by_destination`)."""
        return KeywordSet.compile(list(self.keywords.get("help_address", [])))

    def categories(self) -> list[str]:
        """Every category a confirmation of this policy can carry."""
        found = [r.category for r in self.rules if r.category]
        found.extend(BUILTIN_CATEGORIES)
        if self.otherwise is Decision.CONFIRM:
            found.append(STATE_CHANGE)
        return list(dict.fromkeys(found))

    def with_lists(self, allow_domains: Iterable[str] = (), allow_apps: Iterable[str] = (),
                   ) -> Policy:
        """This policy with domains and apps added to its allow-lists (`--allow-*`)."""
        return replace(
            self,
            allow_domains=_unique(self.allow_domains, allow_domains),
            allow_apps=_unique(self.allow_apps, allow_apps),
        )

    def as_dict(self) -> dict[str, Any]:
        """The effective policy as a self-contained YAML-ready mapping."""
        out: dict[str, Any] = {"name": self.name, "description": self.description,
                               "otherwise": self.otherwise.value}
        for key in LIST_KEYS:
            out[key] = list(getattr(self, key))
        out["secrets"] = {n: {"domains": list(p.domains), "apps": list(p.apps)}
                          for n, p in self.secrets.items()}
        out["keywords"] = {k: list(v) for k, v in self.keywords.items()}
        out["rules"] = [r.as_dict() for r in self.rules]
        return out


def _unique(*groups: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(item for group in groups for item in group if item))


# ------------------------------------------------------------------------ loading


def load_policy(ref: str | Path | None = None) -> Policy:
    """A shipped policy by name, or a policy file; None means the default."""
    text_ref = str(ref) if ref is not None else "default"
    raw, source = _read_merged(text_ref, Path.cwd(), 0)
    return build_policy(raw, source)


def build_policy(raw: Mapping[str, Any], source: str) -> Policy:
    """Compile a merged raw policy; every mistake becomes one usage error."""
    where = f"policy {source}"
    languages = _strings(raw.get("languages"), f"{where}: languages")
    keywords = merged(_keywords(raw.get("keywords"), where), language_words(languages, where))
    try:
        rules = tuple(compile_rule(r, keywords, f"rule {i + 1}")
                      for i, r in enumerate(raw.get("rules") or []))
    except RuleError as exc:
        raise UsageError(f"{where}: {exc}") from None
    ids = [r.id for r in rules]
    duplicated = sorted({i for i in ids if ids.count(i) > 1})
    if duplicated:
        raise UsageError(f"{where}: rule id(s) used twice: {', '.join(duplicated)}")
    otherwise = str(raw.get("otherwise") or "allow").lower()
    if otherwise not in ("allow", "confirm"):
        raise UsageError(f"{where}: 'otherwise' must be allow or confirm, not '{otherwise}'")
    return Policy(
        name=str(raw.get("name") or Path(source).stem),
        source=source,
        description=str(raw.get("description") or "").strip(),
        otherwise=Decision(otherwise),
        **{key: tuple(_strings(raw.get(key), f"{where}: {key}")) for key in LIST_KEYS},
        secrets=_secrets(raw.get("secrets"), where),
        keywords=keywords,
        rules=rules,
    )


def _read_merged(ref: str, base_dir: Path, depth: int) -> tuple[dict[str, Any], str]:
    if depth > MAX_DEPTH:
        raise UsageError(f"policy {ref}: 'extends' goes more than {MAX_DEPTH} levels deep")
    raw, source, folder = _read_one(ref, base_dir)
    parent = raw.get("extends")
    if not parent:
        return raw, source
    base, _ = _read_merged(str(parent), folder, depth + 1)
    return merge(base, raw), source


def _read_one(ref: str, base_dir: Path) -> tuple[dict[str, Any], str, Path]:
    if ref in SHIPPED:
        text = resources.files("venusctl.policies").joinpath(f"{ref}.yaml").read_text("utf-8")
        return _parse(text, f"(shipped) {ref}"), ref, base_dir
    path = Path(ref).expanduser()
    if not path.is_absolute():
        path = base_dir / path
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(
            f"policy file {path} not found (shipped policies: {', '.join(SHIPPED)})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read policy file {path}: {exc}") from None
    raw = _parse(text, str(path))
    if raw.get("languages"):
        raw["languages"] = anchored(_as_list(raw["languages"]), path.parent)
    return raw, str(path), path.parent


def _parse(text: str, where: str) -> dict[str, Any]:
    try:
        raw = yaml.load(text, Loader=_LOADER)  # a safe loader (libyaml when built)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise UsageError(f"policy {where} is not valid YAML{line}") from None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise UsageError(f"policy {where} must be a mapping of keys")
    unknown = set(raw) - TOP_KEYS
    if unknown:
        raise UsageError(f"policy {where}: unknown key(s) {', '.join(sorted(map(str, unknown)))} "
                         f"(known: {', '.join(sorted(TOP_KEYS))})")
    check_shape(raw, f"policy {where}")
    return raw


def merge(base: Mapping[str, Any], child: Mapping[str, Any]) -> dict[str, Any]:
    """`child` applied on top of `base` (see the module docstring)."""
    out = dict(base)
    for key in ("name", "description", "otherwise", "version"):
        if key in child:
            out[key] = child[key]
    for key in LIST_KEYS:
        out[key] = list(_unique(_as_list(base.get(key)), _as_list(child.get(key))))
    out["secrets"] = {**(base.get("secrets") or {}), **(child.get("secrets") or {})}
    keywords = {k: _as_list(v) for k, v in (base.get("keywords") or {}).items()}
    for name, words in (child.get("keywords") or {}).items():
        keywords[name] = list(_unique(keywords.get(name, []), _as_list(words)))
    out["keywords"] = keywords
    out["rules"] = _merged_rules(base.get("rules") or [], child)
    out.pop("extends", None)
    out.pop("disable_rules", None)
    return out


def _merged_rules(base_rules: list[Any], child: Mapping[str, Any]) -> list[Any]:
    own = list(child.get("rules") or [])
    replaced = {r.get("id") for r in own if isinstance(r, Mapping)}
    disabled = set(map(str, _as_list(child.get("disable_rules"))))
    kept = [r for r in base_rules if not isinstance(r, Mapping)
            or (r.get("id") not in replaced and str(r.get("id")) not in disabled)]
    return own + kept


def _as_list(value: Any) -> list[Any]:
    """A list value as written: one word stands for a list of one (shape already checked)."""
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _strings(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise UsageError(f"{where} must be a list of strings")
    return [str(v) for v in value]


def _keywords(value: Any, where: str) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise UsageError(f"{where}: 'keywords' must map names to lists of words")
    return {str(k): _strings(v, f"{where}: keywords.{k}") for k, v in value.items()}


def _secrets(value: Any, where: str) -> dict[str, SecretPermit]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise UsageError(f"{where}: 'secrets' must map secret names to where they may be typed")
    permits = {}
    for name, spec in value.items():
        spec = spec or {}
        if not isinstance(spec, Mapping) or set(spec) - {"domains", "apps"}:
            raise UsageError(f"{where}: secrets.{name} takes 'domains' and 'apps' lists")
        permits[str(name)] = SecretPermit(
            tuple(_strings(spec.get("domains"), f"{where}: secrets.{name}.domains")),
            tuple(_strings(spec.get("apps"), f"{where}: secrets.{name}.apps")))
    return permits
