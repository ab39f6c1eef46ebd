"""`venusctl doctor`: is this machine ready, and if not, what exactly to do.

Each check looks at one thing a run depends on (adb and an authorised phone, a
display for the desktop driver, a browser, the model files, the llama.cpp build,
the keyring, free memory) and returns a `Check`: a status, what it found, and a fix
a person can type. The inputs of every check (program lookup, subprocess calls,
environment, memory figures) are parameters, so the unit tests exercise the
judgement without the machine and one integration test runs them for real.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from venusctl.core.errors import VenusError

GIB = 1 << 30
RUNTIME_OVERHEAD = int(1.5 * GIB)  # KV cache, compute buffers and an image batch
DEFAULT_MODEL_BYTES = int(6.4 * GIB)  # UI-Venus-2-9B Q4_K_M (~5.5 GB) + f16 projector
COMMAND_TIMEOUT_S = 15

Which = Callable[[str], "str | None"]
Run = Callable[[list[str]], "tuple[int, str]"]


class Status(str, Enum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True)
class Check:
    """One finding: `fix` says what to do whenever the status is not ok."""

    name: str
    status: Status
    detail: str
    fix: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        return data


def run_command(argv: list[str]) -> tuple[int, str]:
    """Run a program briefly; (exit code, stdout+stderr). A hang counts as a failure."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S,
                              check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return (124, f"{argv[0]} did not answer within {COMMAND_TIMEOUT_S} s")
    except OSError as exc:
        return (127, str(exc))
    return (done.returncode, (done.stdout or "") + (done.stderr or ""))


# ----------------------------------------------------------------------- android


def adb_states(output: str) -> list[tuple[str, str]]:
    """(serial, state) pairs from `adb devices` output."""
    pairs = []
    for line in output.splitlines():
        parts = line.split()
        if len(parts) >= 2 and not line.startswith(("List of devices", "*")):
            pairs.append((parts[0], parts[1]))
    return pairs


def check_adb(which: Which = shutil.which, run: Run = run_command) -> Check:
    """adb is installed, its server answers, and every phone is authorised."""
    adb = which("adb")
    if adb is None:
        return Check("android: adb", Status.FAIL, "adb is not installed",
                     "install it: apt install adb (or Android platform-tools on PATH)")
    code, output = run([adb, "devices"])
    if code != 0:
        return Check("android: adb", Status.FAIL, f"`adb devices` failed: {_last_line(output)}",
                     "restart the server: adb kill-server && adb start-server")
    states = adb_states(output)
    if not states:
        return Check("android: adb", Status.WARN, "adb works but no phone is connected",
                     "plug the phone in by USB with USB debugging on (Settings › Developer "
                     "options), or run: adb connect HOST:PORT")
    bad = [(s, st) for s, st in states if st != "device"]
    listed = ", ".join(f"{s} ({st})" for s, st in states)
    if any(st == "unauthorized" for _, st in bad):
        return Check("android: adb", Status.FAIL, f"not authorised: {listed}",
                     "unlock the phone and accept 'Allow USB debugging' (tick 'Always allow')")
    if bad:
        return Check("android: adb", Status.FAIL, f"not ready: {listed}",
                     "reconnect the cable or run: adb reconnect")
    return Check("android: adb", Status.OK, f"{len(states)} device(s) ready: {listed}")


# ----------------------------------------------------------------------- desktop


def check_display(
    env: Mapping[str, str] | None = None,
    platform: str = sys.platform,
    probe: Callable[[], None] | None = None,
    which: Which = shutil.which,
) -> Check:
    """The desktop driver can capture the screen and send input (X11 on Linux)."""
    env = os.environ if env is None else env
    name = "desktop: display"
    if platform.startswith("linux"):
        display = env.get("DISPLAY")
        if not display:
            wayland = env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE") == "wayland"
            detail = ("a Wayland session without XWayland's DISPLAY" if wayland
                      else "no DISPLAY: no graphical session is visible from here")
            return Check(name, Status.FAIL, detail,
                         "run venusctl inside the X11 desktop session (or XWayland), or start "
                         "one for tests: Xvfb :99 & export DISPLAY=:99")
    try:
        (probe or _grab_one_pixel)()
    except Exception as exc:
        return Check(name, Status.FAIL, f"cannot capture the screen: {_last_line(str(exc))}",
                     "check DISPLAY and XAUTHORITY (or allow local clients: xhost +local:)")
    where = env.get("DISPLAY") or "the main screen"
    if platform.startswith("linux") and which("xdotool") is None:
        return Check(name, Status.WARN, f"{where} can be captured, but xdotool is missing",
                     "install it for Unicode typing: apt install xdotool")
    return Check(name, Status.OK, f"{where} can be captured")


def _grab_one_pixel() -> None:
    import mss

    factory = getattr(mss, "MSS", None) or mss.mss
    with factory() as grabber:
        grabber.grab({"left": 0, "top": 0, "width": 1, "height": 1})


# ------------------------------------------------------------------------- web


def check_browser(
    locate: Callable[[], str | None] | None = None, run: Run = run_command,
) -> Check:
    """A Chromium the web driver can launch: Playwright's own or one on PATH."""
    name = "web: browser"
    try:
        path = (locate or _locate_browser)()
    except Exception as exc:
        return Check(name, Status.FAIL, _last_line(str(exc)),
                     "install chromium: apt install chromium (or pass --browser-path)")
    if path is None:
        return Check(name, Status.OK, "Playwright's bundled Chromium")
    code, output = run([path, "--version"])
    if code != 0:
        return Check(name, Status.FAIL, f"{path} does not start: {_last_line(output)}",
                     "reinstall it (apt install --reinstall chromium) or pass --browser-path")
    return Check(name, Status.OK, f"{_version_line(output)} ({path})")


def _version_line(output: str) -> str:
    """The browser's version line (wrapper scripts may print noise around it)."""
    for line in output.splitlines():
        if "chrom" in line.lower() and any(ch.isdigit() for ch in line):
            return line.strip()[:200]
    return _last_line(output)


def _locate_browser() -> str | None:
    """What `venusctl do --driver web` would launch (None: Playwright's own build)."""
    from playwright.sync_api import sync_playwright

    from venusctl.drivers.web.driver import find_browser

    with sync_playwright() as pw:
        bundled = pw.chromium.executable_path
    return find_browser(None, bundled)


# ---------------------------------------------------------------------- keyring


def check_keyring(get_backend: Callable[[], Any] | None = None) -> Check:
    """Secrets (`venusctl secret set`) need a keyring backend that can store them."""
    name = "secrets: keyring"
    try:
        backend = (get_backend or _keyring_backend)()
    except Exception as exc:
        return Check(name, Status.FAIL, f"keyring is unusable: {_last_line(str(exc))}",
                     "pip install keyring, and a backend (see below)")
    kind = f"{type(backend).__module__}.{type(backend).__name__}"
    if kind.startswith("keyring.backends.fail") or (
        kind.endswith("ChainerBackend") and not getattr(backend, "backends", None)
    ):
        return Check(name, Status.FAIL, "no keyring backend is available",
                     "start a Secret Service (gnome-keyring or KWallet) in your session, or "
                     "pip install keyrings.alt and set PYTHON_KEYRING_BACKEND="
                     "keyrings.alt.file.EncryptedKeyring")
    if "Plaintext" in kind:
        return Check(name, Status.WARN, f"{kind} stores secrets unencrypted on disk",
                     "prefer a Secret Service (gnome-keyring/KWallet) or "
                     "keyrings.alt.file.EncryptedKeyring")
    return Check(name, Status.OK, kind)


def _keyring_backend() -> Any:
    import keyring

    return keyring.get_keyring()


# ----------------------------------------------------------------------- prompts


def check_prompts(chosen: str | None = None) -> Check:
    """Which prompt texts runs use, and how to get the authors' own."""
    from venusctl.interface.authors_prompts import describe_status
    from venusctl.model.settings import resolve

    if chosen is None:
        try:
            chosen = resolve({}).prompts
        except VenusError as exc:
            return Check("prompts", Status.FAIL, str(exc), "fix the setting it names")
    pulled, detail = describe_status()
    if chosen == "authors" and not pulled:
        return Check("prompts", Status.FAIL, "the authors' prompts are chosen but not pulled",
                     "venusctl prompts pull")
    if chosen == "builtin" and pulled:
        detail = "venusctl's own wording (chosen; the authors' texts are pulled too)"
    return Check("prompts", Status.OK, detail)


# ----------------------------------------------------------------------- memory


def available_memory() -> int | None:
    """Bytes of memory available to a new process (Linux MemAvailable, else free pages)."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(model_bytes: int | None, available: int | None) -> Check:
    """The model's files plus working memory should fit in what is free now."""
    name = "memory"
    size = model_bytes or DEFAULT_MODEL_BYTES
    what = "the model" if model_bytes else "the default model (UI-Venus-2-9B Q4_K_M, estimated)"
    need = size + RUNTIME_OVERHEAD
    if available is None:
        return Check(name, Status.WARN, "cannot tell how much memory is free",
                     f"make sure about {_gib(need)} are free for {what}")
    detail = f"{_gib(available)} free; {what} needs about {_gib(need)}"
    if available >= need:
        return Check(name, Status.OK, detail)
    if available >= size:
        return Check(name, Status.WARN, detail + " (tight)",
                     "close other programs, lower --image-max-tokens or --n-ctx")
    return Check(name, Status.FAIL, detail,
                 "close other programs, use a smaller quantisation (venusctl model pull "
                 "--quant Q4_0), offload to a GPU (--gpu-layers) or use --server URL")


def _gib(value: int) -> str:
    return f"{value / GIB:.1f} GiB"


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "no output"


# ------------------------------------------------------------------------- all


AREAS = ("android", "desktop", "web")


def run_checks(driver: str | None = None, load: bool = False) -> list[Check]:
    """Every check (or only the named driver's, plus the model and system ones)."""
    from venusctl.doctor.model import check_llama_build, check_model_files

    checks: list[Check] = []
    if driver in (None, "android"):
        checks.append(check_adb())
    if driver in (None, "desktop"):
        checks.append(check_display())
    if driver in (None, "web"):
        checks.append(check_browser())
    model_checks, model_bytes = check_model_files(load=load)
    checks.extend(model_checks)
    checks.append(check_llama_build())
    checks.append(check_prompts())
    checks.append(check_keyring())
    checks.append(check_memory(model_bytes, available_memory()))
    return checks


def all_pass(checks: list[Check]) -> bool:
    """Warnings pass; only failures make `doctor` exit non-zero."""
    return all(check.status is not Status.FAIL for check in checks)
