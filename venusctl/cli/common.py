"""Options shared by several commands, declared once."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated, Optional

import typer

from venusctl.drivers.factory import DriverOptions, parse_viewport
from venusctl.records.store import default_runs_dir

DriverOpt = Annotated[
    Optional[str],  # noqa: UP045 - typer reads the annotation at runtime on 3.10
    typer.Option("--driver", "-d", help="Surface to operate: web, desktop or android."),
]
UrlOpt = Annotated[Optional[str], typer.Option(help="web: page to open first.")]  # noqa: UP045
HeadlessOpt = Annotated[
    bool, typer.Option("--headless/--headed", help="web: hide or show the browser window.")
]
ViewportOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(help="web: viewport size in CSS pixels, WxH (default: 1024x768, the "
                      "authors' browser viewport)."),
]
BrowserPathOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(help="web: Chromium/Chrome executable (default: Playwright's, else PATH)."),
]
ProfileOpt = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(help="web: persistent browser profile folder, so logins survive runs."),
]
ImageFormatOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(help="web, android, desktop: screenshot format, png (default: lossless, "
                      "as the model was trained) or jpeg."),
]
UploadDirOpt = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option(help="web: the folder the model may upload files from (Upload(file=…)); "
                      "without it every upload is refused."),
]
DeviceOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--device", help="android: serial of the phone (else ANDROID_SERIAL)."),
]
MonitorOpt = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option("--monitor", help="desktop: monitor number (default: the primary)."),
]
SessionOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--session", help="Work in a kept session (`venusctl session start`): its "
                                   "browser page, phone or monitor, as it was left."),
]
RunsDirOpt = Annotated[
    Optional[Path],  # noqa: UP045
    typer.Option("--runs-dir", help="Folder of run records (default: the user data dir; "
                      "env VENUSCTL_RUNS_DIR)."),
]
VerboseOpt = Annotated[bool, typer.Option("--verbose", "-v", help="Show debug logs.")]
CacheOpt = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option("--cache", metavar="on|off|read|write",
                 help="Trajectory cache: replay a task done before while its screens match "
                      "(on: replay and store, read: only replay, write: only store, off). "
                      "Default: on (env VENUSCTL_CACHE, config [cache] mode)."),
]


def driver_options(
    driver: str | None,
    url: str | None,
    headless: bool,
    viewport: str | None,
    browser_path: str | None,
    profile: Path | None,
    image_format: str | None,
    device: str | None,
    monitor: int | None,
    session: str | None = None,
    upload_dir: Path | None = None,
) -> DriverOptions:
    """The driver flags as options; unset viewport and format come from the profile."""
    options = DriverOptions(
        driver=driver,
        url=url,
        headless=headless,
        browser_path=browser_path,
        profile=profile,
        image_format=image_format.lower() if image_format else None,
        device=device,
        monitor=monitor,
        session=session,
        upload_dir=upload_dir,
    )
    if viewport:
        options.viewport = parse_viewport(viewport)
    return options


def runs_dir(value: Path | None) -> Path:
    return value if value is not None else default_runs_dir()


def setup_logging(verbose: bool) -> None:
    """Warnings by default; `-v` shows debug output from venusctl and its libraries."""
    from rich.console import Console
    from rich.logging import RichHandler

    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    from venusctl.safety.sanitize import SanitizingFormatter

    handler = RichHandler(
        console=Console(stderr=True), show_path=False, show_time=verbose, markup=False)
    handler.setFormatter(SanitizingFormatter("%(name)s: %(message)s"))
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(name)s: %(message)s", handlers=[handler])
