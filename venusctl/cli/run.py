"""`do`, `act`, `screenshot` and `replay`: the commands that operate a surface."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from venusctl.cli.common import (
    BrowserPathOpt,
    CacheOpt,
    DeviceOpt,
    DriverOpt,
    HeadlessOpt,
    ImageFormatOpt,
    MonitorOpt,
    ProfileOpt,
    RunsDirOpt,
    SessionOpt,
    UploadDirOpt,
    UrlOpt,
    VerboseOpt,
    ViewportOpt,
    driver_options,
    runs_dir,
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
    typer.Option(help="Which actions need your confirmation: 'policy' (those the safety "
                      "policy gates), 'all' (every state-changing one), or 'never' (needs "
                      "--yes; denials still stop the run)."),
]
YesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Agree in advance (see --confirm; "
                                                         "`do` also downloads the default "
                                                         "model without asking).")]
DryRunOpt = Annotated[bool, typer.Option(help="Observe and decide, but perform nothing.")]


def register(app: typer.Typer) -> None:
    app.command("do")(do)
    app.command("act")(act)
    app.command("screenshot")(screenshot)
    app.command("replay")(replay)


@flags(model_flags=MODEL, safety_flags=SAFETY)
def do(
    task: Annotated[str, typer.Argument(help="What the agent should do, in plain words.")],
    driver: DriverOpt = None,
    model_file: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option(help="Play back answers from this file (JSON lines or blank-line "
                          "separated) instead of running a model."),
    ] = None,
    model_flags: Given = None,  # type: ignore[assignment]  # the model flags
    url: UrlOpt = None,
    headless: HeadlessOpt = True,
    viewport: ViewportOpt = None,
    browser_path: BrowserPathOpt = None,
    profile: ProfileOpt = None,
    image_format: ImageFormatOpt = None,
    upload_dir: UploadDirOpt = None,
    device: DeviceOpt = None,
    monitor: MonitorOpt = None,
    session: SessionOpt = None,
    max_steps: Annotated[int, typer.Option(min=1, help="Step budget.")] = 30,
    timeout: Annotated[
        Optional[float], typer.Option(min=0, help="Stop after this many seconds.")  # noqa: UP045
    ] = None,
    parse_retries: Annotated[
        int, typer.Option(min=0, help="Retries when an answer cannot be parsed.")] = 2,
    history_images: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(min=0, help="Screenshots of earlier steps to resend (default: the "
                                 "interface's, 2 or 0 with --interface lean; 0 keeps the "
                                 "prompt growing only at its end).")] = None,
    settle_cap: Annotated[
        float, typer.Option(min=0, help="Most seconds to wait for the screen to settle.")] = 3.0,
    temperature: Annotated[
        Optional[float],  # noqa: UP045
        typer.Option(min=0, help="Sampling temperature (default: the interface's, 0).")] = None,
    max_tokens: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(min=16, help="Most tokens per answer (default: the interface's: phone "
                                  "16384, desktop and browser 4096).")] = None,
    prompt: Annotated[
        Optional[Path], typer.Option(help="Your own prompt template ({task} inside).")  # noqa: UP045
    ] = None,
    confirm: ConfirmOpt = "policy",
    yes: YesOpt = False,
    safety_flags: Given = None,  # type: ignore[assignment]  # the safety flags
    dry_run: DryRunOpt = False,
    cache: CacheOpt = None,
    runs: RunsDirOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="JSON-lines events on stdout.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the answer.")] = False,
    tui: Annotated[bool, typer.Option("--tui", help="Watch and steer the run in a live "
                                                    "terminal view (p/s/t/q keys).")] = False,
    verbose: VerboseOpt = False,
) -> int:
    """Carry out a task on a phone, desktop or browser.

    Example: venusctl do "add milk to the list" --driver web --url http://127.0.0.1:8000
    """
    from venusctl.cache import resolve_cache
    from venusctl.loop.agent import AgentSettings
    from venusctl.run.build import RunRequest

    setup_logging(verbose)
    request = RunRequest(
        task=task,
        driver=driver_options(driver, url, headless, viewport, browser_path, profile,
                              image_format, device, monitor, session=session,
                              upload_dir=upload_dir),
        model=model_options(model_flags, answers=model_file, assume_yes=yes),
        settings=AgentSettings(
            max_steps=max_steps, timeout_s=timeout, parse_retries=parse_retries,
            history_images=history_images, settle_cap_s=settle_cap,
            temperature=temperature, max_tokens=max_tokens,
        ),
        confirm=confirm, assume_yes=yes, prompt_file=prompt, runs_dir=runs_dir(runs),
        output="json" if json_out else ("quiet" if quiet else "normal"), dry_run=dry_run,
        safety=safety_options(safety_flags),
        cache=resolve_cache(cache),
    )
    if tui:
        from venusctl.tui.app import check_terminal, run_with_tui

        check_terminal(json_out)
        outcome = run_with_tui(request)
    else:
        outcome = _run(request)
    if outcome.message and not json_out and outcome.exit_code in (0, 3):
        print(shown(outcome.message, newlines=True))
    elif outcome.exit_code != 0 and not json_out:
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


def act(
    action: Annotated[str, typer.Argument(help="One action in the model's syntax, e.g. "
                                               "\"Click(point=(500, 500))\".")],
    driver: DriverOpt = None,
    url: UrlOpt = None,
    headless: HeadlessOpt = True,
    viewport: ViewportOpt = None,
    browser_path: BrowserPathOpt = None,
    profile: ProfileOpt = None,
    image_format: ImageFormatOpt = None,
    upload_dir: UploadDirOpt = None,
    device: DeviceOpt = None,
    monitor: MonitorOpt = None,
    session: SessionOpt = None,
    confirm: ConfirmOpt = "policy",
    yes: YesOpt = False,
    screenshot_after: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option("--screenshot", help="Save what the screen shows afterwards."),
    ] = None,
    verbose: VerboseOpt = False,
) -> int:
    """Perform one action on a surface, through the guard (for debugging).

    Without --session a web action runs in a new browser that closes afterwards, and
    venusctl says so; keep one with `venusctl session start`.

    Example: venusctl act "Click(point=(500, 500))" --driver web --url https://example.org
    """
    from venusctl.drivers.factory import choose_driver

    setup_logging(verbose)
    options = driver_options(driver, url, headless, viewport, browser_path, profile,
                             image_format, device, monitor, session=session,
                             upload_dir=upload_dir)
    if choose_driver(options) == "web" and not options.session:
        sys.stderr.write("venusctl: no session: a new browser was started and will close "
                         "(keep one with `venusctl session start`)\n")
    with _agent(options, confirm, yes) as agent:
        result = agent.act(action, screenshot=screenshot_after)
    print(shown(result.report(), newlines=True))
    return 0


def screenshot(
    out: Annotated[Path, typer.Argument(help="Where to save the image (.png or .jpg).")],
    driver: DriverOpt = None,
    url: UrlOpt = None,
    headless: HeadlessOpt = True,
    viewport: ViewportOpt = None,
    browser_path: BrowserPathOpt = None,
    profile: ProfileOpt = None,
    image_format: ImageFormatOpt = None,
    device: DeviceOpt = None,
    monitor: MonitorOpt = None,
    session: SessionOpt = None,
    verbose: VerboseOpt = False,
) -> int:
    """Save exactly what the model would see.

    Example: venusctl screenshot page.png --driver web --url https://example.org
    """
    setup_logging(verbose)
    options = driver_options(driver, url, headless, viewport, browser_path, profile,
                             image_format, device, monitor, session)
    with _agent(options) as agent:
        print(agent.save_screenshot(out))
    return 0


@flags(safety_flags=SAFETY)
def replay(
    run: Annotated[str, typer.Argument(help="Run id, id prefix, folder, or 'last'.")],
    driver: DriverOpt = None,
    url: UrlOpt = None,
    headless: HeadlessOpt = True,
    viewport: ViewportOpt = None,
    browser_path: BrowserPathOpt = None,
    profile: ProfileOpt = None,
    image_format: ImageFormatOpt = None,
    device: DeviceOpt = None,
    monitor: MonitorOpt = None,
    confirm: ConfirmOpt = "policy",
    yes: YesOpt = False,
    safety_flags: Given = None,  # type: ignore[assignment]  # the safety flags
    dry_run: DryRunOpt = False,
    runs: RunsDirOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="JSON-lines events on stdout.")] = False,
    verbose: VerboseOpt = False,
) -> int:
    """Re-execute a recorded run's answers through the guard (or only show them).

    Example: venusctl replay last --dry-run
    """
    from venusctl.run.build import run_task
    from venusctl.run.replay import replay_request

    setup_logging(verbose)
    folder = runs_dir(runs)
    options = driver_options(driver, url, headless, viewport, browser_path, profile,
                             image_format, device, monitor)
    request, model, confirmer = replay_request(
        run, folder, options, confirm, yes, dry_run, "json" if json_out else "normal",
        safety_options(safety_flags))
    outcome = run_task(request, model=model, confirmer=confirmer)
    if not json_out:
        print(f"{outcome.status}: {shown(outcome.message, newlines=True)}" if outcome.message
              else outcome.status)
    return int(outcome.exit_code)
