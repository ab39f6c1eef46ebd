"""Assembling a run's safety from flags and the config file: policy, guard, secrets.

Resolution: `--policy` > `policy` in the config file's `[safety]` table > the
shipped default. Allow-lists and pre-approved categories from the command line
add to those of the config file and the policy. Confirmation modes:

  policy  the policy decides (the default)
  all     also confirm every state-changing action the policy allows
  never   no confirmations (needs --yes); denials still stop the run

No flag turns a deny into anything else.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from venusctl.core.actions import Surface, is_terminal
from venusctl.core.errors import UsageError
from venusctl.core.options import declare, settings_of
from venusctl.drivers.base import Driver
from venusctl.drivers.capabilities import Capability, able
from venusctl.safety.confirm import Confirmer, default_confirmer
from venusctl.safety.guard import Decision, Guard, GuardRequest, Verdict, changes_state
from venusctl.safety.policy import Policy, load_policy
from venusctl.safety.policy_guard import PolicyGuard
from venusctl.safety.redact import Redactor, install_log_filter, remove_log_filter
from venusctl.safety.requests import RequestGate, RequestRules, StepApprovals
from venusctl.safety.secret_driver import SecretDriver
from venusctl.safety.secrets import (
    DESKTOP_PASSWORD,
    NO_PASSWORD,
    NO_SECRETS,
    SecretStore,
    placeholder,
)

log = logging.getLogger(__name__)

CONFIRM_MODES = ("policy", "all", "never")
PASSWORD_HINTS = ("sudo", "root", "admin", "password", "install", "apt", "system", "密码",
                  "安装", "管理员")


@dataclass
class SafetyOptions:
    """The safety settings of one run (None or empty: not given), each declared once for
    the command line, the config file's `[safety]` table and task files."""

    policy: str | None = field(default=None, metadata=declare(
        flag="--policy", metavar="NAME|FILE", file="safety.policy", task="policy",
        help="Safety policy: 'default', 'strict' or a YAML file (default: [safety] policy "
             "in the config file, else 'default')."))
    allow_domains: tuple[str, ...] = field(default=(), metadata=declare(
        flag="--allow-domain", metavar="DOMAIN", repeat=True, file="safety.allow_domains",
        task="allow_domains",
        help="Allowed web domain (repeatable); going outside the allowed ones needs "
             "confirmation."))
    allow_apps: tuple[str, ...] = field(default=(), metadata=declare(
        flag="--allow-app", metavar="APP", repeat=True, file="safety.allow_apps",
        task="allow_apps",
        help="Allowed app, package or window class (repeatable); going outside them needs "
             "confirmation."))
    allow_categories: tuple[str, ...] = field(default=(), metadata=declare(
        flag="--allow-category", metavar="CATEGORY", repeat=True,
        file="safety.allow_categories", task="allow_categories",
        help="Confirm this category in advance (repeatable), e.g. payment; denials cannot "
             "be approved."))
    config: Mapping[str, Any] | None = field(default=None, repr=False)


CONFIG_KEYS = tuple(spec.key for _, _, spec in settings_of(SafetyOptions) if spec.file)


# ------------------------------------------------------------------ config file


def config_file() -> Path:
    """The config file shared with the model settings (`venusctl.core.config_file`)."""
    from venusctl.core.config_file import config_path

    return config_path()


def read_safety_config(path: Path | None = None) -> dict[str, Any]:
    """The `[safety]` table of the config file (empty when there is none)."""
    from venusctl.core.config_file import read_table, relative_to_file

    path = path or config_file()
    table = read_table(path, "safety", CONFIG_KEYS)
    for key in CONFIG_KEYS[1:]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"config file {path}: [safety] {key} must be a list of strings")
    if "policy" in table and not isinstance(table["policy"], str):
        raise UsageError(f"config file {path}: [safety] policy must be a name or a path")
    if table.get("policy") and table["policy"] not in ("default", "strict"):
        table["policy"] = relative_to_file(path, table["policy"])
    return table


# ----------------------------------------------------------------------- policy


def resolve_policy(options: SafetyOptions) -> Policy:
    """The effective policy: chosen file, with the allow-lists of flags and config."""
    config = options.config if options.config is not None else read_safety_config()
    policy = load_policy(options.policy or config.get("policy") or "default")
    return policy.with_lists(
        allow_domains=(*config.get("allow_domains", []), *options.allow_domains),
        allow_apps=(*config.get("allow_apps", []), *options.allow_apps),
    )


def approved_categories(policy: Policy, options: SafetyOptions) -> set[str]:
    """Categories confirmed in advance; an unknown name is a usage error."""
    config = options.config if options.config is not None else read_safety_config()
    wanted = [*policy.allow_categories, *config.get("allow_categories", []),
              *options.allow_categories]
    known = policy.categories()
    unknown = [c for c in wanted if c not in known]
    if unknown:
        raise UsageError(f"unknown category {', '.join(unknown)} for --allow-category "
                         f"(this policy has: {', '.join(known)})")
    return set(wanted)


def make_policy_guard(policy: Policy, confirm: str = "policy", assume_yes: bool = False,
                      ) -> Guard:
    """The guard for a confirmation mode; turning confirmation off needs `--yes` too."""
    if confirm not in CONFIRM_MODES:
        raise UsageError(f"--confirm must be one of {', '.join(CONFIRM_MODES)}, not '{confirm}'")
    guard = PolicyGuard(policy)
    if confirm == "all":
        return ConfirmStateChanges(guard)
    if confirm == "never":
        if not assume_yes:
            raise UsageError("--confirm never turns off every safety prompt; add --yes to mean it")
        return NoConfirmations(guard)
    return guard


class ConfirmStateChanges:
    """`--confirm all`: the policy, plus a confirmation for every state change it allows."""

    def __init__(self, inner: Guard) -> None:
        self.inner = inner

    def check(self, request: GuardRequest) -> Verdict:
        verdict = self.inner.check(request)
        if (verdict.decision is Decision.ALLOW and not is_terminal(request.action)
                and changes_state(request.action)):
            return Verdict(Decision.CONFIRM, "every state-changing action is confirmed "
                           "(--confirm all)", "state-change", verdict.rule)
        return verdict


class NoConfirmations:
    """`--confirm never --yes`: confirmations become allows; denials stay denials."""

    def __init__(self, inner: Guard) -> None:
        self.inner = inner

    def check(self, request: GuardRequest) -> Verdict:
        verdict = self.inner.check(request)
        if verdict.decision is Decision.CONFIRM:
            return Verdict(Decision.ALLOW, f"{verdict.reason}; confirmation turned off "
                           "(--confirm never --yes)", verdict.category, verdict.rule)
        return verdict


# ---------------------------------------------------------------------- prompts


@dataclass(frozen=True)
class PromptNotes:
    """What the system prompt says about secrets; `warning` is for the person."""

    password_note: str = NO_PASSWORD
    secrets_note: str = NO_SECRETS
    warning: str | None = None


def prompt_notes(surface: Surface, names: Iterable[str], task: str) -> PromptNotes:
    """Tell the model the placeholders of stored secrets, never their values."""
    names = sorted(names)
    secrets_note = NO_SECRETS
    if names:
        listed = ", ".join(placeholder(n) for n in names)
        secrets_note = (
            f"Stored secrets you can type without seeing them: {listed}. Type the "
            f"placeholder exactly, e.g. Type(content='{placeholder(names[0])}'); the real "
            "value is typed for you. Never ask for or write out a secret's value.")
    password_note, warning = NO_PASSWORD, None
    if surface is Surface.DESKTOP:
        if DESKTOP_PASSWORD in names:
            password_note = (
                "The machine's password is stored; when a password prompt (sudo, an "
                f"administrator dialog) asks for it, type {placeholder(DESKTOP_PASSWORD)}.")
        elif any(hint in task.lower() for hint in PASSWORD_HINTS):
            warning = (f"this task may need the machine's password, and none is stored: "
                       f"`venusctl secret set {DESKTOP_PASSWORD}` (the model will ask you)")
    return PromptNotes(password_note, secrets_note, warning)


def stored_names(store: SecretStore) -> list[str]:
    """The stored secret names, or none when no keyring is usable (never fatal)."""
    try:
        return store.names()
    except UsageError:
        return []


# -------------------------------------------------------------------- the run


@dataclass
class RunSafety:
    """Everything safety adds to one run, built before the model and driver open."""

    policy: Policy
    guard: Guard
    approved: set[str]
    store: SecretStore
    redactor: Redactor
    notes: PromptNotes
    confirm_mode: str = "policy"
    gate: RequestGate | None = None

    def protect(self, driver: Driver) -> Driver:
        """The driver wrapped so secrets are typed, scrubbed and password fields blurred."""
        return SecretDriver(driver, self.store, self.redactor, self.policy.secrets)

    def hold_requests(self, driver: Driver, confirmer: Confirmer, approved: set[str]
                      ) -> Confirmer:
        """Have a driver that can hold requests (the browser) ask the request gate about
        each one (see `safety.requests`); returns the confirmer the run should use, which
        lets the gate know what the person approved for each step."""
        holder = able(driver, Capability.HOLD_REQUESTS)
        if holder is None:
            return confirmer
        self.gate = RequestGate(RequestRules(self.policy, self.redactor), confirmer, approved,
                                self.confirm_mode)
        holder.hold_requests(self.gate.judge)
        return StepApprovals(confirmer, self.gate)

    @contextmanager
    def scrubbed_logs(self) -> Iterator[None]:
        log_filter = install_log_filter(self.redactor)
        try:
            yield
        finally:
            remove_log_filter(log_filter)

    def record(self) -> dict[str, Any]:
        """What run.json keeps about safety (names and settings, never values)."""
        return {
            "policy": self.policy.source,
            "allow_domains": list(self.policy.allow_domains),
            "allow_apps": list(self.policy.allow_apps),
            "approved_categories": sorted(self.approved),
        }


def protected(driver: Driver, store: SecretStore | None = None, confirm: str = "policy",
              confirmer: Confirmer | None = None) -> Driver:
    """A driver outside a run (`venusctl act`) with secrets typed and scrubbed all the same,
    and (a browser) its requests judged by the policy like in a run."""
    redactor = Redactor()
    policy = resolve_policy(SafetyOptions())
    wrapped = SecretDriver(driver, store or SecretStore(), redactor, policy.secrets)
    holder = able(driver, Capability.HOLD_REQUESTS)
    if holder is not None:
        gate = RequestGate(RequestRules(policy, redactor), confirmer or default_confirmer(),
                           set(policy.allow_categories), confirm)
        gate.step_started(1)
        holder.hold_requests(gate.judge)
    return wrapped


def prepare(options: SafetyOptions, confirm: str, assume_yes: bool, surface: Surface,
            task: str, store: SecretStore | None = None) -> RunSafety:
    """Resolve the policy and guard and read the secret names; usage errors come first."""
    if options.config is None:
        options = replace(options, config=read_safety_config())
    policy = resolve_policy(options)
    guard = make_policy_guard(policy, confirm, assume_yes)
    approved = approved_categories(policy, options)
    store = store or SecretStore()
    notes = prompt_notes(surface, stored_names(store), task)
    if notes.warning:
        log.warning(notes.warning)
    return RunSafety(policy, guard, approved, store, Redactor(), notes, confirm)
