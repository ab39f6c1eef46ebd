"""The tiny random qwen35 model, loaded through the real llama.cpp path."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator

import pytest
from PIL import Image, ImageDraw

from tests.support.tiny_model import ModelFiles, tiny_model  # noqa: F401 - a fixture
from venusctl.core.actions import Surface
from venusctl.model.base import ImagePart
from venusctl.model.llama.backend import LlamaModel, LlamaSettings

SMALL_IMAGES = {"image_min_tokens": None, "image_max_tokens": 256}


@pytest.fixture
def open_llama(tiny_model: ModelFiles) -> Iterator[Callable[..., LlamaModel]]:  # noqa: F811
    """Open tiny models (small image budget unless given); all closed at the end."""
    opened: list[LlamaModel] = []

    def make(surface: Surface | None = Surface.BROWSER, **settings: object) -> LlamaModel:
        merged = {**SMALL_IMAGES, **settings}
        model = LlamaModel(LlamaSettings(tiny_model.model, tiny_model.mmproj, **merged),
                           surface)
        opened.append(model)
        return model

    yield make
    for model in opened:
        model.close()


def screenshot(step: int, size: tuple[int, int] = (640, 400), fmt: str = "PNG") -> ImagePart:
    """A distinct synthetic screen per step: a coloured bar and a box that moves."""
    image = Image.new("RGB", size, (240, 240, 240))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, size[0], 40), fill=(30 * step % 255, 90, 160))
    draw.rectangle((50 + 40 * step, 120, 200 + 40 * step, 180), fill=(20, 160, 60))
    buffer = io.BytesIO()
    image.save(buffer, fmt)
    return ImagePart(buffer.getvalue(), f"image/{fmt.lower()}")
