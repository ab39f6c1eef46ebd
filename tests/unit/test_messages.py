"""The message layout matches the model interface for every surface."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from venusctl.core.actions import ACTION_SETS, POINT_KEY, Surface
from venusctl.core.errors import UsageError
from venusctl.interface.messages import (
    Turn,
    build,
    grounding,
    load_template,
    system_prompt,
)
from venusctl.model.base import ImagePart, TextPart

IMG = [ImagePart(bytes([i]) * 10, "image/png") for i in range(6)]


@pytest.mark.parametrize("surface", list(Surface))
def test_templates_list_every_action_with_the_interface_signature(surface):
    template = load_template(surface)
    key = POINT_KEY[surface]
    for name in ACTION_SETS[surface]:
        assert f"- {name}(" in template, name
    assert f"Click({key}=(x1" in template
    assert template.rstrip().endswith("{task}")
    assert "<think>" in template and "<action>" in template


def test_system_prompt_puts_the_task_at_the_end_and_fills_the_date_in_iso_form():
    text = system_prompt(load_template(Surface.BROWSER), "  buy milk ", dt.date(2026, 11, 30))
    assert text.rstrip().endswith("buy milk")
    assert "- Today is 2026-11-30." in text
    assert "{" not in text


def test_first_step_is_system_then_current_screenshot():
    messages = build("SYS", [], IMG[0])
    assert [m.role for m in messages] == ["system", "user"]
    assert messages[1].parts == (TextPart("Current Screenshot:\n"), IMG[0])


def test_history_without_images_keeps_earlier_messages_identical():
    history = [Turn("<think>a</think>\n<action>Wait()</action>", IMG[0]),
               Turn("<think>b</think>\n<action>PressBack()</action>", IMG[1], "fb1")]
    step2 = build("SYS", history[:1], IMG[1], feedback="fb1", history_images=0)
    step3 = build("SYS", history, IMG[2], history_images=0)
    assert [m.role for m in step3] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert step3[1].parts == (TextPart(""),)
    assert step3[3].parts == (TextPart("fb1"),)
    assert step3[2].text == history[0].answer
    # the prompt only grows at its end: step 2's messages before its last are unchanged
    assert step3[: len(step2) - 1] == step2[:-1]
    assert step2[-1].parts == (TextPart("fb1\n"), TextPart("Current Screenshot:\n"), IMG[1])


def test_last_n_history_steps_carry_their_screenshot():
    history = [Turn(f"<action>Wait()</action>{i}", IMG[i]) for i in range(4)]
    messages = build("SYS", history, IMG[4], history_images=2)
    users = [m for m in messages if m.role == "user"]
    assert [len(u.images) for u in users] == [0, 0, 1, 1, 1]
    assert users[2].parts == (TextPart("History Screenshot:"), IMG[2])
    assert users[3].parts == (TextPart("History Screenshot:"), IMG[3])
    assert users[4].parts == (TextPart("Current Screenshot:\n"), IMG[4])


def test_grounding_is_one_user_message_image_first():
    messages = grounding(load_template("grounding"), "the Wi-Fi toggle", IMG[0])
    assert len(messages) == 1 and messages[0].role == "user"
    assert messages[0].parts[0] == IMG[0]
    assert "the Wi-Fi toggle" in messages[0].text and "[-1,-1]" in messages[0].text


def test_openai_form_of_a_message():
    message = build("SYS", [], IMG[0])[1]
    wire = message.to_openai()
    assert wire["content"][0] == {"type": "text", "text": "Current Screenshot:\n"}
    assert wire["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_user_prompt_file(tmp_path: Path):
    mine = tmp_path / "mine.md"
    mine.write_text("Be brief. Braces {like this} stay.\nTask: {task}")
    text = system_prompt(load_template(Surface.MOBILE, mine), "call mum")
    assert text == "Be brief. Braces {like this} stay.\nTask: call mum"
    (tmp_path / "bad.md").write_text("no placeholder")
    with pytest.raises(UsageError, match=r"no \{task\} placeholder"):
        load_template(Surface.MOBILE, tmp_path / "bad.md")
    with pytest.raises(UsageError, match="cannot read prompt file"):
        load_template(Surface.MOBILE, tmp_path / "missing.md")
