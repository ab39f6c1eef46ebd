"""Fixtures shared by the unit tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.tiny_model import TINY, ensure_model
from venusctl.model.llama.native import TextModel


@pytest.fixture(scope="module")
def vocab() -> Iterator[TextModel]:
    """The tiny model's vocabulary alone (no weights): tokenising, grammar samplers."""
    model = TextModel(ensure_model(TINY).model, vocab_only=True)
    yield model
    model.close()
