"""Drivers declare what they can do beyond the seam, and wrappers pass on exactly that.

A declared capability whose method is missing would crash the guard or a check; a
method that is there but undeclared would silently never be used (a password field
not blurred, a focused field not judged). Both are caught here for every driver and
every wrapper."""

from __future__ import annotations

import inspect
from typing import ClassVar

import pytest

from tests.support.fakes import FakeDriver
from venusctl.batch.checks import CheckContext, run_check, surface_text
from venusctl.batch.taskfile import Check
from venusctl.cache.hooks import ScreenWatch
from venusctl.core.actions import Surface, parse_action
from venusctl.core.errors import VenusError
from venusctl.drivers.android.driver import AndroidDriver
from venusctl.drivers.base import Element, HeldRequest, RequestDecision
from venusctl.drivers.capabilities import Abilities, Capability, able, can
from venusctl.drivers.desktop.driver import DesktopDriver
from venusctl.drivers.web.driver import WebDriver
from venusctl.drivers.wrappers import DriverWrapper, DryRunDriver, LentDriver
from venusctl.safety.guard import FOCUS, POINTER
from venusctl.safety.redact import Redactor
from venusctl.safety.secret_driver import SecretDriver
from venusctl.safety.secrets import SecretStore
from venusctl.safety.targets import describe_targets

pytestmark = pytest.mark.unit

DRIVERS = [AndroidDriver, DesktopDriver, WebDriver]
SECRET = "s3cret-value-42"


class EveryAbility(FakeDriver):
    """A fake that has every optional ability and remembers which were used."""

    capabilities: ClassVar[frozenset[Capability]] = frozenset(Capability)

    def __init__(self, text: str = "Order placed", **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.text = text
        self.used: list[str] = []
        self.judge: object = None
        self.folder: object = None

    def focused_element(self) -> Element | None:
        self.used.append("focused_element")
        return Element(name=f"field showing {SECRET}")

    def pointer_element(self) -> Element | None:
        self.used.append("pointer_element")
        return Element(name=f"row showing {SECRET}")

    def sensitive_regions(self) -> list[tuple[int, int, int, int]]:
        self.used.append("sensitive_regions")
        return [(1, 2, 3, 4)]

    def secret_regions(self) -> list[tuple[int, int, int, int]]:
        self.used.append("secret_regions")
        return [(5, 6, 7, 8)]

    def mark_secret_field(self) -> str | None:
        self.used.append("mark_secret_field")
        return "http://x/"

    def hold_requests(self, judge: object) -> None:
        self.used.append("hold_requests")
        self.judge = judge

    def keep_files_in(self, folder: object) -> None:
        self.used.append("keep_files_in")
        self.folder = folder

    def surface_text(self) -> str:
        self.used.append("surface_text")
        return self.text


def secret_driver(inner: FakeDriver) -> SecretDriver:
    redactor = Redactor()
    redactor.add("pin", SECRET)
    return SecretDriver(inner, SecretStore(), redactor)


WRAPPERS = {
    "DriverWrapper": DriverWrapper,
    "DryRunDriver": DryRunDriver,
    "LentDriver": LentDriver,
    "ScreenWatch": ScreenWatch,
    "SecretDriver": secret_driver,
}


def methods_of(cls: type) -> set[str]:
    return {name for name, _ in inspect.getmembers(cls, inspect.isfunction)}


def test_every_capability_names_a_method_of_the_abilities_protocol():
    public = {name for name in methods_of(Abilities) if not name.startswith("_")}
    assert {c.method for c in Capability} == public


@pytest.mark.parametrize("driver", DRIVERS, ids=lambda d: d.__name__)
def test_a_driver_declares_exactly_the_abilities_it_implements(driver: type):
    implemented = {c for c in Capability if callable(getattr(driver, c.method, None))}
    assert isinstance(driver.capabilities, frozenset)
    assert driver.capabilities == implemented


def test_the_drivers_declare_what_the_guard_secrets_and_checks_rely_on():
    assert Capability.HOLD_REQUESTS in WebDriver.capabilities
    assert Capability.HOLD_REQUESTS not in AndroidDriver.capabilities
    assert Capability.POINTER_ELEMENT in DesktopDriver.capabilities
    assert {Capability.FOCUSED_ELEMENT, Capability.SENSITIVE_REGIONS} <= (
        AndroidDriver.capabilities & DesktopDriver.capabilities & WebDriver.capabilities)
    assert Capability.SURFACE_TEXT in (
        WebDriver.capabilities & AndroidDriver.capabilities & DesktopDriver.capabilities)


@pytest.mark.parametrize("wrap", WRAPPERS.values(), ids=WRAPPERS.keys())
def test_a_wrapper_has_a_method_for_every_ability_and_declares_the_inner_ones(wrap):
    assert {c.method for c in Capability} <= methods_of(type(wrap(FakeDriver())))
    assert wrap(FakeDriver()).capabilities == frozenset()
    assert wrap(EveryAbility()).capabilities == frozenset(Capability)
    assert wrap(wrap(EveryAbility())).capabilities == frozenset(Capability)


@pytest.mark.parametrize("wrap", WRAPPERS.values(), ids=WRAPPERS.keys())
def test_a_wrapper_passes_each_declared_ability_to_the_driver_inside(wrap, tmp_path):
    inner = EveryAbility()
    outer = wrap(DryRunDriver(inner))

    def judge(request: HeldRequest) -> RequestDecision:
        return RequestDecision(True)

    assert outer.focused_element() is not None and outer.pointer_element() is not None
    assert outer.sensitive_regions() == [(1, 2, 3, 4)]
    assert outer.secret_regions() == [(5, 6, 7, 8)]
    assert outer.mark_secret_field() == "http://x/"
    outer.hold_requests(judge)
    outer.keep_files_in(tmp_path)
    assert outer.surface_text() == "Order placed"
    assert inner.used == [c.method for c in Capability]
    assert inner.judge is judge and inner.folder == tmp_path


@pytest.mark.parametrize("wrap", WRAPPERS.values(), ids=WRAPPERS.keys())
def test_a_wrapper_refuses_an_ability_the_driver_inside_lacks(wrap):
    outer = wrap(FakeDriver(name="plain"))
    for capability in Capability:
        with pytest.raises(NotImplementedError, match=f"plain driver.*{capability.method}"):
            getattr(outer, capability.method)(*(["x"] if capability in (
                Capability.HOLD_REQUESTS, Capability.KEEP_FILES) else []))


def test_the_secret_wrapper_scrubs_what_every_reading_ability_returns():
    inner = EveryAbility(text=f"Your PIN {SECRET} was saved")
    outer = secret_driver(inner)
    assert SECRET not in repr(outer.focused_element())
    assert SECRET not in repr(outer.pointer_element())
    assert SECRET not in outer.surface_text() and "Your PIN" in outer.surface_text()


def test_can_and_able_answer_from_the_declared_set_not_from_attributes():
    class Undeclared(FakeDriver):
        def focused_element(self) -> Element | None:
            raise AssertionError("an undeclared ability must not be called")

    assert not can(Undeclared(), Capability.FOCUSED_ELEMENT)
    assert able(Undeclared(), Capability.FOCUSED_ELEMENT) is None
    every = EveryAbility()
    assert can(every, Capability.SURFACE_TEXT) and able(every, Capability.SURFACE_TEXT) is every


def test_the_guard_asks_for_the_focus_and_pointer_only_where_declared():
    class Undeclared(FakeDriver):
        def focused_element(self) -> Element | None:
            raise AssertionError("an undeclared ability must not be called")

        def pointer_element(self) -> Element | None:
            raise AssertionError("an undeclared ability must not be called")

    typing = parse_action("Type(content='x')", Surface.DESKTOP)
    pointless = parse_action("Click()", Surface.DESKTOP)
    assert [t.element for t in describe_targets(Undeclared(), typing)] == [None]
    assert [t.element for t in describe_targets(Undeclared(), pointless)] == [None]
    every = DryRunDriver(EveryAbility())
    focus = describe_targets(every, typing)
    assert [t.where for t in focus] == [FOCUS] and focus[0].element is not None
    pointer = describe_targets(every, pointless)
    assert [t.where for t in pointer] == [POINTER] and pointer[0].element is not None


def test_text_present_reads_the_surface_text_through_any_wrapper(tmp_path):
    driver = LentDriver(DryRunDriver(EveryAbility(text="Order   placed\nfor Ada")))
    context = CheckContext(driver, "", {}, tmp_path)
    assert run_check(Check("text_present", "order placed for ada"), context).passed
    missed = run_check(Check("text_present", "Order cancelled"), context)
    assert not missed.passed and missed.detail == "not found in 22 characters"


def test_text_present_on_a_surface_without_text_says_so(tmp_path):
    with pytest.raises(VenusError, match="text_present cannot read the fake surface"):
        surface_text(DryRunDriver(FakeDriver()))
    result = run_check(Check("text_present", "x"), CheckContext(FakeDriver(), "", {}, tmp_path))
    assert not result.passed and result.detail == "text_present cannot read the fake surface"


def test_text_present_on_the_desktop_reads_the_pixels_when_the_window_text_lacks_it(
        tmp_path, monkeypatch):
    read: list[object] = []

    def ocr(driver: object) -> str:
        read.append(driver)
        return "Venus Test App Alpha Beta Saved: Lunch Tuesday"

    monkeypatch.setattr("venusctl.batch.checks.read_active_window", ocr)
    context = CheckContext(LentDriver(EveryAbility(text="Venus Test App",
                                                     surface=Surface.DESKTOP)), "", {}, tmp_path)
    assert run_check(Check("text_present", "venus test app"), context).passed and not read
    found = run_check(Check("text_present", "Saved: lunch tuesday"), context)
    assert found.passed and len(read) == 1
    assert found.detail == ("not found in 14 characters of window text; found in 46 "
                            "characters read by OCR")
    assert not run_check(Check("text_present", "Saved: Friday"), context).passed
    web = CheckContext(EveryAbility(text="Venus Test App"), "", {}, tmp_path)
    assert not run_check(Check("text_present", "Saved"), web).passed and len(read) == 2
