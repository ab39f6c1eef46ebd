"""A policy in plain text, for `venusctl policy show` and `policy check`."""

from __future__ import annotations

from typing import Any

import yaml

from venusctl.safety.policy import SHIPPED, Policy
from venusctl.safety.recheck import Rechecked
from venusctl.safety.sanitize import shown_line

KEYWORD_PREVIEW = 6


def policy_text(policy: Policy, approved: set[str], keywords: bool = False) -> str:
    """The effective rules, lists and categories, most decisive first."""
    source = f"{policy.source} (shipped)" if policy.source in SHIPPED else policy.source
    lines = [f"policy     {policy.name} — {source}"]
    if policy.description:
        lines.append(f"about      {policy.description}")
    lines.append(f"otherwise  {policy.otherwise.value} (state-changing actions no rule matches)")
    lines.append(f"domains    allowed: {_listed(policy.allow_domains, 'any')}; "
                 f"denied: {_listed(policy.deny_domains, 'none')}")
    lines.append(f"apps       allowed: {_listed(policy.allow_apps, 'any')}; "
                 f"denied: {_listed(policy.deny_apps, 'none')}")
    lines.append(f"approved   {_listed(sorted(approved), 'none')} (no confirmation this run)")
    permits = [f"{name} on {_listed((*p.domains, *p.apps), 'nowhere')}"
               for name, p in policy.secrets.items()]
    lines.append(f"secrets    typed without confirmation: {_listed(permits, 'none')}")
    lines.append(f"languages  {_listed(policy.languages, 'none')} (keyword files)")
    lines.append(f"categories {', '.join(policy.categories())}")
    lines.append("")
    lines.append("rules (a matching deny wins over confirm, confirm over allow):")
    for rule in sorted(policy.rules, key=lambda r: ("deny", "confirm", "allow").index(
            r.verdict.value)):
        category = f" [{rule.category}]" if rule.category else ""
        lines.append(f"  {rule.verdict.value:<8}{rule.id}{category}: {rule.reason}")
        lines.append(f"          when {_conditions(rule.when)}")
        if rule.unless:
            lines.append(f"          unless {_conditions(rule.unless)}")
    lines.extend(_builtin_lines(policy))
    lines.append("")
    lines.append("keyword lists" + ("" if keywords else " (--keywords lists every word)") + ":")
    for name, words in policy.keywords.items():
        shown = words if keywords else words[:KEYWORD_PREVIEW]
        more = "" if len(shown) == len(words) else f", … ({len(words)} in all)"
        lines.append(f"  ${name}: {', '.join(shown)}{more}")
    return "\n".join(lines)


def _builtin_lines(policy: Policy) -> list[str]:
    return [
        "  deny    deny_domains / deny_apps: acting on or going to a listed domain or app",
        "  confirm allow_domains / allow_apps [leave-domain, leave-app]: going outside them, "
        "when lists are given",
        "  confirm secrets [secret]: typing {{secret:NAME}} where `secrets` does not permit it",
    ]


def _listed(items: Any, empty: str) -> str:
    items = list(items)
    return ", ".join(items) if items else empty


def _conditions(conditions: dict[str, Any]) -> str:
    parts = []
    for key, value in conditions.items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value).lower()
        parts.append(f"{key}: {shown}")
    return "; ".join(parts)


def policy_yaml(policy: Policy) -> str:
    """The effective policy as one self-contained YAML file (it loads back as is)."""
    return yaml.safe_dump(policy.as_dict(), allow_unicode=True, sort_keys=False, width=100)


def recheck_text(run_id: str, policy: Policy, results: list[Rechecked]) -> str:
    lines = [f"run {run_id} against policy {policy.name} ({policy.source}):"]
    for item in results:
        was = (item.recorded or {}).get("decision", "-")
        now = item.verdict.decision.value
        mark = "!" if item.gated else " "
        detail = ""
        if item.gated:
            category = f" [{item.verdict.category}]" if item.verdict.category else ""
            detail = f"  {item.verdict.rule or ''}{category}: {item.verdict.reason}"
            detail = "  " + shown_line(detail)
        lines.append(f"{mark} step {item.step:>3}  {shown_line(was):>9} → {now:<8} "
                     f"{shown_line(item.action)}{detail}")
    gated = [r for r in results if r.gated]
    denied = sum(1 for r in gated if r.verdict.decision.value == "deny")
    lines.append(f"{len(gated)} of {len(results)} actions would be gated "
                 f"({len(gated) - denied} confirm, {denied} deny)")
    return "\n".join(lines)
