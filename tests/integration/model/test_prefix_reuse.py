"""Prefix reuse across steps: what a warm run evaluates, and that it changes nothing."""

from __future__ import annotations

import itertools

from tests.integration.model.conftest import screenshot
from venusctl.core.actions import Surface
from venusctl.interface.messages import Turn, build, load_template, system_prompt
from venusctl.model.base import SamplingOptions
from venusctl.model.llama.backend import LlamaModel

GREEDY = SamplingOptions(max_tokens=80)
FEEDBACK = {2: "The last action failed: nothing to click there.", 3: "The current URL is x"}


def run_steps(model: LlamaModel, steps: int, history_images: int = 0,
              retry_at: int | None = None) -> list:
    """A run as the agent drives it: growing history, feedback, one parse retry."""
    system = system_prompt(load_template(Surface.BROWSER), "order a green one for Ada")
    history: list[Turn] = []
    results = []
    for step in range(steps):
        image = screenshot(step)
        feedback = FEEDBACK.get(step)
        messages = build(system, history, image, feedback, history_images)
        completion = model.complete(messages, GREEDY)
        results.append(completion)
        if step == retry_at:
            note = "Your previous answer could not be used: no <action> block."
            lead = "\n".join(t for t in (feedback, note) if t)
            completion = model.complete(build(system, history, image, lead, history_images),
                                        GREEDY)
            results.append(completion)
        history.append(Turn(completion.text, image, feedback))
    return results


def test_greedy_output_with_reuse_equals_a_cold_run(open_llama):
    warm = run_steps(open_llama(), 5, retry_at=2)
    cold = run_steps(open_llama(prefix_cache=False), 5, retry_at=2)
    assert [c.text for c in warm] == [c.text for c in cold]
    assert [c.prompt_tokens for c in warm] == [c.prompt_tokens for c in cold]
    assert all(c.reused_tokens == 0 for c in cold)
    assert warm[0].reused_tokens == 0
    assert all(c.reused_tokens > 0 for c in warm[1:])


def test_reused_steps_evaluate_only_what_is_new(open_llama):
    """Steps 2..n resume right before the previous step's user message."""
    results = run_steps(open_llama(), 5)
    for before, after in itertools.pairwise(results):
        evaluated = after.prompt_tokens - after.reused_tokens
        # new: the previous user message (now without its image), the previous
        # answer, the new user message with its image, and the generation prompt
        assert after.reused_tokens >= before.prompt_tokens - before.image_tokens - 48
        assert evaluated < after.image_tokens + 200


def test_history_images_still_give_the_same_answers(open_llama):
    """With history screenshots every step resumes before the oldest one."""
    warm = run_steps(open_llama(), 5, history_images=2)
    cold = run_steps(open_llama(prefix_cache=False), 5, history_images=2)
    assert [c.text for c in warm] == [c.text for c in cold]
    assert all(c.reused_tokens > 0 for c in warm[1:])


def test_a_repeated_question_on_the_same_screenshot_resumes_after_the_image(open_llama):
    from venusctl.interface.messages import grounding

    model = open_llama(surface=None)
    template = load_template("grounding")
    options = SamplingOptions(max_tokens=8, thinking=False)
    image = screenshot(3)
    first = model.complete(grounding(template, "the green box", image), options)
    second = model.complete(grounding(template, "the blue bar", image), options)
    assert first.reused_tokens == 0
    assert second.reused_tokens >= second.image_tokens


def test_the_cache_holds_few_snapshots(open_llama):
    model = open_llama(snapshots=2)
    run_steps(model, 4)
    assert len(model.cache) <= 2
    assert model.cache.bytes > 0
