"""A run's events when a question is asked outside the loop's own greenlet.

The browser's request hold asks about a held request from Playwright's event
handler, which runs in a greenlet of Playwright's, not in the run's. The event
iterator must still hand those events over in order and end the run as it
should (here: exit 3 with nobody to ask), never switch away from a greenlet it
cannot come back to.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import greenlet

from tests.support.fakes import FakeDriver
from venusctl import (
    Agent,
    ConfirmationAnswered,
    ConfirmationAsked,
    Reply,
    RunEnded,
    SafetyOptions,
    StepFinished,
)
from venusctl.api.stream import Run
from venusctl.core.actions import Action
from venusctl.drivers.base import ActionResult, HeldRequest, ScreenContext
from venusctl.drivers.capabilities import Capability
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel

CHECKOUT = HeldRequest(url="https://shop.x/api/checkout", method="POST", kind="XHR",
                       page_url="https://shop.x/catalog", body='{"card": "4242424242424242"}')
ANSWERS = [Completion(text=f"<think>go</think><action>{a}</action>")
           for a in ("Click(point=(10, 10))", "Finished(content='done')")]


class HoldingDriver(FakeDriver):
    capabilities = frozenset({Capability.HOLD_REQUESTS})

    """A browser whose page sends a checkout request when clicked; the request is
    judged in a greenlet of its own, as Playwright's event handlers are."""

    judge: Callable[[HeldRequest], Any] | None = None
    sent: list[bool]
    stop: BaseException | None = None

    def hold_requests(self, judge: Callable[[HeldRequest], Any]) -> None:
        self.judge = judge
        self.sent = []

    def perform(self, action: Action) -> ActionResult:
        result = super().perform(action)
        assert self.judge is not None
        judge = self.judge

        def handler() -> None:
            try:
                self.sent.append(judge(CHECKOUT).allow)
            except BaseException as exc:  # raised at the driver's next call, as on the web
                self.stop = exc
                self.sent.append(False)

        greenlet.greenlet(handler).switch()
        return result

    def settle(self, cap_s: float) -> float:
        if self.stop is not None:
            raise self.stop
        return 0.0


def run_events(tmp_path, confirmer=None) -> tuple[list[Any], HoldingDriver, Run]:
    driver = HoldingDriver(context_value=ScreenContext(url="https://shop.x/catalog"))
    built = Agent(driver, ScriptedModel(list(ANSWERS)), runs_dir=tmp_path,
                  safety=SafetyOptions(config={}), confirmer=confirmer)
    run = built.run("buy it")
    return list(run), driver, run


def test_a_request_asked_about_in_another_greenlet_fails_closed_in_order(tmp_path):
    events, driver, run = run_events(tmp_path)
    kinds = [type(e) for e in events
             if isinstance(e, ConfirmationAsked | ConfirmationAnswered | StepFinished | RunEnded)]
    assert kinds[:2] == [ConfirmationAsked, ConfirmationAnswered]
    assert kinds[-1] is RunEnded and driver.sent == [False]
    asked = next(e for e in events if isinstance(e, ConfirmationAsked))
    assert asked.request.category == "payment" and "POST" in asked.request.action
    ended = events[-1]
    assert ended.exit_code == 3, ended.outcome.message
    assert run.run_id is not None
    step = json.loads((tmp_path / run.run_id / "steps.jsonl").read_text().splitlines()[0])
    assert step["requests"][-1]["reply"] == "unanswered"


def test_a_request_confirmed_in_another_greenlet_is_sent_and_the_run_finishes(tmp_path):
    seen = []

    def decide(request):
        seen.append(request.category)
        return Reply.YES

    events, driver, _ = run_events(tmp_path, decide)
    assert seen == ["payment"] and driver.sent == [True]
    answered = [e for e in events if isinstance(e, ConfirmationAnswered)]
    assert [e.reply for e in answered] == [Reply.YES]
    assert isinstance(events[-1], RunEnded) and events[-1].exit_code == 0
