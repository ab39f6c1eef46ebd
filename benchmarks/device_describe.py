"""What describing a target costs on the desktop and the phone (what the guard waits for).

Desktop: its own Xvfb (1920x1080) and private accessibility bus, a GTK dialog, a GTK
window with mnemonics and a Tk window (no accessibility). `describe` moves the pointer,
waits for the screen to settle, then asks the X server and AT-SPI (in a dialog it also
reads the dialog's buttons and text); `focused_element` adds the window's default
button, buttons, mnemonics and selection. Phone: the simulated phone on a transfer
form; `describe` and `focused_element` from one `uiautomator dump` (taken once per
screen), with the dump itself timed apart.

    .venv/bin/python benchmarks/device_describe.py [-n 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.desktop_apps import launch_gtk, launch_tk, session_bus  # noqa: E402
from venusctl.sim.xserver import XServer  # noqa: E402


def median_ms(call: Callable[[], Any], n: int) -> float:
    times = []
    for _ in range(n):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def centre(app: Any, name: str) -> tuple[int, int]:
    x, y, w, h = app.widgets()[name]
    return (x + w // 2, y + h // 2)


def desktop(n: int, folder: Path) -> None:
    server = XServer.start(1920, 1080)
    os.environ.update(DISPLAY=server.display, XDG_SESSION_TYPE="x11")
    try:
        with session_bus() as bus:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = bus
            from venusctl.drivers.desktop.driver import DesktopDriver

            rows = []
            for kind, scene, target in (("gtk", "dialog-delete", "ok"),
                                        ("gtk", "mnemonics", "send"), ("tk", "buttons", "send")):
                log = folder / f"{kind}-{scene}.jsonl"
                app = launch_gtk(server, scene, log, bus) if kind == "gtk" else launch_tk(
                    server, scene, log)
                driver = DesktopDriver()
                try:
                    point = centre(app, target)
                    rows.append((f"{kind} {scene}: describe({target})",
                                 median_ms(lambda d=driver, p=point: d.describe(*p), n)))
                    rows.append((f"{kind} {scene}: focused_element()",
                                 median_ms(driver.focused_element, n)))
                finally:
                    driver.close()
                    app.stop()
            for label, ms in rows:
                print(f"  {label:<44} {ms:7.1f} ms median")
    finally:
        server.stop()


def phone(n: int, folder: Path) -> None:
    from venusctl.drivers.android.driver import AndroidDriver, AndroidOptions
    from venusctl.sim.phone import PhoneState, android_env

    with android_env() as env:
        os.environ.update(env.environ())
        state = PhoneState(stack=["home", "transfer"], focused="amount",
                           fields={"recipient": "Ada"})
        env.phone.state = env.phone.apps.state = state
        driver = AndroidDriver(AndroidOptions(device=env.serial, cache_dir=folder / "cache",
                                              aliases_file=None))
        send = env.phone.find(text="Send money").box
        point = ((send[0] + send[2]) // 2, (send[1] + send[3]) // 2)

        def fresh_dump() -> None:
            driver._nodes = None
            driver.describe(*point)

        print(f"  {'phone: uiautomator dump + parse':<44} {median_ms(fresh_dump, n):7.1f} ms "
              "median")
        print(f"  {'phone: describe(Send money), dump taken':<44} "
              f"{median_ms(lambda: driver.describe(*point), n):7.2f} ms median")
        print(f"  {'phone: focused_element(), dump taken':<44} "
              f"{median_ms(driver.focused_element, n):7.2f} ms median")
        driver.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20, help="calls per figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        print("desktop (Xvfb 1920x1080, AT-SPI on a private bus):")
        desktop(args.n, Path(folder))
        print("phone (simulated, 540x960):")
        phone(args.n, Path(folder))


if __name__ == "__main__":
    main()
