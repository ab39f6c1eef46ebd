"""Starting the Chromium of a kept session, talking DevTools over a pipe (no port).

`--remote-debugging-pipe` makes Chromium read DevTools messages from fd 3 and write
them to fd 4, NUL-separated. No TCP port is opened, so the only way in is the
session's own endpoint, which checks a token. The switches are those Playwright
uses for automation (quiet networking, no first-run UI, no throttling of
background tabs), so a kept page behaves like the one `venusctl do` launches.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

AUTOMATION_SWITCHES = (
    "--disable-field-trial-config", "--disable-background-networking",
    "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
    "--disable-back-forward-cache", "--disable-breakpad",
    "--disable-client-side-phishing-detection",
    "--disable-component-extensions-with-background-pages", "--disable-component-update",
    "--no-default-browser-check", "--disable-default-apps", "--disable-dev-shm-usage",
    "--disable-extensions", "--disable-hang-monitor", "--disable-ipc-flooding-protection",
    "--disable-popup-blocking", "--disable-prompt-on-repost", "--disable-renderer-backgrounding",
    "--force-color-profile=srgb", "--metrics-recording-only", "--no-first-run",
    "--password-store=basic", "--use-mock-keychain", "--no-service-autorun",
    "--disable-search-engine-choice-screen", "--disable-sync", "--disable-infobars",
    "--enable-automation", "--no-sandbox",
)
HEADLESS_SWITCHES = (
    "--headless", "--hide-scrollbars", "--mute-audio",
    "--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,"
    "availablePointerTypes=4",
)


@dataclass
class Launched:
    """A running Chromium and the two ends of its DevTools pipe (ours)."""

    process: subprocess.Popen[bytes]
    to_browser: int
    from_browser: int


def command(executable: str, profile: Path, size: tuple[int, int], headless: bool,
            url: str | None) -> list[str]:
    width, height = size
    return [executable, *AUTOMATION_SWITCHES, *(HEADLESS_SWITCHES if headless else ()),
            f"--user-data-dir={profile}", f"--window-size={width},{height}",
            "--remote-debugging-pipe", url or "about:blank"]


def launch(argv: list[str]) -> Launched:
    """Start Chromium in its own process group with the pipe on fds 3 and 4."""
    browser_reads, we_write = os.pipe()
    we_read, browser_writes = os.pipe()

    def place_fds() -> None:
        """In the child, before exec: put the ends where Chromium looks. dup2 makes
        them inheritable; every other descriptor of ours is close-on-exec (PEP 446)."""
        read_end = fcntl.fcntl(browser_reads, fcntl.F_DUPFD_CLOEXEC, 10)
        write_end = fcntl.fcntl(browser_writes, fcntl.F_DUPFD_CLOEXEC, 10)
        os.dup2(read_end, 3)
        os.dup2(write_end, 4)

    try:
        process = subprocess.Popen(
            argv, close_fds=False, preexec_fn=place_fds, start_new_session=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        for fd in (browser_reads, we_write, we_read, browser_writes):
            os.close(fd)
        raise
    os.close(browser_reads)
    os.close(browser_writes)
    return Launched(process, we_write, we_read)
