"""The model flags of the commands that run a model (`do`, `ground`, `batch`, `eval`, `mcp`).

They come from `venusctl.model.settings.ModelSettings`, where each setting is declared
once. Each flag defaults to None, meaning "not given", so the environment and the
config file can still supply the value (flags > environment > config file > default).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from venusctl.cli import panels
from venusctl.cli.options import Given, Group
from venusctl.model.settings import ModelSettings

if TYPE_CHECKING:
    from venusctl.run.build import ModelOptions

MODEL = Group(ModelSettings, panel=panels.MODEL)
"""Every model flag; a command that has no use for some leaves them out with `but`."""


def model_options(given: Given, *, answers: Path | None = None,
                  assume_yes: bool = False) -> ModelOptions:
    """The model a command names: its flags, scripted answers, consent to download."""
    from venusctl.run.build import ModelOptions

    return ModelOptions(answers=answers, assume_yes=assume_yes, **given)
