"""Pure decisions of the local backend: where snapshots go, which tokens a grammar may use."""

from __future__ import annotations

from venusctl.model.llama.backend import _snapshot_points
from venusctl.model.llama.utf8 import whole_characters
from venusctl.model.llama.vision import Unit


def units(layout: str) -> list[Unit]:
    """S: a message start (text), t: more text, I: an image; the last S is the
    generation prompt."""
    made = []
    images = 0
    for index, kind in enumerate(layout):
        key = layout[: index + 1].encode()
        if kind == "I":
            made.append(Unit(key, image=images, n_tokens=100, n_pos=10))
            images += 1
        else:
            made.append(Unit(key, (1, 2), n_tokens=2, n_pos=2, message_start=kind == "S"))
    return made


def test_a_navigation_step_keeps_the_state_before_its_user_message():
    # system | user: label, image, end | generation prompt
    assert _snapshot_points(units("SStItS"), image_first=False) == {0}


def test_later_steps_resume_before_the_current_user_message():
    # system | user | assistant | user: label, image | generation prompt
    assert _snapshot_points(units("SSSStItS"), image_first=False) == {2}


def test_history_screenshots_add_the_point_before_the_oldest_one():
    # system | user+image | assistant | user+image (current) | generation prompt
    layout = "SStItSStItS"
    assert _snapshot_points(units(layout), image_first=False) == {0, 5}


def test_a_grounding_question_also_keeps_the_state_after_its_image():
    # user: image first, then the instruction | generation prompt
    assert _snapshot_points(units("StItS"), image_first=True) == {2}


def test_a_prompt_without_messages_keeps_nothing():
    assert _snapshot_points(units("tt"), image_first=False) == set()


def test_only_whole_utf8_characters_pass():
    assert whole_characters("é".encode())
    assert whole_characters(b" click")
    assert not whole_characters("é".encode()[:1])  # a lead byte alone
    assert not whole_characters(b"\xa9s")  # a continuation byte first
    assert not whole_characters(b"a\x00b")  # llama.cpp reads pieces as C strings
    assert not whole_characters(b"")
