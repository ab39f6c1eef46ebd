"""`venusctl ground`: where is this element? A point in pixels and on the grid."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from venusctl.cli.common import DRIVER, OUTPUT, driver_options, output_options, setup_logging
from venusctl.cli.model_options import MODEL, model_options
from venusctl.cli.options import Given, flags
from venusctl.core.errors import UsageError
from venusctl.safety.sanitize import json_text, shown_line

GROUND_MODEL = MODEL.but("grammar", "prompts")  # grounding asks once, in its own words


def register(app: typer.Typer) -> None:
    app.command("ground")(ground_command)


@flags(driver_flags=DRIVER.but("upload_dir"), model_flags=GROUND_MODEL,
       output_flags=OUTPUT.just("json", "verbose").told(json="The answer as JSON."))
def ground_command(
    instruction: Annotated[str, typer.Argument(help="The element, in plain words.")],
    image: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Argument(help="A screenshot file (or use --driver for a live screen)."),
    ] = None,
    driver_flags: Given = None,  # type: ignore[assignment]  # the driver flags
    surface: Annotated[str, typer.Option(
        help="For an IMAGE: the kind of screen it shows, mobile, desktop or browser "
             "(desktop maps the grid with /999, the others with /1000).")] = "mobile",
    annotate: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(help="Save a copy of the screenshot with the point drawn on it."),
    ] = None,
    max_tokens: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(min=8, help="Most tokens in an answer (default: 1024, as the authors).")
    ] = None,
    model_flags: Given = None,  # type: ignore[assignment]  # the model flags
    yes: Annotated[bool, typer.Option("--yes", "-y",
                                      help="Agree to download the default model.")] = False,
    output_flags: Given = None,  # type: ignore[assignment]  # --json, -v
) -> int:
    """Point at one element: its centre in pixels and on the 0..999 grid.

    Exit code 1 when the model says the element is not on the screen.

    Example: venusctl ground "the Wi-Fi toggle" settings.png --annotate found.png
    """
    from venusctl.api import Agent

    output = output_options(output_flags)
    setup_logging(output.verbose)
    options = driver_options(driver_flags)
    if image is not None and (options.driver or options.session):
        raise UsageError("give either an IMAGE or --driver/--session, not both")
    if image is None and not (options.driver or options.session):
        raise UsageError("give an IMAGE file, or --driver web|desktop|android (or --session) "
                         "for a live screen")
    models = model_options(model_flags, assume_yes=yes)
    with Agent(options, models) as agent:
        result = agent.ground(instruction, image=image, surface=surface, max_tokens=max_tokens,
                              annotate_to=annotate)
    if output.json:
        print(json_text(result.as_dict()))
    elif result.pixels is not None and result.grid is not None:
        print(f"{result.pixels[0]} {result.pixels[1]}\t(pixels on {result.size}; "
              f"grid [{result.grid[0]},{result.grid[1]}])")
    if not result.found:
        if not output.json:
            sys.stderr.write(f"venusctl: not found: the model says "
                             f"\"{shown_line(result.instruction)}\" is not on the screen\n")
        return 1
    return 0
