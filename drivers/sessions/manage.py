"""Starting, finding, checking and stopping kept sessions.

`start` claims the name (the record file is the lock), then for the web starts the
daemon and waits for its `READY`; Android and desktop sessions are settings only.
`apply_session` turns `--session NAME` into driver options (the web: the token
endpoint and the kept page); a dead or unknown session is one clear error, and
whatever it left (a daemon, a browser, a profile folder) is cleaned up on the way.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from venusctl.core.errors import DeviceError, ExitCode, UsageError, VenusError
from venusctl.drivers.base import Driver
from venusctl.drivers.factory import DriverOptions, surface_of
from venusctl.drivers.sessions import store
from venusctl.drivers.sessions.store import DEAD, RUNNING, SETTINGS, STARTING, SessionRecord

START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 15.0
DAEMON = "venusctl.drivers.sessions.daemon"


# ------------------------------------------------------------------ starting


def start(options: DriverOptions, name: str | None, idle_timeout_s: float) -> SessionRecord:
    """Start a session and return its record (the web: once its browser is ready)."""
    if not options.driver:
        raise UsageError("say which surface the session keeps: --driver web|android|desktop")
    surface_of(options.driver)
    if options.session:
        raise UsageError("--session names a session to use; `session start` takes --name")
    if idle_timeout_s < 0:
        raise UsageError("--idle-timeout must be 0 (never) or a number of seconds")
    record = SessionRecord(name=store.check_name(name) if name else _free_name(options.driver),
                           driver=options.driver, idle_timeout_s=idle_timeout_s,
                           settings=_settings(options))
    _claim(record)
    if options.driver != "web":
        record.state = SETTINGS
        store.save(record)
        return record
    try:
        return _start_browser(record)
    except BaseException:
        _clean_up(record)
        raise


def _settings(options: DriverOptions) -> dict[str, Any]:
    if options.driver == "web":
        return _web_settings(options)
    if options.url or options.profile:
        raise UsageError("--url and --profile are for web sessions")
    settings: dict[str, Any] = {"image_format": options.image_format}
    if options.driver == "android":
        settings["device"] = options.device or _only_phone()
        settings["adb_server"] = options.adb_server
    else:
        settings["monitor"] = options.monitor
    return settings


def _web_settings(options: DriverOptions) -> dict[str, Any]:
    from venusctl.drivers.web.driver import check_url, find_browser

    if options.image_format not in ("jpeg", "png"):
        raise UsageError("--image-format must be jpeg or png")
    if options.profile is not None:
        raise UsageError("--profile is not kept by sessions: a session has its own profile "
                         "for as long as it runs")
    if options.url:
        try:
            check_url(options.url, allow_file=options.url.lower().startswith("file:"))
        except VenusError as exc:
            raise UsageError(f"--url: {exc}") from None
    return {"url": options.url, "headless": options.headless,
            "viewport": [options.viewport.width, options.viewport.height],
            "image_format": options.image_format,
            "executable": find_browser(options.browser_path, _bundled_chromium())
            or _bundled_chromium()}


def _bundled_chromium() -> str | None:
    from playwright.sync_api import sync_playwright

    try:
        with sync_playwright() as playwright:
            return str(playwright.chromium.executable_path)
    except Exception:  # no Playwright driver: only a system Chromium will do
        return None


def _only_phone() -> str:
    from venusctl.drivers.android.devices import attached_now

    phones = [p for p in attached_now() if p.state == "device"]
    if len(phones) != 1:
        listing = ", ".join(p.serial for p in phones) or "none"
        raise UsageError(f"choose the session's phone with --device (attached: {listing})")
    return phones[0].serial


def _free_name(driver: str) -> str:
    taken = set(store.names())
    return next(f"{driver}-{n}" for n in range(1, 10_000) if f"{driver}-{n}" not in taken)


def _claim(record: SessionRecord) -> None:
    """Take the name, unless a live session has it (a dead one's leftovers are cleared)."""
    if store.claim(record):
        return
    existing = store.load(record.name)
    if existing is not None and _alive(existing):
        raise UsageError(f"a session named '{record.name}' already exists "
                         f"(stop it with `venusctl session stop {record.name}`)")
    if existing is not None:
        _clean_up(existing)
    if not store.claim(record):
        raise UsageError(f"a session named '{record.name}' is being started by another command")


def _start_browser(record: SessionRecord) -> SessionRecord:
    profile = store.sessions_dir() / f"{record.name}.profile"
    shutil.rmtree(profile, ignore_errors=True)
    record.profile_dir = str(profile)
    store.save(record)
    with open(store.log_path(record.name), "ab") as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", DAEMON, record.name], stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=log_file, start_new_session=True)
    record.pid = process.pid
    try:
        line = _first_line(process, START_TIMEOUT_S)
    except BaseException:
        _end_group(process.pid)
        raise
    finally:
        if process.stdout is not None:
            process.stdout.close()
    if line != "READY":
        _end_group(process.pid)
        code, _, message = line.removeprefix("ERROR ").partition(" ")
        if not code.isdigit():
            why = _log_tail(record.name) or line or "no reason given"
            message = f"the session's process failed: {why}"
            code = str(int(ExitCode.UNAVAILABLE))
        raise (UsageError if int(code) == ExitCode.USAGE else DeviceError)(message)
    started = store.load(record.name)
    if started is None or started.state != RUNNING:
        raise DeviceError("the session's browser started but its record is missing")
    return started


def _first_line(process: subprocess.Popen[bytes], timeout_s: float) -> str:
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout_s
    data = b""
    while b"\n" not in data:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise DeviceError(f"the session's browser did not start within {timeout_s:g} s")
        if not selector.select(remaining):
            continue
        chunk = os.read(process.stdout.fileno(), 4096)
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8", "replace").strip().splitlines()[0] if data.strip() else ""


def _log_tail(name: str) -> str:
    try:
        lines = store.log_path(name).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return lines[-1].strip()[:300] if lines else ""


# -------------------------------------------------------------------- using


def apply_session(options: DriverOptions) -> None:
    """Fill `options` from the session it names (in place, as `choose_driver` does)."""
    name = options.session or ""
    record = store.load(store.check_name(name))
    if record is None:
        raise UsageError(f"no session named '{name}' (see `venusctl session list`)")
    if options.url and not options.keep_page:
        raise UsageError(f"--url opens a new page, and session '{name}' keeps its own: give "
                         "--url to `venusctl session start`, or leave out --session")
    if options.driver and options.driver != record.driver:
        raise UsageError(f"session '{name}' is a {record.driver} session, not {options.driver}")
    if record.state == SETTINGS:
        _use_settings(record, options)
        return
    if record.state == DEAD or not _alive(record):
        reason = record.reason or "its process is gone"
        _clean_up(record)
        raise DeviceError(f"session '{name}' has ended: {reason}; start a new one with "
                          f"`venusctl session start --name {name}`")
    if record.state == STARTING:
        raise DeviceError(f"session '{name}' is still starting; try again in a moment")
    options.driver = "web"
    options.cdp_url, options.browser_server, options.keep_page = record.endpoint, None, True
    options.viewport = _viewport(record.settings.get("viewport"), options)
    options.image_format = record.settings.get("image_format", options.image_format)


def _use_settings(record: SessionRecord, options: DriverOptions) -> None:
    idle = time.time() - record.last_used
    if record.idle_timeout_s and idle > record.idle_timeout_s:
        store.remove(record.name)
        raise UsageError(f"session '{record.name}' stopped itself after "
                         f"{record.idle_timeout_s:g} s without use (see `venusctl session list`)")
    options.driver = record.driver
    settings = record.settings
    options.image_format = settings.get("image_format", options.image_format)
    options.device = settings.get("device") or options.device
    options.adb_server = settings.get("adb_server") or options.adb_server
    options.monitor = settings.get("monitor", options.monitor)
    record.last_used = time.time()
    store.save(record)


def _viewport(value: Any, options: DriverOptions) -> Any:
    from venusctl.core.grid import ScreenSize

    return ScreenSize(int(value[0]), int(value[1])) if value else options.viewport


def open_session_browser(name: str, opener: Callable[[], Driver]) -> Driver:
    """Connect to the session's browser; a failure says why in the session's words."""
    try:
        return opener()
    except DeviceError as exc:
        record = store.load(name)
        if record is None or not _alive(record):
            if record is not None:
                _clean_up(record)
            raise DeviceError(f"session '{name}' has ended: its browser is gone; start a new "
                              f"one with `venusctl session start --name {name}`") from None
        if (status(record) or {}).get("busy"):
            raise DeviceError(f"session '{name}' is in use by another command; try again "
                              "when it has finished") from None
        detail = str(exc).replace(record.endpoint or "\0", f"session '{name}'")
        raise DeviceError(f"session '{name}': {detail}") from None


# ------------------------------------------------------- listing, stopping


def status(record: SessionRecord) -> dict[str, Any] | None:
    """The daemon's own view (busy, idle seconds), or None when it does not answer."""
    if not record.endpoint:
        return None
    import httpx

    url = record.endpoint.replace("ws://", "http://", 1) + "/status"
    try:
        return dict(httpx.get(url, timeout=2.0).json())
    except (httpx.HTTPError, ValueError):
        return None


def listing() -> list[dict[str, Any]]:
    """Every session, with its state checked now; ended ones are reported then removed."""
    rows = []
    for name in store.names():
        record = store.load(name)
        if record is None:
            continue
        row = record.public()
        if record.state == SETTINGS and record.idle_timeout_s and (
                time.time() - record.last_used > record.idle_timeout_s):
            row["state"], row["reason"] = "stopped", "idle too long"
            store.remove(name)
        elif record.state in (RUNNING, STARTING, DEAD) and not _alive(record):
            row["state"], row["reason"] = DEAD, record.reason or "its process is gone"
            _clean_up(record)
        elif record.state == RUNNING:
            row.update({k: v for k, v in (status(record) or {}).items() if k in ("busy", "idle_s")})
        rows.append(row)
    return rows


def stop(name: str) -> SessionRecord:
    """Stop a session and everything it runs; unknown names are a usage error."""
    record = store.load(store.check_name(name))
    if record is None:
        raise UsageError(f"no session named '{name}' (see `venusctl session list`)")
    if record.pid and _daemon_alive(record):
        with contextlib.suppress(ProcessLookupError):
            os.kill(record.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while _daemon_alive(record) and time.monotonic() < deadline:
            time.sleep(0.1)
    _clean_up(record)
    return record


def _clean_up(record: SessionRecord) -> None:
    """End whatever the session left running and remove its files."""
    if record.pid and _daemon_alive(record):
        _end_group(record.pid)
    if record.browser_pid and _is_browser_of(record):
        _end_group(record.browser_pid)
    if record.profile_dir:
        shutil.rmtree(record.profile_dir, ignore_errors=True)
    store.remove(record.name)
    with contextlib.suppress(OSError):
        store.log_path(record.name).unlink()


def _end_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def _alive(record: SessionRecord) -> bool:
    if record.state == SETTINGS:
        return True
    return record.state != DEAD and _daemon_alive(record)


def _daemon_alive(record: SessionRecord) -> bool:
    return bool(record.pid) and _cmdline_has(record.pid or 0, DAEMON, record.name)


def _is_browser_of(record: SessionRecord) -> bool:
    return bool(record.profile_dir) and _cmdline_has(record.browser_pid or 0,
                                                     f"--user-data-dir={record.profile_dir}")


def _cmdline_has(pid: int, *parts: str) -> bool:
    """Whether `pid` runs and its command line holds `parts` (a reused pid does not)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)  # reap it if it is our own child that has exited
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    args = raw.decode("utf-8", "replace").split("\0")
    return all(part in args for part in parts)


def describe(row: dict[str, Any]) -> str:
    """One line of `venusctl session list`."""
    settings = row.get("settings") or {}
    where = settings.get("url") or settings.get("device") or (
        f"monitor {settings['monitor']}" if settings.get("monitor") is not None else "")
    state = row["state"] + (f" ({row['reason']})" if row.get("reason") else "")
    if row.get("busy"):
        state += ", in use"
    idle = row.get("idle_s")
    if idle is None and row["state"] == SETTINGS:
        idle = round(time.time() - row["last_used"], 1)
    timeout = row.get("idle_timeout_s") or 0
    idle_text = f"idle {idle:g} s of {timeout:g}" if idle is not None and timeout else (
        "no idle stop" if not timeout else "")
    return "  ".join(t for t in (row["name"], row["driver"], state, where, idle_text) if t)


def as_json(rows: list[dict[str, Any]]) -> str:
    return json.dumps(rows, ensure_ascii=False)
