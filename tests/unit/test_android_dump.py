"""The background screen dump: started early, waited for on demand, retried once, dropped
when the screen changes. A fake dump function stands in for the phone."""

from __future__ import annotations

import threading

import pytest

from venusctl.core.errors import DeviceError
from venusctl.drivers.android.dump import UiDumps
from venusctl.drivers.android.ui import Node


def node(label: str) -> Node:
    return Node({"text": label}, (0, 0, 10, 10))


class Phone:
    """Answers each dump with the next scripted result; can hold a dump until released."""

    def __init__(self, *results: object) -> None:
        self.results = list(results)
        self.calls = 0
        self.gate = threading.Event()
        self.gate.set()
        self.running = threading.Event()

    def dump(self) -> list[Node] | None:
        self.calls += 1
        self.running.set()
        self.gate.wait(5)
        result = self.results.pop(0)
        if isinstance(result, BaseException):
            raise result
        return result  # type: ignore[return-value]


def test_one_dump_serves_the_screen():
    phone = Phone([node("Pay")])
    dumps = UiDumps(phone.dump)
    dumps.start()
    dumps.start()
    assert dumps.nodes()[0].label == "Pay"
    assert dumps.nodes()[0].label == "Pay"
    assert phone.calls == 1 and dumps.attempts == 1


def test_a_failed_dump_is_tried_once_more():
    phone = Phone(None, [node("Save")])
    dumps = UiDumps(phone.dump)
    assert dumps.nodes()[0].label == "Save"
    assert phone.calls == 2


def test_two_failures_mean_the_screen_is_unreadable():
    phone = Phone(None, None, [node("never asked")])
    dumps = UiDumps(phone.dump)
    assert dumps.nodes() is None
    assert phone.calls == 2


def test_ready_never_waits():
    phone = Phone([node("Pay")])
    phone.gate.clear()
    dumps = UiDumps(phone.dump)
    dumps.start()
    assert phone.running.wait(5)
    assert dumps.ready() is None  # still dumping
    phone.gate.set()
    assert dumps.nodes()[0].label == "Pay"
    assert dumps.ready()[0].label == "Pay"


def test_a_stale_dump_is_never_used_and_the_next_waits_for_it():
    """An action while a dump runs: its nodes belong to the old screen."""
    phone = Phone([node("old screen")], [node("new screen")])
    phone.gate.clear()
    dumps = UiDumps(phone.dump)
    dumps.start()
    assert phone.running.wait(5)
    dumps.stale()
    dumps.start()  # must not run beside the first (a phone refuses two at once)
    assert phone.calls == 1
    phone.gate.set()
    assert dumps.nodes()[0].label == "new screen"
    assert phone.calls == 2


def test_a_phone_gone_during_the_dump_is_raised_to_whoever_waits():
    phone = Phone(DeviceError("the phone went away"))
    dumps = UiDumps(phone.dump)
    with pytest.raises(DeviceError, match="went away"):
        dumps.nodes()
