"""Point at one element: the model's grounding mode, outside the agent loop.

One user message (the image, then the instruction from `prompts/grounding.md`, or the
authors' own text once pulled), with the grounding profile's decoding (`venusctl.interface.profile`:
thinking off, temperature 0, top_p 1, no penalties, 1,024 tokens at most; a repetition
penalty would punish the digits of a point like [500,500]). The answer is `[x,y]` on
the 0..999 grid, or `[-1,-1]` when
the element is not on the screen. Backends that accept a grammar are held to that
shape; for the others the answer is read leniently (a point in brackets or
parentheses, a `Click(point=…)`, or a box, whose centre is taken).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, replace

from venusctl.core.actions import Surface, split_answer
from venusctl.core.errors import ParseError, UsageError
from venusctl.core.grid import ScreenSize, to_pixel
from venusctl.interface.choice import prompt_source
from venusctl.interface.messages import grounding, load_template
from venusctl.interface.profile import authors_profile
from venusctl.model.base import Completion, ImagePart, Model, SamplingOptions, sampling_for

Point = tuple[int, int]

POINT_GRAMMAR = r"""root ::= "[-1,-1]" | "[" coord "," " "? coord "]"
coord ::= [0-9] | [1-9] [0-9] | [1-9] [0-9] [0-9]
"""
_NUMBER = r"\s*(-?\d+(?:\.\d+)?)\s*"
_PAIR_OR_BOX = re.compile(
    rf"[\[(]{_NUMBER},{_NUMBER}(?:,{_NUMBER},{_NUMBER})?[\])]"
)
NOT_FOUND: Point = (-1, -1)


@dataclass(frozen=True)
class GroundResult:
    """Where the element is: on the grid and in screen units, or nowhere."""

    instruction: str
    raw: str
    size: ScreenSize
    grid: Point | None
    pixels: Point | None
    model: str
    seconds: float
    completion: Completion

    @property
    def found(self) -> bool:
        return self.grid is not None

    def as_dict(self) -> dict[str, object]:
        return {
            "instruction": self.instruction,
            "found": self.found,
            "grid": list(self.grid) if self.grid else None,
            "pixels": list(self.pixels) if self.pixels else None,
            "size": [self.size.width, self.size.height],
            "raw": self.raw,
            "image_tokens": self.completion.image_tokens,
            "model": self.model,
            "seconds": round(self.seconds, 3),
        }


GROUNDING = authors_profile("grounding")


def sampling(model: Model, max_tokens: int | None = None) -> SamplingOptions:
    """Grounding's decoding settings, as the model authors use them."""
    options = sampling_for(GROUNDING, max_tokens=max_tokens)
    return replace(options, grammar=POINT_GRAMMAR if model.supports_grammar else None)


def ground(
    model: Model,
    image: ImagePart,
    size: ScreenSize,
    instruction: str,
    surface: Surface = Surface.MOBILE,
    max_tokens: int | None = None,
) -> GroundResult:
    """Ask the model where `instruction` is on the image of a `size` screen."""
    if not instruction.strip():
        raise UsageError("say which element to find, e.g. \"the Wi-Fi toggle\"")
    messages = grounding(load_template("grounding", source=prompt_source(None)), instruction,
                         image)
    started = time.perf_counter()
    completion = model.complete(messages, sampling(model, max_tokens))
    seconds = time.perf_counter() - started
    grid = parse_point(completion.text)
    pixels = to_pixel(grid, size, surface) if grid is not None else None
    return GroundResult(instruction.strip(), completion.text, size, grid, pixels,
                        model.name, seconds, completion)


def parse_point(text: str) -> Point | None:
    """The grid point in an answer; None for `[-1,-1]`; `ParseError` when there is none."""
    _thought, body = split_answer(text)
    match = _PAIR_OR_BOX.search(body) or _PAIR_OR_BOX.search(text)
    if match is None:
        raise ParseError(f"the model's answer holds no point: {_clip(text)}")
    numbers = [round(float(n)) for n in match.groups() if n is not None]
    if len(numbers) == 4:
        numbers = [(numbers[0] + numbers[2]) // 2, (numbers[1] + numbers[3]) // 2]
    point = (numbers[0], numbers[1])
    if point == NOT_FOUND:
        return None
    if not all(0 <= n <= 999 for n in point):
        raise ParseError(f"the point {list(point)} is off the 0..999 grid: {_clip(text)}")
    return point


def _clip(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "…")
