"""`venusctl batch FILE`: run a file of tasks, several at a time, with checks."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from venusctl.cli import panels
from venusctl.cli.common import (
    OUTPUT,
    WEB_POOL,
    CacheOpt,
    driver_options,
    output_options,
    setup_logging,
)
from venusctl.cli.model_options import MODEL, model_options
from venusctl.cli.options import Given, flags
from venusctl.safety.sanitize import json_text

if TYPE_CHECKING:
    from venusctl.batch.display import BatchDisplay
    from venusctl.batch.pool import PoolOptions
    from venusctl.batch.results import TaskResult
    from venusctl.batch.runner import BatchReport

POOL = panels.SURFACE
ConcurrencyOpt = Annotated[int, typer.Option("--concurrency", "-j", min=1, rich_help_panel=POOL,
                                             help="Tasks at once (browser contexts; phones "
                                                  "and the desktop limit their own).")]
PhoneOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--phone", metavar="SERIAL[@HOST:PORT]", rich_help_panel=POOL,
                 help="A phone for the pool (repeatable); @HOST:PORT alone takes every phone "
                      "of that adb server (default: every phone of the local one)."),
]
BrowserServerOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--browser-server", metavar="WS_URL", rich_help_panel=POOL,
                 help="A Playwright browser server (ws://host:port/…) to open contexts in "
                      "(repeatable)."),
]
CdpOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--cdp", metavar="URL", rich_help_panel=POOL,
                 help="A Chromium DevTools endpoint (http://host:9222) to open contexts in "
                      "(repeatable)."),
]
ServersOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option("--server", rich_help_panel="Model",
                 help="OpenAI-compatible server (repeatable: requests go to the least busy)."),
]
YesOpt = Annotated[bool, typer.Option("--yes", "-y", help="Allow tasks with 'confirm: never' "
                                                         "and agree to download the model.")]
BATCH_OUTPUT = OUTPUT.just("runs_dir", "json", "verbose").told(
    json="One JSON result per task on stdout, then a summary object.")

BATCH_MODEL = MODEL.but("server")
"""A batch's model flags: `--server` is repeatable here (ServersOpt)."""


def register(app: typer.Typer) -> None:
    app.command("batch")(batch_command)


@flags(pool_flags=WEB_POOL, model_flags=BATCH_MODEL, output_flags=BATCH_OUTPUT)
def batch_command(
    file: Annotated[Path, typer.Argument(help="Tasks: YAML, or JSON lines (.jsonl).")],
    concurrency: ConcurrencyOpt = 1,
    retry: Annotated[int, typer.Option(min=0, help="Run a failed task up to N more times.")] = 0,
    continue_on_error: Annotated[bool, typer.Option(
        help="Keep going after a task fails (default: start no new task).")] = False,
    resume: Annotated[Optional[Path], typer.Option(  # noqa: UP045
        help="Skip the tasks that passed in this results file.")] = None,
    out: Annotated[Optional[Path], typer.Option(  # noqa: UP045
        help="Results file, one JSON line per task (default: under the runs folder).")] = None,
    phone: PhoneOpt = None,
    browser_server: BrowserServerOpt = None,
    cdp: CdpOpt = None,
    pool_flags: Given = None,  # type: ignore[assignment]  # --headless, --viewport, ...
    model_flags: Given = None,  # type: ignore[assignment]  # the model flags
    server: ServersOpt = None,
    yes: YesOpt = False,
    cache: CacheOpt = None,
    output_flags: Given = None,  # type: ignore[assignment]  # --runs-dir, --json, -v
) -> int:
    """Run every task of FILE unattended; exit 0 only when every task passed its check.

    Confirmations cannot be asked: a task that needs one stops with exit code 3
    unless its policy or allow_categories approve. Results: one JSON line per task
    (status, exit code, answer, steps, checks, run record).

    Exit codes: 0 every task passed; 1 at least one did not; 2 bad task file or
    option (nothing ran); 5 an environment could not start; 130 interrupted.

    Example: venusctl batch tasks.yaml --concurrency 2 --out results.jsonl
    """
    from venusctl.batch.display import BatchDisplay
    from venusctl.batch.runner import BatchOptions, run_batch
    from venusctl.cache import resolve_cache

    output = output_options(output_flags)
    setup_logging(output.verbose)
    options = BatchOptions(
        file=file, runs_dir=output.runs, concurrency=concurrency, retry=retry,
        continue_on_error=continue_on_error, resume=resume, out=out,
        pool=pool_options(phone, browser_server, cdp, pool_flags),
        model=model_options(model_flags, assume_yes=yes),
        servers=tuple(server or ()), assume_yes=yes, cache=resolve_cache(cache),
    )
    display = BatchDisplay()
    report = run_batch(options, display, on_result=_print_json if output.json else None)
    finish_report(report, display, output.json)
    return report.exit_code


def pool_options(phone: list[str] | None, browser_server: list[str] | None,
                 cdp: list[str] | None, browser: Given) -> PoolOptions:
    """The pool's surfaces; `browser`: the driver flags every slot starts from."""
    from venusctl.batch.pool import PoolOptions

    return PoolOptions(phones=tuple(phone or ()), browser_servers=tuple(browser_server or ()),
                       cdp_endpoints=tuple(cdp or ()), base=driver_options(browser))


def finish_report(report: BatchReport, display: BatchDisplay, json_out: bool) -> None:
    """The summary table on stderr, and the summary object on stdout with --json."""
    from venusctl.batch.display import summary_table

    display.console.print(summary_table(report.results, report.summary, report.name))
    display.console.print(f"results: {report.out}")
    if report.interrupted:
        sys.stderr.write("venusctl: interrupted; --resume the results file to go on\n")
    if json_out:
        print(json.dumps({"event": "summary", "name": report.name, "results": str(report.out),
                          "exit_code": report.exit_code, "interrupted": report.interrupted,
                          **report.summary.as_dict()}, ensure_ascii=False), flush=True)


def _print_json(result: TaskResult) -> None:
    print(json_text({"event": "task", **result.as_dict()}),
          flush=True)
