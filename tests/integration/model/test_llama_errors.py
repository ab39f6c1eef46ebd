"""Everything that can go wrong loading or running the local model is one clear line."""

from __future__ import annotations

import numpy as np
import pytest

from tests.integration.model.conftest import screenshot
from tests.support.tiny_model import TINY, write_projector
from venusctl.core.actions import Surface
from venusctl.core.errors import ExitCode, ModelError, UsageError
from venusctl.interface.messages import build, load_template, system_prompt
from venusctl.model.base import SamplingOptions
from venusctl.model.llama.backend import LlamaModel, LlamaSettings


def one_line(error: Exception) -> str:
    text = str(error)
    assert "\n" not in text and text
    return text


def messages():
    system = system_prompt(load_template(Surface.BROWSER), "order a green one")
    return build(system, [], screenshot(0))


def test_a_missing_model_file(tiny_model, tmp_path):
    with pytest.raises(ModelError) as caught:
        LlamaModel(LlamaSettings(tmp_path / "nope.gguf", tiny_model.mmproj))
    assert "model file not found" in one_line(caught.value)
    assert caught.value.exit_code is ExitCode.UNAVAILABLE


def test_a_missing_projector(tiny_model, tmp_path):
    with pytest.raises(ModelError) as caught:
        LlamaModel(LlamaSettings(tiny_model.model, tmp_path / "mmproj.gguf"))
    assert "projector (mmproj) file not found" in one_line(caught.value)


@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_a_corrupt_model_file(tiny_model, tmp_path, damage):
    data = tiny_model.model.read_bytes()
    broken = tmp_path / "broken.gguf"
    if damage == "truncated":
        broken.write_bytes(data[: len(data) // 2])
    else:
        broken.write_bytes(np.random.default_rng(1).bytes(4096))
    with pytest.raises(ModelError) as caught:
        LlamaModel(LlamaSettings(broken, tiny_model.mmproj))
    assert one_line(caught.value).startswith(f"cannot load model {broken}")


def test_a_projector_for_another_model(tiny_model, tmp_path):
    other = tmp_path / "mmproj-other.gguf"
    write_projector(other, TINY.vision, TINY.text.n_embd + 16, np.random.default_rng(3))
    with pytest.raises(ModelError) as caught:
        LlamaModel(LlamaSettings(tiny_model.model, other))
    assert "does not match the model" in one_line(caught.value)


def test_the_text_model_given_as_projector(tiny_model):
    with pytest.raises(ModelError) as caught:
        LlamaModel(LlamaSettings(tiny_model.model, tiny_model.model))
    assert "projector" in one_line(caught.value)


def test_a_context_too_small_for_the_image_budget(tiny_model):
    with pytest.raises(ModelError) as caught:
        LlamaModel(LlamaSettings(tiny_model.model, tiny_model.mmproj, n_ctx=1024,
                                 image_max_tokens=1280))
    assert "too small for the image budget" in one_line(caught.value)


def test_a_prompt_that_does_not_fit_the_fixed_context(open_llama):
    model = open_llama(n_ctx=1024, image_max_tokens=256)
    with pytest.raises(ModelError) as caught:
        model.complete(messages(), SamplingOptions(max_tokens=900))
    text = one_line(caught.value)
    assert "--n-ctx is 1024" in text and "needs" in text


def test_an_image_budget_upside_down(tiny_model):
    with pytest.raises(UsageError):
        LlamaModel(LlamaSettings(tiny_model.model, tiny_model.mmproj, image_min_tokens=900,
                                 image_max_tokens=300))


def test_an_unreadable_screenshot(open_llama):
    from venusctl.model.base import ImagePart

    system = system_prompt(load_template(Surface.BROWSER), "x")
    broken = build(system, [], ImagePart(b"\x89PNG not really", "image/png"))
    with pytest.raises(ModelError) as caught:
        open_llama().complete(broken, SamplingOptions(max_tokens=8))
    assert "cannot decode" in one_line(caught.value)
