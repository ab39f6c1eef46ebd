"""`do`, `act`, `screenshot` and `replay`: the commands that operate a surface."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from venusctl.cli import panels
from venusctl.cli.common import (
    BUDGET,
    DRIVER,
    OUTPUT,
    CacheOpt,
    driver_options,
    output_options,
    setup_logging,
)
from venusctl.cli.model_options import MODEL, model_options
from venusctl.cli.options import Given, flags
from venusctl.cli.safety_options import SAFETY, safety_options
from venusctl.safety.sanitize import shown, shown_line

if TYPE_CHECKING:
    from venusctl.api import Agent
    from venusctl.drivers.factory import DriverOptions
    from venusctl.records.store import Outcome
    from venusctl.run.build import RunRequest

ConfirmOpt = Annotated[
    str,
    typer.Option(rich_help_panel=panels.SAFETY,
                 help="Which actions need your confirmation: 'policy' (those the safety "
                      "policy gates), 'all' (every state-changing one), or 'never' (needs "
                      "--yes; denials still stop the run)."),
]
YesOpt = Annotated[bool, typer.Option(
    "--yes", "-y", rich_help_panel=panels.SAFETY,
    help="Agree in advance (see --confirm; `do` also downloads the default model without "
         "asking).")]
DryRunOpt = Annotated[bool, typer.Option(help="Observe and decide, but perform nothing.",
                                          rich_help_panel=panels.SAFETY)]


def register(app: typer.Typer) -> None:
    app.command("do")(do)
    app.command("act")(act)
    app.command("screenshot")(screenshot)
    app.command("replay")(replay)


@flags(driver_flags=DRIVER, model_flags=MODEL, budget_flags=BUDGET, safety_flags=SAFETY,
       output_flags=OUTPUT)
def do(
    task: Annotated[str, typer.Argument(help="What the agent should do, in plain words.")],
    driver_flags: Given = None,  # type: ignore[assignment]  # the driver flags
    model_file: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(rich_help_panel=panels.MODEL,
                     help="Play back answers from this file (JSON lines or blank-line "
                          "separated) instead of running a model."),
    ] = None,
    model_flags: Given = None,  # type: ignore[assignment]  # the model flags
    budget_flags: Given = None,  # type: ignore[assignment]  # --max-steps, --timeout, ...
    prompt: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(help="Your own prompt template ({task} inside).",
                     rich_help_panel=panels.MODEL),
    ] = None,
    confirm: ConfirmOpt = "policy",
    yes: YesOpt = False,
    safety_flags: Given = None,  # type: ignore[assignment]  # the safety flags
    dry_run: DryRunOpt = False,
    cache: CacheOpt = None,
    output_flags: Given = None,  # type: ignore[assignment]  # --json, --quiet, --tui, ...
) -> int:
    """Carry out a task on a phone, desktop or browser.

    Example: venusctl do "add milk to the list" --driver web --url http://127.0.0.1:8000
    """
    from venusctl.cache import resolve_cache
    from venusctl.loop.agent import AgentSettings
    from venusctl.run.build import RunRequest

    output = output_options(output_flags)
    setup_logging(output.verbose)
    request = RunRequest(
        task=task,
        driver=driver_options(driver_flags),
        model=model_options(model_flags, answers=model_file, assume_yes=yes),
        settings=AgentSettings(**budget_flags),
        confirm=confirm, assume_yes=yes, prompt_file=prompt, runs_dir=output.runs,
        output=output.mode, dry_run=dry_run,
        safety=safety_options(safety_flags),
        cache=resolve_cache(cache),
    )
    if output.tui:
        from venusctl.tui.app import check_terminal, run_with_tui

        check_terminal(output.json)
        outcome = run_with_tui(request)
    else:
        outcome = _run(request)
    if outcome.message and not output.json and outcome.exit_code in (0, 3):
        print(shown(outcome.message, newlines=True))
    elif outcome.exit_code != 0 and not output.json:
        sys.stderr.write(f"venusctl: {outcome.status}: {shown_line(outcome.message)}\n")
    return int(outcome.exit_code)


def _run(request: RunRequest) -> Outcome:
    """`do` through the Python API: the same run a program gets, asked at the terminal."""
    from venusctl.api import Agent
    from venusctl.safety.confirm import default_confirmer

    with Agent(request.driver, request.model, confirmer=default_confirmer()) as agent:
        return agent.run(request).wait()


def _agent(options: DriverOptions, confirm: str = "policy", yes: bool = False) -> Agent:
    """The API's agent for a one-shot command, asking at the terminal when there is one."""
    from venusctl.api import Agent
    from venusctl.safety.confirm import default_confirmer

    return Agent(options, confirmer=default_confirmer(), confirm=confirm, assume_yes=yes)


@flags(driver_flags=DRIVER, output_flags=OUTPUT.just("verbose"))
def act(
    action: Annotated[str, typer.Argument(help="One action in the model's syntax, e.g. "
                                               "\"Click(point=(500, 500))\".")],
    driver_flags: Given = None,  # type: ignore[assignment]  # the driver flags
    confirm: ConfirmOpt = "policy",
    yes: YesOpt = False,
    screenshot_after: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option("--screenshot", help="Save what the screen shows afterwards."),
    ] = None,
    output_flags: Given = None,  # type: ignore[assignment]  # -v
) -> int:
    """Perform one action on a surface, through the guard (for debugging).

    Without --session a web action runs in a new browser that closes afterwards, and
    venusctl says so; keep one with `venusctl session start`.

    Example: venusctl act "Click(point=(500, 500))" --driver web --url https://example.org
    """
    from venusctl.drivers.factory import choose_driver

    setup_logging(output_options(output_flags).verbose)
    options = driver_options(driver_flags)
    if choose_driver(options) == "web" and not options.session:
        sys.stderr.write("venusctl: no session: a new browser was started and will close "
                         "(keep one with `venusctl session start`)\n")
    with _agent(options, confirm, yes) as agent:
        result = agent.act(action, screenshot=screenshot_after)
    print(shown(result.report(), newlines=True))
    return 0


@flags(driver_flags=DRIVER.but("upload_dir"), output_flags=OUTPUT.just("verbose"))
def screenshot(
    out: Annotated[Path, typer.Argument(help="Where to save the image (.png or .jpg).")],
    driver_flags: Given = None,  # type: ignore[assignment]  # the driver flags
    output_flags: Given = None,  # type: ignore[assignment]  # -v
) -> int:
    """Save exactly what the model would see.

    Example: venusctl screenshot page.png --driver web --url https://example.org
    """
    setup_logging(output_options(output_flags).verbose)
    options = driver_options(driver_flags)
    with _agent(options) as agent:
        print(agent.save_screenshot(out))
    return 0


@flags(driver_flags=DRIVER.but("upload_dir", "session"), safety_flags=SAFETY,
       output_flags=OUTPUT.just("runs_dir", "json", "verbose"))
def replay(
    run: Annotated[str, typer.Argument(help="Run id, id prefix, folder, or 'last'.")],
    driver_flags: Given = None,  # type: ignore[assignment]  # the driver flags
    confirm: ConfirmOpt = "policy",
    yes: YesOpt = False,
    safety_flags: Given = None,  # type: ignore[assignment]  # the safety flags
    dry_run: DryRunOpt = False,
    output_flags: Given = None,  # type: ignore[assignment]  # --runs-dir, --json, -v
) -> int:
    """Re-execute a recorded run's answers through the guard (or only show them).

    Example: venusctl replay last --dry-run
    """
    from venusctl.run.build import run_task
    from venusctl.run.replay import replay_request

    output = output_options(output_flags)
    setup_logging(output.verbose)
    request, model, confirmer = replay_request(
        run, output.runs, driver_options(driver_flags), confirm, yes, dry_run, output.mode,
        safety_options(safety_flags))
    outcome = run_task(request, model=model, confirmer=confirmer)
    if not output.json:
        print(f"{outcome.status}: {shown(outcome.message, newlines=True)}" if outcome.message
              else outcome.status)
    return int(outcome.exit_code)
