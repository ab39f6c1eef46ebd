"""Properties of the action language: round trips, and no crash on any input."""

from __future__ import annotations

import contextlib
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.action_strategies import (
    adversarial_text,
    random_action,
    surface_and_action,
    valid_samples,
)
from venusctl.core.actions import ACTION_SETS, Surface, parse, parse_action, render
from venusctl.core.errors import ParseError


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(surface_and_action())
def test_render_then_parse_gives_the_same_action(pair):
    surface, action = pair
    assert parse_action(render(action, surface), surface) == action


@settings(max_examples=120, deadline=None)
@given(surface_and_action(), st.text(max_size=200))
def test_full_answers_round_trip_with_any_thought(pair, thought):
    surface, action = pair
    thought = thought.replace("</think>", "").replace("<think>", "").strip()
    thought = "".join(c for c in thought if c not in "<>")
    answer = f"<think>{thought}</think>\n<action>{render(action, surface)}</action>"
    parsed = parse(answer, surface)
    assert parsed.action == action
    assert parsed.thought == thought


def test_every_action_of_every_surface_is_generated():
    """The generators cover the whole grammar table (guards against a silent gap)."""
    rng = random.Random(7)
    for surface, specs in ACTION_SETS.items():
        seen = {type(random_action(rng, surface)).__name__ for _ in range(1000)}
        assert seen == {spec.cls.__name__ for spec in specs.values()}, surface
        for _ in range(300):
            action = random_action(rng, surface)
            assert parse_action(render(action, surface), surface) == action


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=400), st.sampled_from(list(Surface)))
def test_parse_never_raises_anything_but_parse_error_on_random_text(text, surface):
    with contextlib.suppress(ParseError):
        parse(text, surface)


def test_parse_never_raises_anything_but_parse_error_on_adversarial_text():
    rng = random.Random(20261130)
    valid = {s: valid_samples(rng, s, 60) for s in Surface}
    for _ in range(3000):
        surface = rng.choice(list(Surface))
        text = adversarial_text(rng, surface, valid[surface])
        with contextlib.suppress(ParseError):
            parse(text, surface)
