"""Judging the requests a browser makes: the backstop behind the guard.

The guard judges an action by what the driver can tell about its target; a page can
hide what a click really does (a "Continue" button that posts a card number, a link
that redirects off the allowed site, a script that opens a tab elsewhere). The web
driver therefore holds every request the browser makes (`drivers/web/gate.py`) and
asks `RequestGate.judge` about each one before it may leave. The verdict comes from
the run's policy and only from what the request carries:

  deny      a host on `deny_domains`, however the address was written (the browser
            has already turned `2130706433`, `127.1` or `0x7f.1` into 127.0.0.1)
  confirm   `leave-domain`: a navigation (main frame, iframe, new tab, every redirect
            hop) or a state-changing request to a host outside `allow_domains`
            (analytics beacons excepted);
            a state-changing request of a consequential kind, from its method, the
            words of its path, query and body field names, GraphQL operations, and
            values that are card numbers or IBANs: `payment`, `delete`, `account`,
            `send`, `install`, `credentials`; an installer download;
            `secret`: a stored secret's value (in any encoding a page may use) going
            to a host it was neither typed at nor permitted for
  allow     everything else: page loads, search, filters, "load more", beacons, GETs

A confirmation is asked like any other (terminal, TUI); with nobody to ask the
request is blocked and the run stops with exit 3, the pending request in the step's
record. A category approved for the run (`--allow-category`, "always") or for the
action of this very step (a "yes" to "Pay now" covers the payment request it makes)
needs no second answer. Everything here is plain data in, verdict out: page text,
the model's words and labels play no part.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlsplit

from venusctl.core.errors import Aborted, PolicyDenied
from venusctl.drivers.base import HeldRequest, RequestDecision
from venusctl.records.store import StepRecord
from venusctl.safety.confirm import Confirmer, ConfirmRequest, Reply
from venusctl.safety.detect import has_card_number
from venusctl.safety.guard import Decision, Verdict
from venusctl.safety.places import host_of, in_domains
from venusctl.safety.policy import Policy
from venusctl.safety.redact import Redactor
from venusctl.safety.text import KeywordSet, normalize

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
BEACON_KINDS = frozenset({"Ping", "CSPViolationReport"})
NETWORK_SCHEMES = ("http", "https")
DISPLAY_URL = 300

# Words of a request's path, query keys, body field names and GraphQL operations, by
# category, in the order they are tried. Whole words, as the guard matches labels.
REQUEST_WORDS: dict[str, tuple[str, ...]] = {
    "payment": (
        "pay", "payment", "payments", "checkout", "check out", "purchase", "purchases", "buy",
        "order", "orders", "place order", "charge", "charges", "billing", "transfer",
        "transfers", "wire", "subscribe", "subscription", "subscriptions", "donate",
        "donation", "donations", "top up", "topup", "withdraw", "withdrawal", "payout",
        "payouts", "invoice pay", "cardnumber", "card number", "cc number", "ccnumber",
        "credit card", "cvc", "cvv", "cvv2", "csc", "iban", "bic", "swift", "routing number",
        "account number", "sort code", "amount", "cc exp", "exp month", "exp year",
    ),
    "delete": (
        "delete", "deleted", "remove", "destroy", "erase", "purge", "trash", "wipe",
        "unsubscribe", "deactivate", "close account", "cancel subscription", "uninstall",
    ),
    "account": (
        "new password", "change password", "reset password", "password reset",
        "new passwd", "2fa", "mfa", "totp", "two factor", "security", "oauth", "authorize",
        "authorise", "grant", "consent", "recovery", "account email", "change email",
        "email change", "permissions", "api key", "api keys", "tokens",
    ),
    "credentials": (
        "password", "passwd", "passcode", "pin", "otp", "one time code", "verification code",
        "current password", "ssn",
    ),
    "send": (
        "send", "message", "messages", "comment", "comments", "reply", "replies", "publish",
        "post", "posts", "tweet", "tweets", "mail", "invite", "invites", "chat", "dm", "sms",
        "share", "review", "reviews",
    ),
    "install": (
        "install", "installs", "installation", "add extension", "extensions install",
    ),
}
# the policy's keyword lists that add to each category's words (the policy's own
# words, in every language it has, count in a request's path and fields too)
POLICY_LISTS = {"payment": ("payment", "card_form_field"), "credentials": ("credential",)}
PATH_ONLY = frozenset({"send"})
# Query or JSON keys whose *values* name the operation (`?action=delete`).
OPERATION_KEYS = frozenset({"action", "op", "operation", "cmd", "command", "do", "task",
                            "intent", "operationname", "method", "mutation"})
INSTALLER = re.compile(r"\.(apk|xapk|aab|exe|msi|msix|deb|rpm|dmg|pkg|crx|xpi|appimage|snap"
                       r"|flatpakref|run|vsix)$", re.IGNORECASE)
IBAN = re.compile(r"\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30})\b")
GRAPHQL_OPERATION = re.compile(r"\b(mutation)\b\s*(\w*)[^{]*\{\s*(\w+)", re.IGNORECASE)
MULTIPART_NAME = re.compile(r'content-disposition:[^\n]*\bname="([^"]*)"', re.IGNORECASE)


@dataclass(frozen=True)
class RequestFacts:
    """What a request carries, as the judge reads it."""

    host: str | None
    method: str
    path: str  # normalized words of the path and of the operations named in the request
    fields: str  # normalized query keys and body field names
    values: str  # decoded query and body values (for card numbers and IBANs)


def facts_of(request: HeldRequest) -> RequestFacts:
    url = urlsplit(request.url)
    method = request.method
    if method == "OPTIONS":  # a CORS preflight announces the request that follows
        method = request.headers.get("access-control-request-method", "OPTIONS").upper()
    query = parse_qsl(url.query, keep_blank_values=True)
    body_keys, body_values = _body_parts(request.body, request.headers.get("content-type", ""))
    keys = [k for k, _ in query] + body_keys
    operations = [v for k, v in [*query, *_pairs(request.body)] if k.lower() in OPERATION_KEYS]
    path = " ".join(normalize(part) for part in
                    (unquote_plus(url.path), *operations, *_graphql(request.body)))
    values = " ".join([unquote_plus(url.query), *body_values])
    return RequestFacts(_host(request.url), method, path, " | ".join(map(normalize, keys)),
                        values)


def _host(url: str) -> str | None:
    """The host, with IPv4-mapped IPv6 addresses read as the IPv4 address they reach."""
    host = host_of(url)
    if not host or ":" not in host:
        return host
    try:
        address = ipaddress.IPv6Address(host.strip("[]"))
    except ValueError:
        return host
    mapped = address.ipv4_mapped
    return str(mapped) if mapped else host


def _body_parts(body: str | None, content_type: str) -> tuple[list[str], list[str]]:
    """Field names and values of a form, JSON or multipart body (raw text otherwise)."""
    if not body:
        return [], []
    if "multipart/" in content_type.lower():
        return MULTIPART_NAME.findall(body), [body]
    pairs = _pairs(body)
    if pairs:
        return [k for k, _ in pairs], [v for _, v in pairs]
    return [], [body]


def _pairs(body: str | None) -> list[tuple[str, str]]:
    """Key/value pairs of a JSON or URL-encoded body (nested JSON flattened)."""
    if not body:
        return []
    text = body.strip()
    if text[:1] in "{[":
        try:
            return list(_flatten(json.loads(text)))
        except ValueError:
            return []
    if "=" in text and "\n" not in text:
        return parse_qsl(text, keep_blank_values=True)
    return []


def _flatten(value: Any, depth: int = 0) -> Iterator[tuple[str, str]]:
    if depth > 6:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, (dict, list)):
                yield str(key), ""
                yield from _flatten(item, depth + 1)
            else:
                yield str(key), "" if item is None else str(item)
    elif isinstance(value, list):
        for item in value:
            yield from _flatten(item, depth + 1)


def _graphql(body: str | None) -> list[str]:
    """Mutation names and their first field (`deleteAccount`); queries change nothing."""
    if not body or "mutation" not in body.lower():
        return []
    found: list[str] = []
    for text in [v for k, v in _pairs(body) if k == "query"] or [body]:
        for match in GRAPHQL_OPERATION.finditer(text):
            found += [match.group(2), match.group(3)]
    return [f for f in found if f]


# ---------------------------------------------------------------------- judging


@dataclass
class RequestRules:
    """The policy's verdict on one request (pure: no asking, no state)."""

    policy: Policy
    redactor: Redactor | None = None
    _words: dict[str, KeywordSet] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        keywords = self.policy.keywords
        self._words = {
            category: KeywordSet.compile([
                *words, *(w for name in POLICY_LISTS.get(category, (category,))
                          for w in keywords.get(name, []))])
            for category, words in REQUEST_WORDS.items()
        }

    def verdict(self, request: HeldRequest) -> Verdict:
        scheme = urlsplit(request.url).scheme.lower()
        if scheme not in NETWORK_SCHEMES:
            return Verdict(Decision.ALLOW, f"not a network request ({scheme or 'no scheme'})")
        facts = facts_of(request)
        for check in (self._denied, self._secret, self._outside, self._consequential):
            verdict = check(request, facts)
            if verdict is not None:
                return verdict
        return Verdict(Decision.ALLOW, "an ordinary request")

    def _denied(self, request: HeldRequest, facts: RequestFacts) -> Verdict | None:
        if facts.host and in_domains(facts.host, self.policy.deny_domains):
            return Verdict(Decision.DENY, f"{facts.host} is on the deny-list", "denied-domain",
                           "deny_domains")
        return None

    def _secret(self, request: HeldRequest, facts: RequestFacts) -> Verdict | None:
        if self.redactor is None or not facts.host:
            return None
        for name in self.redactor.found_in(f"{request.url}\n{request.body or ''}"):
            if facts.host in self.redactor.typed_hosts(name):
                continue
            permit = self.policy.secrets.get(name)
            if permit is not None and in_domains(facts.host, permit.domains):
                continue
            return Verdict(Decision.CONFIRM, f"sends the stored secret {name} to {facts.host}",
                           "secret", "secrets")
        return None

    def _outside(self, request: HeldRequest, facts: RequestFacts) -> Verdict | None:
        allowed = self.policy.allow_domains
        if not allowed or not facts.host or in_domains(facts.host, allowed):
            return None
        changes = facts.method not in READ_METHODS and request.kind not in BEACON_KINDS
        if not (request.navigation or changes):
            return None
        how = {"main": "a navigation", "popup": "a new tab", "frame": "a frame",
               "worker": "a worker"}.get(request.frame, "a request")
        if not request.navigation:
            how = f"a {facts.method} request"
        via = " (a redirect)" if request.redirected_from else ""
        return Verdict(Decision.CONFIRM, f"{how}{via} to {facts.host}, outside the allowed "
                       f"domains ({', '.join(allowed)})", "leave-domain", "allow_domains")

    def _consequential(self, request: HeldRequest, facts: RequestFacts) -> Verdict | None:
        path = urlsplit(request.url).path
        if request.navigation and INSTALLER.search(path):
            return Verdict(Decision.CONFIRM, f"downloads an installer ({path.rsplit('/', 1)[-1]})",
                           "install", "request-install")
        if has_card_number(facts.values) or _has_iban(facts.values):
            return Verdict(Decision.CONFIRM, "sends a payment card or bank account number",
                           "payment", "request-card")
        if facts.method in READ_METHODS:
            return None
        if facts.method == "DELETE":
            return Verdict(Decision.CONFIRM, f"a DELETE request ({_short(path)})", "delete",
                           "request-delete")
        beacon = request.kind in BEACON_KINDS
        for category, words in self._words.items():
            if beacon and category != "credentials":
                continue
            # what a field is called says little about sending ("post": 12 is a post's id)
            hit = words.search(facts.path) or (
                words.search(facts.fields) if category not in PATH_ONLY else None)
            if hit is None or self._permitted_login(category, request, facts):
                continue
            return Verdict(Decision.CONFIRM, f"a {facts.method} request that reads as "
                           f"{category} ('{hit}' in {_short(path)})", category,
                           f"request-{category}")
        return None

    def _permitted_login(self, category: str, request: HeldRequest, facts: RequestFacts) -> bool:
        """A sign-in whose password fields hold only secrets permitted at this host."""
        if category != "credentials" or self.redactor is None or not facts.host:
            return False
        names = self.redactor.found_in(request.body or "")
        if not names:
            return False
        for name in names:
            permit = self.policy.secrets.get(name)
            permitted = permit is not None and in_domains(facts.host, permit.domains)
            if not (permitted or facts.host in self.redactor.typed_hosts(name)):
                return False
        return True


def _has_iban(text: str) -> bool:
    for match in IBAN.finditer(text.upper()):
        compact = match.group(1).replace(" ", "")
        rearranged = compact[4:] + compact[:4]
        digits = "".join(str(int(c, 36)) for c in rearranged)
        if 15 <= len(compact) <= 34 and int(digits) % 97 == 1:
            return True
    return False


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ----------------------------------------------------------------- the gate


class RequestGate:
    """Judges held requests for one run, asks when needed, and records what it did.

    It follows the run's steps (an observer of the run calls `step_started` and
    `step_finished`): it knows the current step, and adds the requests it confirmed,
    denied or blocked to that step's record (`StepRecord.requests`).
    """

    def __init__(self, rules: RequestRules, confirmer: Confirmer, approved: set[str],
                 confirm_mode: str = "policy") -> None:
        self.rules = rules
        self.confirmer = confirmer
        self.approved = approved  # the run's approvals: "always" answers land in both
        self.confirm_mode = confirm_mode
        self.step = 0
        self._step_approved: set[str] = set()
        self._log: list[dict[str, Any]] = []

    # the callback the web driver calls for every held request
    def judge(self, request: HeldRequest) -> RequestDecision:
        verdict = self.rules.verdict(request)
        if verdict.decision is Decision.ALLOW:
            return RequestDecision(True)
        entry = {**request.as_dict(), **verdict.as_dict()}
        self._log.append(entry)
        if verdict.decision is Decision.DENY:
            entry["reply"] = "denied"
            if request.navigation or facts_of(request).method not in READ_METHODS:
                raise PolicyDenied(f"step {self.step}: a request to {_short(request.url)} is "
                                   f"denied by the policy: {verdict.reason}")
            return RequestDecision(False)
        return self._confirm(request, verdict, entry)

    def _confirm(self, request: HeldRequest, verdict: Verdict, entry: dict[str, Any]
                 ) -> RequestDecision:
        category = verdict.category or ""
        if category in self.approved or category in self._step_approved:
            entry["reply"] = "approved"
            return RequestDecision(True)
        if self.confirm_mode == "never":
            entry["reply"] = "confirmation turned off"
            return RequestDecision(True)
        entry["reply"] = "unanswered"  # stays so if nobody can be asked (NeedsUser)
        origin = f" from the {request.frame} frame" if request.frame != "main" else ""
        reply = self.confirmer.confirm(ConfirmRequest(
            step=self.step, action=f"{request.method} {_short(request.url, DISPLAY_URL)}",
            target=f"a {request.kind.lower()} request{origin}", where=request.page_url,
            reason=verdict.reason, thought="", category=category))
        entry["reply"] = reply.value
        return self._answer(reply, request, category)

    def _answer(self, reply: Reply, request: HeldRequest, category: str) -> RequestDecision:
        if reply is Reply.ABORT:
            raise Aborted(f"aborted by the user at step {self.step}")
        if reply is Reply.ALWAYS and category:
            self.approved.add(category)
        if reply in (Reply.YES, Reply.ALWAYS):
            self._step_approved.add(category)
            return RequestDecision(True)
        if reply is Reply.TAKEOVER:
            self.confirmer.take_over()
        return RequestDecision(False, f"The page tried to send a {request.method} request to "
                                      f"{_short(request.url)} and the user declined it, so it "
                                      "was blocked.")

    def approve_for_step(self, category: str | None) -> None:
        """The person said yes to this step's action: its own requests of that category
        need no second answer."""
        if category:
            self._step_approved.add(category)

    # the run's steps
    def step_started(self, step: int) -> None:
        self.step = step
        self._step_approved.clear()

    def step_finished(self, record: StepRecord) -> None:
        if self._log:
            record.requests = [*record.requests, *self._log]
            self._log = []


class StepApprovals:
    """A confirmer that tells the request gate which categories the person approved
    for the current step's action, so the requests that action makes are not asked
    about again."""

    def __init__(self, inner: Confirmer, gate: RequestGate) -> None:
        self.inner = inner
        self.gate = gate
        self.interactive = inner.interactive

    def confirm(self, request: ConfirmRequest) -> Reply:
        reply = self.inner.confirm(request)
        if reply in (Reply.YES, Reply.ALWAYS):
            self.gate.approve_for_step(request.category)
        return reply

    def ask_user(self, question: str) -> str:
        return self.inner.ask_user(question)

    def take_over(self) -> None:
        self.inner.take_over()

