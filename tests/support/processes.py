"""Which processes a command started, read from /proc (Linux): to count browsers and to
check that nothing outlives the command."""

from __future__ import annotations

import time
from pathlib import Path

BROWSER_NAMES = ("chromium", "chrome", "chromium-browser", "headless_shell",
                 "chrome-headless-shell")


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of a process, or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # the name may hold spaces and brackets
    return int(fields[1]), fields[0]


def _cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def descendants(root: int) -> dict[int, list[str]]:
    """Every living process below `root`, with its command line."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[1] != "Z":
                parents[int(entry.name)] = stat[0]
    found: dict[int, list[str]] = {}
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                found[pid] = _cmdline(pid)
                frontier.append(pid)
    return found


def is_browser(argv: list[str]) -> bool:
    """A Chromium browser process itself (not one of its renderers, GPU or zygotes)."""
    return bool(argv) and Path(argv[0]).name in BROWSER_NAMES and not any(
        arg.startswith("--type=") for arg in argv)


def browsers_below(root: int) -> set[int]:
    """The Chromium browser processes `root` started, however deep."""
    return {pid for pid, argv in descendants(root).items() if is_browser(argv)}


def alive(pid: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[1] != "Z"


def wait_gone(pids: set[int] | dict[int, list[str]], timeout: float = 20.0) -> set[int]:
    """Wait for the processes to end; the ones still running after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        left = {pid for pid in pids if alive(pid)}
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)
