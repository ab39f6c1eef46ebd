"""`venusctl report`: a recorded run as an HTML page or an animated GIF."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from venusctl.cli.common import RunsDirOpt, runs_dir


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def report(
    run: Annotated[str, typer.Argument(help="Run id, id prefix, folder, or 'last'.")],
    out: Annotated[
        Optional[Path],  # noqa: UP045 - typer reads the annotation at runtime on 3.10
        typer.Option("--out", "-o", help="Where to write the HTML (default: "
                                         "report.html in the run folder)."),
    ] = None,
    gif: Annotated[
        Optional[Path],  # noqa: UP045
        typer.Option("--gif", help="Write an animated GIF summary here instead of HTML."),
    ] = None,
    open_it: Annotated[
        bool, typer.Option("--open", help="Open the result in the default browser/viewer.")
    ] = False,
    runs: RunsDirOpt = None,
) -> int:
    """Turn a recorded run into one self-contained HTML file (or a GIF).

    Example: venusctl report last --open
    """
    from venusctl.present.report import write_gif, write_report
    from venusctl.records.store import resolve_run

    stored = resolve_run(run, runs_dir(runs))
    if gif is not None:
        frames = write_gif(stored, gif)
        target = gif
        print(f"{target} ({frames} frames)")
    else:
        target = write_report(stored, out)
        print(target)
    if open_it:
        import webbrowser

        webbrowser.open(target.resolve().as_uri())
    return 0
