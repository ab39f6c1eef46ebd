"""The local backend end to end on the tiny model: template, image, grammar, answer."""

from __future__ import annotations

import pytest

from tests.integration.model.conftest import screenshot
from venusctl.core.actions import Surface, parse
from venusctl.interface.messages import Turn, build, grounding, load_template, system_prompt
from venusctl.model.base import Model, SamplingOptions
from venusctl.model.llama.backend import backend_info


def navigation(surface: Surface, step: int = 0, history: list[Turn] | None = None):
    system = system_prompt(load_template(surface), "order a green one for Ada")
    return build(system, history or [], screenshot(step))


@pytest.mark.parametrize("surface", list(Surface))
def test_image_in_grammar_constrained_action_out(open_llama, surface):
    model = open_llama(surface)
    assert isinstance(model, Model) and model.supports_grammar
    completion = model.complete(navigation(surface), SamplingOptions(max_tokens=300))
    parsed = parse(completion.text, surface, completion.reasoning)
    assert completion.text.startswith("<think>") and "</think>" in completion.text
    assert completion.text.rstrip().endswith("</action>")
    assert completion.reasoning == parsed.thought
    assert completion.image_tokens > 0
    assert completion.prompt_tokens > completion.image_tokens
    assert 0 < completion.completion_tokens <= 300
    assert completion.prefill_s > 0 and completion.decode_s > 0
    assert model.last_grammar is not None and model.last_grammar.checked > 0


def test_streamed_text_is_the_answer(open_llama):
    model = open_llama()
    pieces: list[str] = []
    completion = model.complete(navigation(Surface.BROWSER), SamplingOptions(max_tokens=200),
                                on_text=pieces.append)
    streamed = "".join(pieces)
    parsed = parse(completion.text, Surface.BROWSER, completion.reasoning)
    assert parsed.action_text in streamed and parsed.thought in streamed
    assert streamed.rstrip().endswith("</action>") and "</think>" in streamed


def test_a_tight_token_budget_still_ends_in_an_action(open_llama):
    """The thought is closed for the model when only the action's reserve is left."""
    model = open_llama(Surface.MOBILE)
    completion = model.complete(navigation(Surface.MOBILE), SamplingOptions(max_tokens=160))
    assert completion.completion_tokens <= 160
    parse(completion.text, Surface.MOBILE, completion.reasoning)


def test_greedy_is_repeatable_and_seeded_sampling_follows_the_seed(open_llama):
    first, second = open_llama(), open_llama()
    messages = navigation(Surface.BROWSER)
    greedy = SamplingOptions(max_tokens=150)
    assert first.complete(messages, greedy).text == second.complete(messages, greedy).text
    hot = SamplingOptions(max_tokens=150, temperature=1.0, seed=42)
    assert first.complete(messages, hot).text == second.complete(messages, hot).text
    other = SamplingOptions(max_tokens=150, temperature=1.0, seed=43)
    assert first.complete(messages, other).text != first.complete(messages, hot).text


def test_without_grammar_the_model_samples_freely(open_llama):
    model = open_llama(grammar=False)
    completion = model.complete(navigation(Surface.BROWSER), SamplingOptions(max_tokens=60))
    assert model.last_grammar is None
    assert completion.completion_tokens > 0


def test_thinking_off_uses_the_templates_empty_think_block(open_llama, tiny_model):
    """Grounding: thinking off, no action grammar (no surface), a caller's own grammar."""
    model = open_llama(surface=None)
    messages = grounding(load_template("grounding"), "the Submit button", screenshot(1))
    point = 'root ::= "[" [0-9]{1,3} "," [0-9]{1,3} "]"\n'
    completion = model.complete(messages, SamplingOptions(max_tokens=20, thinking=False,
                                                          grammar=point))
    assert completion.text.startswith("[") and completion.text.endswith("]")
    assert completion.reasoning is None


def test_the_context_grows_with_the_prompt(open_llama):
    model = open_llama()
    model.complete(navigation(Surface.BROWSER), SamplingOptions(max_tokens=32))
    small = model.context.n_ctx
    history = [Turn("<think>x</think>\n<action>Wait()</action>", feedback="word " * 400)
               for _ in range(4)]
    completion = model.complete(navigation(Surface.BROWSER, 1, history),
                                SamplingOptions(max_tokens=32))
    assert completion.prompt_tokens + 32 > small
    assert model.context.n_ctx > small


def test_the_image_budget_sets_image_tokens(open_llama):
    messages = navigation(Surface.BROWSER)
    small = open_llama(image_max_tokens=64).complete(messages, SamplingOptions(max_tokens=16))
    large = open_llama(image_max_tokens=None, image_min_tokens=1024).complete(
        messages, SamplingOptions(max_tokens=16))
    assert small.image_tokens <= 64
    assert large.image_tokens >= 1000


def test_a_signal_stops_a_long_prefill_midway(open_llama):
    """Ctrl-C (here SIGUSR1 raising KeyboardInterrupt) need not wait for llama.cpp."""
    import os
    import signal
    import threading
    import time

    from venusctl.model.base import Message, TextPart

    model = open_llama(interruptible=True)
    long = [Message("system", (TextPart("word " * 14000),)), Message("user", (TextPart("hi"),))]
    options = SamplingOptions(max_tokens=1, thinking=False)
    armed = threading.Event()

    def handler(signum, frame):
        if armed.is_set():
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGUSR1, handler)
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGUSR1))
    try:
        armed.set()
        timer.start()
        started = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            model.complete(long, options)
        stopped = time.perf_counter() - started
        armed.clear()
    finally:
        armed.clear()
        timer.cancel()
        signal.signal(signal.SIGUSR1, previous)
    full = model.complete(long, options)  # the model is still usable
    assert full.prefill_s > stopped  # it really stopped before the end


def test_backend_info_names_the_build():
    info = backend_info()
    assert "CPU" in info.devices
    assert "CPU" in info.summary


def test_a_grammatical_model_passes_the_lazy_check_without_a_full_one():
    """The biased real-vocabulary model writes a valid answer by itself: the grammar,
    asked only about each sampled token, never has to scan the 248k vocabulary."""
    from tests.support.tiny_model import GRAMMATICAL_ANSWER, TINY_GRAMMATICAL, ensure_model
    from venusctl.model.llama.backend import LlamaModel, LlamaSettings

    files = ensure_model(TINY_GRAMMATICAL)
    texts = {}
    for grammar in (True, False):
        model = LlamaModel(LlamaSettings(files.model, files.mmproj, grammar=grammar,
                                         image_min_tokens=None, image_max_tokens=64),
                           Surface.BROWSER)
        try:
            completion = model.complete(navigation(Surface.BROWSER), SamplingOptions(
                max_tokens=100))
            texts[grammar] = completion.text
            if grammar:
                assert model.last_grammar.rejected == 0
                assert model.last_grammar.checked == completion.completion_tokens
        finally:
            model.close()
    thought, action = GRAMMATICAL_ANSWER.split("</think>")
    assert texts[True] == texts[False] == f"<think>{thought}</think>\n{action.strip()}"
    parse(texts[True], Surface.BROWSER)
