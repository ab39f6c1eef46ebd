"""Shared pieces of the model benchmarks: which model, synthetic screens, a run's messages.

The models are the generated random-weight ones from tests/support/tiny_model.py
(`tiny`, `vocab` = tiny layers with the real 248k vocabulary, `grammatical` = `vocab`
biased towards one valid answer, `9b` = UI-Venus-2-9B's real shapes, ~6 GB, generated
on first use), cached outside the repository, or any GGUF pair given by path.
"""

from __future__ import annotations

import io
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import venusctl.model  # noqa: F401, I001 - loads llama.cpp's libraries before numpy (see there)

from PIL import Image, ImageDraw

from tests.support.tiny_model import (
    TINY,
    TINY_GRAMMATICAL,
    TINY_REAL_VOCAB,
    UI_VENUS_2_9B,
    ModelFiles,
    ensure_model,
)
from venusctl.core.actions import Surface
from venusctl.interface.messages import Turn, build, load_template, system_prompt
from venusctl.model.base import ImagePart, Message

SPECS = {"tiny": TINY, "vocab": TINY_REAL_VOCAB, "grammatical": TINY_GRAMMATICAL,
         "9b": UI_VENUS_2_9B}
TASK = "order a green one for Ada Lovelace and tell me the order number"
ANSWERS = [
    "<think>The page shows an order form. The name field is empty, so I click it "
    "first.</think>\n<action>Click(point=(234, 150))</action>",
    "<think>The field is focused. I type the name.</think>\n"
    "<action>Type(content='Ada Lovelace')</action>",
    "<think>Now the colour list.</think>\n<action>Click(point=(156, 275))</action>",
    "<think>Green is the second option.</think>\n<action>SelectOption(index=1)</action>",
    "<think>Submit the order.</think>\n<action>Click(point=(161, 414))</action>",
]


def model_files(name: str) -> ModelFiles:
    """A generated model by name, or `MODEL.gguf[,MMPROJ.gguf]` (projector: the
    `mmproj*.gguf` beside the model when not given)."""
    if name in SPECS:
        return ensure_model(SPECS[name])
    model, _, mmproj = name.partition(",")
    path = Path(model).expanduser()
    if not path.is_file():
        raise SystemExit(f"--model must be one of {', '.join(SPECS)} or a GGUF file")
    projector = Path(mmproj).expanduser() if mmproj else next(iter(sorted(
        path.parent.glob("mmproj*.gguf"))), None)
    if projector is None or not projector.is_file():
        raise SystemExit(f"no projector for {path}: pass --model MODEL.gguf,MMPROJ.gguf")
    return ModelFiles(path, projector, TINY)


def screen(step: int, size: tuple[int, int] = (1280, 800)) -> ImagePart:
    """A synthetic page per step (JPEG, as the web driver sends by default)."""
    image = Image.new("RGB", size, (245, 245, 245))
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, size[0], 60), fill=(40, 80 + 10 * step % 150, 160))
    for row in range(8):
        top = 100 + row * 80
        draw.rectangle((100, top, 100 + 300 + 40 * ((row + step) % 5), top + 40),
                       fill=(200, 200 - 15 * row, 120 + 10 * step % 120))
        draw.text((110, top + 10), f"Row {row} step {step}", fill=(0, 0, 0))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=80)
    return ImagePart(buffer.getvalue(), "image/jpeg")


def step_messages(step: int, surface: Surface = Surface.BROWSER,
                  size: tuple[int, int] = (1280, 800)) -> list[Message]:
    """The messages of step `step` (0-based) of a run with scripted earlier answers."""
    system = system_prompt(load_template(surface), TASK)
    history = [Turn(ANSWERS[i % len(ANSWERS)], screen(i, size),
                    "The last action failed: try again." if i == 2 else None)
               for i in range(step)]
    return build(system, history, screen(step, size), history_images=0)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def peak_rss_mib() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
