"""Choosing and opening a driver from plain options (no typer here).

Each driver module is imported only when it is opened, so `venusctl --help` and the
unit tests never load Playwright, adbutils or pyautogui.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from venusctl.core.actions import Surface
from venusctl.core.errors import UsageError
from venusctl.core.grid import ScreenSize
from venusctl.core.options import declare
from venusctl.drivers.base import Driver
from venusctl.interface.profile import authors_profile

BROWSER = authors_profile("browser")

if TYPE_CHECKING:
    from venusctl.drivers.android.adb import AdbAddress
    from venusctl.drivers.web.driver import WebOptions

DRIVERS = {"web": Surface.BROWSER, "desktop": Surface.DESKTOP, "android": Surface.MOBILE}


def parse_viewport(text: str) -> ScreenSize:
    """`1280x800` as a size, with a one-line error for anything else."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--viewport must look like 1280x800, not '{text}'") from None
    if not (200 <= width <= 7680 and 200 <= height <= 4320):
        raise UsageError(f"--viewport {text} is out of range (200x200 to 7680x4320)")
    return ScreenSize(width, height)


@dataclass
class DriverOptions:
    """Every driver setting, each declared once (flag, help, task-file key); each driver
    reads its own. The settings without a flag come from a batch's pool or a kept session."""

    driver: str | None = field(default=None, metadata=declare(
        flag="--driver", short="-d", task="driver",
        help="Surface to operate: web, desktop or android."))
    url: str | None = field(default=None, metadata=declare(
        flag="--url", task="url", help="web: page to open first."))
    headless: bool = field(default=True, metadata=declare(
        flag="--headless/--headed", help="web: hide or show the browser window."))
    viewport: ScreenSize = field(
        default_factory=lambda: ScreenSize(*BROWSER.viewport or ()), metadata=declare(
            flag="--viewport", task="viewport", read=parse_viewport,
            help="web: viewport size in CSS pixels, WxH (default: 1024x768, the authors' "
                 "browser viewport)."))
    browser_path: str | None = field(default=None, metadata=declare(
        flag="--browser-path",
        help="web: Chromium/Chrome executable (default: Playwright's, else PATH)."))
    profile: Path | None = field(default=None, metadata=declare(
        flag="--profile",
        help="web: persistent browser profile folder, so logins survive runs."))
    image_format: str | None = field(default=None, metadata=declare(  # None: the profile's
        flag="--image-format", read=str.lower,
        help="web, android, desktop: screenshot format, png (default: lossless, as the model "
             "was trained) or jpeg."))
    upload_dir: Path | None = field(default=None, metadata=declare(
        flag="--upload-dir",
        help="web: the folder the model may upload files from (Upload(file=…)); without it "
             "every upload is refused."))
    device: str | None = field(default=None, metadata=declare(
        flag="--device", task="device", help="android: serial of the phone (else ANDROID_SERIAL)."))
    monitor: int | None = field(default=None, metadata=declare(
        flag="--monitor", help="desktop: monitor number (default: the primary)."))
    session: str | None = field(default=None, metadata=declare(
        flag="--session",
        help="Work in a kept session (`venusctl session start`): its browser page, phone or "
             "monitor, as it was left."))
    browser_server: str | None = field(default=None, metadata=declare(
        help="web: a Playwright browser server (ws://…) to connect to (a batch's "
             "--browser-server)."))
    cdp_url: str | None = field(default=None, metadata=declare(
        help="web: a Chromium DevTools endpoint (http://host:9222) instead (a batch's --cdp)."))
    adb_server: str | None = field(default=None, metadata=declare(
        help="android: HOST:PORT of the adb server (default: adb's own; a batch's --phone)."))
    keep_page: bool = field(default=False, metadata=declare(
        help="web: work in the remote browser's open page (kept sessions)."))

    def format_for(self, surface: Surface) -> str:
        """The screenshot format: the flag, else the surface's profile (png, lossless)."""
        chosen = (self.image_format or authors_profile(surface.value).image_format).lower()
        if chosen not in ("jpeg", "png"):
            raise UsageError("--image-format must be jpeg or png")
        return chosen


def surface_of(driver: str) -> Surface:
    try:
        return DRIVERS[driver]
    except KeyError:
        raise UsageError(
            f"unknown driver '{driver}'; choose one of: {', '.join(DRIVERS)}"
        ) from None


def choose_driver(options: DriverOptions) -> str:
    """The driver to use: the one asked for, else the phone when exactly one is attached.

    It never falls back to the desktop: taking over the mouse is asked for, not guessed.
    The choice is written back into `options`, so asking twice probes adb once. A kept
    session (`options.session`) fills in its driver and settings the same way.
    """
    if options.session:
        from venusctl.drivers.sessions.manage import apply_session

        apply_session(options)
    if options.driver:
        surface_of(options.driver)
        return options.driver
    from venusctl.drivers.android.devices import attached_now

    phones = attached_now()
    if options.device or (len(phones) == 1 and phones[0].state == "device"):
        why = "" if options.device else (" (the only one attached); pass --driver to choose "
                                          "another surface")
        options.driver = "android"
        serial = options.device = options.device or phones[0].serial
        sys.stderr.write(f"venusctl: using the android phone {serial}{why}\n")
        return "android"
    listing = ", ".join(f"{p.serial} ({p.state})" for p in phones)
    found = f"; attached phones: {listing}" if phones else ""
    raise UsageError(f"choose a surface with --driver web|desktop|android{found}")


def open_driver(options: DriverOptions) -> Driver:
    """Start the chosen driver."""
    name = choose_driver(options)
    if name == "web":
        from venusctl.drivers.web.driver import WebDriver

        web = web_options(options)
        if options.session:
            from venusctl.drivers.sessions.manage import open_session_browser

            return open_session_browser(options.session, lambda: WebDriver(web))
        return WebDriver(web)
    if name == "android":
        from venusctl.drivers.android.driver import AndroidDriver, AndroidOptions

        return AndroidDriver(AndroidOptions(device=options.device,
                                            image_format=options.format_for(Surface.MOBILE),
                                            address=_adb_address(options.adb_server)))
    if name == "desktop":
        from venusctl.drivers.desktop.driver import DesktopDriver, DesktopOptions

        return DesktopDriver(DesktopOptions(monitor=options.monitor,
                                            image_format=options.format_for(Surface.DESKTOP)))
    raise UsageError(f"the {name} driver is not available yet in this version of venusctl")


def web_options(options: DriverOptions) -> WebOptions:
    """The browser settings of `options`, as the web driver takes them."""
    from venusctl.drivers.web.driver import WebOptions

    return WebOptions(
        url=options.url,
        headless=options.headless,
        viewport=options.viewport,
        browser_path=options.browser_path,
        profile=options.profile,
        image_format=options.format_for(Surface.BROWSER),
        connect=options.browser_server,
        cdp_url=options.cdp_url,
        keep_page=options.keep_page,
        upload_dir=options.upload_dir,
    )


def _adb_address(text: str | None) -> AdbAddress | None:
    """`HOST:PORT` of an adb server as the android driver takes it (None: adb's default)."""
    if not text:
        return None
    from venusctl.drivers.android.adb import AdbAddress

    address = AdbAddress.parse(text)
    if address is None:
        raise UsageError(f"the adb server must be HOST:PORT, not '{text}'")
    return address
