"""Grounding: reading the model's point, and asking it the way it was trained."""

from __future__ import annotations

import pytest

from venusctl.core.actions import Surface
from venusctl.core.errors import ParseError
from venusctl.core.grid import ScreenSize
from venusctl.model.base import Completion, ImagePart, Message, SamplingOptions
from venusctl.model.grounding import POINT_GRAMMAR, ground, parse_point
from venusctl.model.scripted import ScriptedModel

IMAGE = ImagePart(b"\x89PNG fake", "image/png")


@pytest.mark.parametrize(("answer", "point"), [
    ("[500,250]", (500, 250)),
    ("[ 12 , 999 ]", (12, 999)),
    ("<think>\n\n</think>\n\n[120,340]", (120, 340)),
    ("The toggle is at (700, 80).", (700, 80)),
    ("<action>Click(point=(41, 42))</action>", (41, 42)),
    ("[100,200,300,400]", (200, 300)),  # a box: its centre
    ("[250.4, 100.6]", (250, 101)),
    ("[-1,-1]", None),
    ("<think>it is not there</think>[-1, -1]", None),
])
def test_points_are_read_leniently(answer, point):
    assert parse_point(answer) == point


@pytest.mark.parametrize("answer", ["I cannot see it", "", "[1200, 40]", "[-5, 10]"])
def test_answers_without_a_grid_point_are_parse_errors(answer):
    with pytest.raises(ParseError):
        parse_point(answer)


class GrammarModel(ScriptedModel):
    """A scripted model that claims grammar support, to see what it is sent."""

    supports_grammar = True

    def complete(self, messages, options, on_text=None):
        self.options = options
        return super().complete(messages, options, on_text)


def test_ground_asks_with_one_user_message_and_maps_to_pixels():
    model = ScriptedModel([Completion("[500,250]")])
    result = ground(model, IMAGE, ScreenSize(1080, 2400), "the Wi-Fi toggle")
    assert result.found and result.grid == (500, 250)
    assert result.pixels == (540, 600)  # mobile: x * W / 1000
    [messages] = model.calls
    assert [m.role for m in messages] == ["user"]
    message: Message = messages[0]
    assert message.images == [IMAGE] and message.parts[0] == IMAGE
    assert "the Wi-Fi toggle" in message.text and "[-1,-1]" in message.text
    assert result.as_dict()["pixels"] == [540, 600]


def test_desktop_maps_with_999():
    model = ScriptedModel([Completion("[999,999]")])
    result = ground(model, IMAGE, ScreenSize(1920, 1080), "x", Surface.DESKTOP)
    assert result.pixels == (1919, 1079)


def test_not_found_has_no_pixels():
    result = ground(ScriptedModel([Completion("[-1,-1]")]), IMAGE, ScreenSize(100, 100), "x")
    assert not result.found and result.pixels is None and result.as_dict()["grid"] is None


def test_sampling_is_greedy_without_thinking_and_grammar_only_where_supported():
    plain = ScriptedModel([Completion("[1,2]")])
    ground(plain, IMAGE, ScreenSize(10, 10), "x")
    constrained = GrammarModel([Completion("[1,2]")])
    ground(constrained, IMAGE, ScreenSize(10, 10), "x")
    options: SamplingOptions = constrained.options
    assert options.thinking is False and options.temperature == 0.0
    assert options.repeat_penalty == 1.0 and options.max_tokens == 1024
    assert options.grammar == POINT_GRAMMAR
