"""Screenshots within an image-token budget, for backends that do not resize themselves.

The vision tower sees 32x32-pixel cells (patch 16, merge 2), one token each. The
local backend lets llama.cpp fit an image into its budget; a server decides on its
own, so when the user sets a budget (`--image-max-tokens`, `--interface lean`) the
screenshot is scaled down here first, the way llama.cpp does it: both sides whole
multiples of 32, the aspect kept, scaled down until the cells fit. Images within the
budget pass through untouched (the authors send screenshots unresized).
"""

from __future__ import annotations

import io
import math

from venusctl.model.base import ImagePart

CELL = 32


def fitted_size(width: int, height: int, max_tokens: int) -> tuple[int, int]:
    """The size an image of `width x height` gets under `max_tokens` image tokens."""
    if width * height <= max_tokens * CELL * CELL:
        return width, height
    scale = math.sqrt(max_tokens * CELL * CELL / (width * height))
    new_w = max(CELL, math.floor(width * scale / CELL) * CELL)
    new_h = max(CELL, math.floor(height * scale / CELL) * CELL)
    while (new_w // CELL) * (new_h // CELL) > max_tokens and max(new_w, new_h) > CELL:
        if new_w >= new_h:
            new_w -= CELL
        else:
            new_h -= CELL
    return new_w, new_h


def fit(image: ImagePart, max_tokens: int | None) -> ImagePart:
    """`image` scaled down to `max_tokens` cells when it is larger, kept in its format."""
    if max_tokens is None:
        return image
    from PIL import Image

    with Image.open(io.BytesIO(image.data)) as opened:
        size = fitted_size(opened.width, opened.height, max_tokens)
        if size == (opened.width, opened.height):
            return image
        resized = opened.convert("RGB").resize(size, Image.Resampling.BICUBIC)
    out = io.BytesIO()
    if image.mime == "image/jpeg":
        resized.save(out, format="JPEG", quality=90)
    else:
        resized.save(out, format="PNG")
        return ImagePart(out.getvalue(), "image/png")
    return ImagePart(out.getvalue(), image.mime)
