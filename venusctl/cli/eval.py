"""`venusctl eval grounding` and `venusctl eval suite`: measure a model and the agent."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from venusctl.cli.batch import (
    BATCH_MODEL,
    BrowserServerOpt,
    CdpOpt,
    ConcurrencyOpt,
    PhoneOpt,
    ServersOpt,
    YesOpt,
    finish_report,
    pool_options,
)
from venusctl.cli.common import OUTPUT, WEB_POOL, output_options, setup_logging
from venusctl.cli.model_options import MODEL, model_options
from venusctl.cli.options import Given, flags
from venusctl.cli.panels import Typer
from venusctl.safety.sanitize import json_text, markup

if TYPE_CHECKING:
    from rich.console import Console

    from venusctl.evals.grounding import GroundingReport
    from venusctl.evals.scoring import Tally

eval_app = Typer(help="Measure grounding accuracy and task success.",
                       no_args_is_help=True)
ModelFileOpt = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(help="Play back answers from this file instead of running a model."),
]


EVAL_OUTPUT = OUTPUT.just("runs_dir", "json", "verbose").told(
    json="The summary as JSON on stdout.")


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")


@eval_app.command("grounding")
@flags(model_flags=MODEL.but("grammar", "interface", "prompts"), output_flags=EVAL_OUTPUT)
def grounding_command(
    dataset: Annotated[Path, typer.Argument(help="ScreenSpot-v2/-Pro style folder (annotation "
                                                 "files plus images), or one annotation file.")],
    out: Annotated[Optional[Path], typer.Option(  # noqa: UP045
        help="Results JSON (default: results.json in the eval's record folder).")] = None,
    split: Annotated[Optional[list[str]], typer.Option(  # noqa: UP045
        help="Only annotation files whose name contains this (repeatable).")] = None,
    limit: Annotated[Optional[int], typer.Option(  # noqa: UP045
        min=1, help="Score only the first N samples.")] = None,
    bbox: Annotated[str, typer.Option(help="Box format: auto, xyxy (corners) or xywh.")] = "auto",
    language: Annotated[str, typer.Option(help="Instruction language: en, or e.g. cn for "
                                               "ScreenSpot-Pro's instruction_cn.")] = "en",
    images: Annotated[Optional[Path], typer.Option(  # noqa: UP045
        help="Folder of the screenshots, when not beside the annotations.")] = None,
    surface: Annotated[Optional[str], typer.Option(  # noqa: UP045
        help="Grid mapping for every sample: mobile, browser or desktop (default: by the "
             "sample's platform).")] = None,
    max_tokens: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(min=8, help="Most tokens in an answer (default: 1024, as the authors).")
    ] = None,
    model_file: ModelFileOpt = None,
    model_flags: Given = None,  # type: ignore[assignment]  # the model flags
    yes: Annotated[bool, typer.Option("--yes", "-y",
                                      help="Agree to download the default model.")] = False,
    output_flags: Given = None,  # type: ignore[assignment]  # --runs-dir, --json, -v
) -> int:
    """Point-in-box accuracy on a grounding dataset: overall, text, icon, per platform
    and application (negatives count only when the model answers [-1,-1]).

    Example: venusctl eval grounding ~/data/ScreenSpot-v2 --server http://127.0.0.1:8080
    """
    from venusctl.evals.dataset import LoadOptions
    from venusctl.evals.grounding import GroundingEvalOptions, run_grounding_eval

    output = output_options(output_flags)
    setup_logging(output.verbose)
    options = GroundingEvalOptions(
        dataset=dataset, runs_dir=output.runs,
        model=model_options(model_flags, answers=model_file, assume_yes=yes),
        load=LoadOptions(bbox=bbox.lower(), language=language.lower(),
                         splits=tuple(split or ()), images=images, limit=limit),
        out=out, surface=surface.lower() if surface else None, max_tokens=max_tokens,
    )
    with _ProgressBar() as bar:
        report = run_grounding_eval(options, bar.update)
    _print_grounding(report, bar.console, output.json)
    return 0


class _ProgressBar:
    """A bar with the accuracy so far on a terminal; a line per tenth when piped."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        self.console: Console = Console(stderr=True, highlight=False)
        self.progress = Progress("{task.description}", BarColumn(), MofNCompleteColumn(),
                                 TimeRemainingColumn(), console=self.console, transient=True)
        self.task = self.progress.add_task("grounding", total=None)
        self._shown = 0

    def __enter__(self) -> _ProgressBar:
        if self.console.is_terminal:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.console.is_terminal:
            self.progress.stop()

    def update(self, done: int, total: int, tally: Tally) -> None:
        text = f"grounding · accuracy {tally.accuracy:.1%}"
        if self.console.is_terminal:
            self.progress.update(self.task, completed=done, total=total, description=text)
        elif done * 10 // total > self._shown or done == total:
            self._shown = done * 10 // total
            self.console.print(f"{done}/{total} · accuracy {tally.accuracy:.1%}")


def _print_grounding(report: GroundingReport, console: Console, json_out: bool) -> None:
    from rich.table import Table

    summary = report.summary
    if json_out:
        print(json_text({"eval_id": report.eval_id, "model": report.model,
                         "samples": report.samples, "results": str(report.out),
                         "record": str(report.record_dir), **summary}))
    table = Table(title=f"grounding · {markup(report.model)}", title_justify="left")
    for name in ("slice", "accuracy", "correct", "total"):
        table.add_column(name, justify="left" if name == "slice" else "right")
    rows = [("overall", summary["overall"]), ("text", summary["text"]),
            ("icon", summary["icon"])]
    if "negative" in summary:
        rows.append(("negative", summary["negative"]))
    rows += [(f"platform {k}", v["overall"]) for k, v in summary["by_platform"].items()]
    rows += [(f"app {k}", v["overall"]) for k, v in summary["by_application"].items()]
    for name, counts in rows:
        table.add_row(markup(name), f"{counts['accuracy']:.1%}", str(counts["correct"]),
                      str(counts["total"]))
    console.print(table)
    console.print(f"{report.samples} samples in {report.seconds:.1f}s · results: {report.out}")


@eval_app.command("suite")
@flags(pool_flags=WEB_POOL, model_flags=BATCH_MODEL, output_flags=EVAL_OUTPUT)
def suite_command(
    suite: Annotated[Optional[Path], typer.Argument(  # noqa: UP045
        help="A suite file: tasks with checks, and the environments they run in (default: "
             "the built-in suite on the simulated web app, desktop and phone).")] = None,
    concurrency: ConcurrencyOpt = 1,
    retry: Annotated[int, typer.Option(min=0, help="Run a failed task up to N more times.")] = 0,
    phone: PhoneOpt = None,
    browser_server: BrowserServerOpt = None,
    cdp: CdpOpt = None,
    pool_flags: Given = None,  # type: ignore[assignment]  # --headless, --viewport, ...
    model_flags: Given = None,  # type: ignore[assignment]  # the model flags
    server: ServersOpt = None,
    yes: YesOpt = False,
    cache: Annotated[str, typer.Option(
        "--cache", metavar="on|off|read|write",
        help="Trajectory cache (off by default here: a suite measures the model; "
             "'on' replays tasks done before, as batch does).")] = "off",
    output_flags: Given = None,  # type: ignore[assignment]  # --runs-dir, --json, -v
) -> int:
    """Run a suite of offline tasks and report success rate, steps and time per task.

    Without a file, the built-in suite: web, desktop and phone tasks on simulated
    environments. Tasks use their scripted answers files unless --model or --server
    names a model. Exit codes as for batch: 0 every task passed; 1 at least one did
    not; 2 bad suite file or option; 5 an environment could not start; 130 interrupted.

    Example: venusctl eval suite --model ~/models/venus.gguf
    """
    from venusctl.batch.display import BatchDisplay
    from venusctl.batch.runner import BatchOptions
    from venusctl.cache import resolve_cache
    from venusctl.evals.suite import builtin_suite, run_suite

    output = output_options(output_flags)
    setup_logging(output.verbose)
    options = BatchOptions(
        file=suite or builtin_suite(), runs_dir=output.runs, concurrency=concurrency,
        retry=retry, continue_on_error=True,
        pool=pool_options(phone, browser_server, cdp, pool_flags),
        model=model_options(model_flags, assume_yes=yes),
        servers=tuple(server or ()), assume_yes=yes, cache=resolve_cache(cache),
    )
    display = BatchDisplay()
    report = run_suite(options, display)
    finish_report(report.batch, display, json_out=False)
    summary = report.summary
    display.console.print(
        f"success rate {summary['success_rate']:.0%} ({summary['passed']}/{summary['tasks']}),"
        f" {summary['mean_steps']} steps and {summary['mean_seconds']:.1f}s per task · "
        f"record: {report.record_dir}")
    if output.json:
        print(json_text({"record": str(report.record_dir), **summary}))
    if report.batch.interrupted:
        sys.stderr.write("venusctl: the suite was interrupted\n")
    return report.exit_code
