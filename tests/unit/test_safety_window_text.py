"""Keys sent to a focus nobody identified (a window without accessibility) are judged
by what the focused window shows, read from the screen (stand-in reader here; the Tk
windows of the desktop red-team corpus with real Tesseract)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from PIL import Image

from tests.support.fakes import FakeDriver
from venusctl.core.actions import Surface, parse_action
from venusctl.core.errors import ExitCode
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import Element, Screen, ScreenContext
from venusctl.drivers.capabilities import Capability
from venusctl.loop.agent import Agent
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import Recorder, RunInfo, load_run
from venusctl.run.observers import RecordObserver
from venusctl.safety.confirm import NonInteractiveConfirmer
from venusctl.safety.guard import FOCUS, Decision, GuardRequest, Target
from venusctl.safety.ocr import image_box
from venusctl.safety.policy import load_policy
from venusctl.safety.policy_guard import PolicyGuard
from venusctl.safety.pressing import unidentified_focus
from venusctl.safety.reading import (
    key_may_press,
    needs_ocr,
    needs_window_reading,
    read_unnamed,
)

pytestmark = pytest.mark.unit

DEFAULT = load_policy("default")
CLEANUP = ScreenContext(app="Venustest", title="Cleanup")
BOUNDS = [100, 100, 600, 360]


def window(text: str | None = None, **more: object) -> Element:
    """The focus as the desktop driver reports it without accessibility."""
    extra: dict = {"unidentified": True, "window_bounds": BOUNDS, "window_title": "Cleanup",
                   "window_class": "Venustest", **more}
    if text is not None:
        extra["window_text"] = text
    return Element(app="Venustest", extra=extra)


def check(action: str, focus: Element | None, context: ScreenContext = CLEANUP,
          guard: PolicyGuard | None = None) -> object:
    parsed = parse_action(action, Surface.DESKTOP)
    request = GuardRequest(1, parsed, parsed, None, context, "Continue.",
                           (Target(FOCUS, focus),))
    return (guard or PolicyGuard(DEFAULT)).check(request)


# ------------------------------------------------------------------- judging keys


@pytest.mark.parametrize("action", [
    "Hotkey(keys=['space'])", "Type(content=' ')", "Hotkey(keys=['enter'])",
    "Type(content='\\n')", "KeyDown(keys=['space'])", "PressEnter()"])
def test_a_key_that_presses_is_judged_by_what_the_focused_window_shows(action):
    if action == "PressEnter()":
        parsed = parse_action(action, Surface.MOBILE)
        request = GuardRequest(1, parsed, parsed, None, CLEANUP, "",
                               (Target(FOCUS, window("Keep files Delete all files Send")),))
        verdict = PolicyGuard(DEFAULT).check(request)
    else:
        verdict = check(action, window("Keep files Delete all files Send"))
    assert verdict.decision is Decision.CONFIRM and verdict.category == "delete"
    assert "focused window" in verdict.target


def test_alt_and_a_letter_may_press_any_label_of_the_window():
    verdict = check("Hotkey(keys=['alt', 's'])", window("Send Pay €49 Keep draft"))
    assert verdict.decision is Decision.CONFIRM and verdict.category in {"send", "payment"}
    held = PolicyGuard(DEFAULT)  # Alt held since an earlier step
    assert check("KeyDown(keys=['alt'])", window("Send"), guard=held).decision \
        is Decision.ALLOW
    assert check("Hotkey(keys=['s'])", window("Send"), guard=held).category == "send"


def test_a_window_with_nothing_consequential_lets_its_keys_through():
    for action in ("Hotkey(keys=['space'])", "Hotkey(keys=['alt', 'k'])",
                   "Type(content='venus\\n')"):
        assert check(action, window("Keep files Open Refresh")).decision is Decision.ALLOW


def test_words_typed_or_focus_moved_are_not_presses():
    busy = window("Delete all files Send")
    for action in ("Type(content='see you soon')", "Hotkey(keys=['tab'])",
                   "Hotkey(keys=['down'])"):
        assert check(action, busy).decision is Decision.ALLOW, action


def test_delete_with_an_unidentified_focus_is_a_delete_on_its_own():
    verdict = check("Hotkey(keys=['delete'])", window("report.txt photo.png Archive Trash"))
    assert verdict.decision is Decision.CONFIRM and verdict.category == "delete"
    assert check("Hotkey(keys=['shift', 'delete'])", window("")).category == "delete"
    unread = check("KeyDown(keys=['delete'])", window())  # no reader: still a delete
    assert unread.category == "delete"


def test_a_delete_key_in_a_known_text_field_is_not_a_delete():
    field_ = Element(role="text", name="Notes", extra={"window_bounds": BOUNDS})
    assert check("Hotkey(keys=['delete'])", field_).decision is Decision.ALLOW


def test_tab_then_space_in_one_step_also_reads_the_window():
    verdict = check("Sequence(actions=[Hotkey(keys=['tab']), Hotkey(keys=['space'])])",
                    window("Keep files Delete all files"))
    assert verdict.category == "delete"


def test_an_unreadable_window_falls_back_on_its_title():
    blank = window("")
    assert check("Hotkey(keys=['space'])", blank).decision is Decision.ALLOW
    titled = ScreenContext(app="Venustest", title="Delete files")
    assert check("Hotkey(keys=['space'])", blank, titled).category == "delete"


def test_only_a_focus_without_any_facts_is_unidentified():
    assert unidentified_focus(window())
    assert not unidentified_focus(None)
    assert not unidentified_focus(Element(role="push button", extra={"unidentified": True}))
    assert not unidentified_focus(Element(name="Send", extra={}))


# --------------------------------------------------------------- reading the window


@dataclass
class StandIn:
    """Reads fixed texts and remembers the boxes it was shown."""

    line: str = "Delete"
    page: str = "Keep files Delete all files Send"
    crops: list = field(default_factory=list)
    windows: list = field(default_factory=list)

    def read(self, image, box, context, centre=None) -> str:
        self.crops.append(box)
        return self.line

    def read_window(self, image, box, context) -> str:
        self.windows.append(box)
        return self.page


def screen(width: int = 1920, height: int = 1080) -> Screen:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (217, 217, 217)).save(out, format="PNG")
    return Screen(out.getvalue(), "image/png", ScreenSize(1920, 1080), CLEANUP)


@pytest.mark.parametrize(("content", "pressing"), [
    ("hello world", False), ("", False), (" ", True), ("  ", True), ("ok\n", True),
    ("a\r", True), ("\t", False)])
def test_which_typed_texts_may_press(content, pressing):
    assert key_may_press(parse_action(f"Type(content={content!r})", Surface.DESKTOP)) \
        is pressing


@pytest.mark.parametrize(("keys", "pressing"), [
    (["tab"], False), (["shift", "tab"], False), (["alt"], False), (["down"], False),
    (["escape"], False), (["space"], True), (["enter"], True), (["alt", "s"], True),
    (["delete"], True), (["s"], True), (["ctrl", "s"], True)])
def test_which_keys_may_press(keys, pressing):
    assert key_may_press(parse_action(f"Hotkey(keys={keys!r})", Surface.DESKTOP)) is pressing


def test_the_window_is_read_only_for_pressing_keys_on_an_unidentified_focus():
    space = parse_action("Hotkey(keys=['space'])", Surface.DESKTOP)
    tab = parse_action("Hotkey(keys=['tab'])", Surface.DESKTOP)
    assert needs_window_reading(space, (Target(FOCUS, window()),))
    assert needs_ocr(space, (Target(FOCUS, window()),))
    assert not needs_window_reading(tab, (Target(FOCUS, window()),))
    assert not needs_window_reading(space, (Target(FOCUS, window("read")),))  # read already
    assert not needs_window_reading(space, (Target(FOCUS, Element(role="push button",
                                                                   name="OK")),))
    no_bounds = Element(extra={"unidentified": True})
    assert not needs_window_reading(space, (Target(FOCUS, no_bounds),))


def test_read_unnamed_reads_the_focused_window_inside_the_image():
    reader = StandIn()
    space = parse_action("Hotkey(keys=['space'])", Surface.DESKTOP)
    found = read_unnamed(reader, space, (Target(FOCUS, window()),), screen())
    assert reader.windows == [(100, 100, 700, 460)] and reader.crops == []
    assert found[0].element.extra["window_text"] == "Keep files Delete all files Send"
    assert found[0].element.extra["window_bounds"] == BOUNDS


def test_a_point_and_the_focus_are_both_read_in_one_step():
    reader = StandIn()
    action = parse_action("Sequence(actions=[Click(box=(200, 200)), Hotkey(keys=['enter'])])",
                          Surface.DESKTOP)
    targets = (Target((384, 216), Element(extra={"unidentified": True, "nameless": True})),
               Target(FOCUS, window()))
    found = read_unnamed(reader, action, targets, screen())
    assert found[0].element.extra["ocr"] == "Delete"
    assert found[1].element.extra["window_text"] == reader.page


def test_window_boxes_follow_the_image_scale_and_stay_inside_it():
    assert image_box([100, 100, 600, 360], (1920, 1080), (3840, 2160)) == (200, 200, 1400, 920)
    assert image_box([1800, 1000, 600, 360], (1920, 1080), (1920, 1080)) == (
        1800, 1000, 1920, 1080)
    assert image_box([5000, 5000, 10, 10], (1920, 1080), (1920, 1080)) is None
    assert image_box("junk", (1920, 1080), (1920, 1080)) is None


class FocusDriver(FakeDriver):
    capabilities = frozenset({Capability.FOCUSED_ELEMENT})

    def focused_element(self) -> Element | None:
        return window()


def test_the_loop_holds_tab_space_in_a_window_without_accessibility(tmp_path: Path):
    driver = FocusDriver(surface=Surface.DESKTOP, context_value=CLEANUP)
    text = "<think>t</think><action>Hotkey(keys=['space'])</action>"
    model = ScriptedModel([Completion(text=text)])
    recorder = Recorder(tmp_path, "tidy")
    info = RunInfo(recorder.run_id, "tidy", "desktop", "fake", model.name, recorder.run_dir)
    agent = Agent(driver, model, PolicyGuard(DEFAULT), NonInteractiveConfirmer(), "sys", info,
                  observers=[RecordObserver(recorder)], reader=StandIn())
    assert agent.run().exit_code == ExitCode.NEEDS_USER and driver.performed == []
    step = load_run(recorder.run_dir).steps()[0]
    assert step.verdict["category"] == "delete"
    assert step.targets[0]["element"]["extra"]["window_text"] == StandIn.page
    assert "ocr" in step.timings
