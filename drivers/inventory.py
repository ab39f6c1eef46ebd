"""What venusctl could operate on this machine: phones, a browser, the desktop.

`venusctl devices` prints this; each surface reports on its own so one missing
piece (no adb, no display) never hides the others.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venusctl.core.errors import VenusError


@dataclass
class Inventory:
    phones: list[dict[str, Any]] = field(default_factory=list)
    phones_error: str | None = None
    browser: dict[str, Any] = field(default_factory=dict)
    desktop: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"phones": self.phones, "browser": self.browser,
                               "desktop": self.desktop}
        if self.phones_error:
            out["phones_error"] = self.phones_error
        return out


def inventory() -> Inventory:
    found = Inventory()
    try:
        from venusctl.drivers.android.devices import list_phones

        found.phones = [p.as_dict() for p in list_phones()]
    except VenusError as exc:
        found.phones_error = str(exc)
    found.browser = browser_surface()
    found.desktop = desktop_surface()
    return found


def browser_surface() -> dict[str, Any]:
    """The browser the web driver would start (without starting it)."""
    from venusctl.drivers.web.driver import SYSTEM_BROWSERS

    cache = Path(os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or
                 Path.home() / ".cache" / "ms-playwright")
    bundled = sorted(cache.glob("chromium-*")) if cache.is_dir() else []
    if bundled:
        return {"available": True, "browser": f"Playwright's Chromium ({bundled[-1].name})"}
    for name in SYSTEM_BROWSERS:
        path = shutil.which(name)
        if path:
            return {"available": True, "browser": path}
    return {"available": False, "fix": "install chromium (apt install chromium) or pass "
                                       "--browser-path"}


def desktop_surface() -> dict[str, Any]:
    """The desktop and its monitors.

    The monitor listing is the desktop driver's `list_monitors()`
    (`venusctl.drivers.desktop.driver`); until it exists only the display is reported.
    """
    display = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    out: dict[str, Any] = {"available": bool(display), "display": display}
    try:
        from venusctl.drivers.desktop.driver import list_monitors  # type: ignore[attr-defined]
    except ImportError:
        return out
    try:
        out["monitors"] = [_plain(m) for m in list_monitors()]
    except Exception as exc:  # no display, no permission: report, do not fail the listing
        out["monitors_error"] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return out


def _plain(value: Any) -> Any:
    if hasattr(value, "as_dict"):
        return value.as_dict()
    if hasattr(value, "__dataclass_fields__"):
        from dataclasses import asdict

        return asdict(value)
    return value


def format_inventory(found: Inventory) -> str:
    """The human-readable listing."""
    lines = ["Phones (--driver android --device SERIAL):"]
    if found.phones_error:
        lines.append(f"  none: {found.phones_error}")
    elif not found.phones:
        lines.append("  none attached (USB debugging on? or 'adb connect HOST:PORT')")
    for phone in found.phones:
        if phone.get("state") != "device":
            lines.append(f"  {phone['serial']:<22} {phone['state']}")
            continue
        version = f"Android {phone.get('android', '?')} (API {phone.get('sdk', '?')})"
        screen = f"{phone.get('screen', '?')} @{phone.get('density', '?')}dpi"
        lines.append(f"  {phone['serial']:<22} {phone.get('model') or '?':<18} {version:<22} "
                     f"{screen:<18} device")
    browser = found.browser
    lines.append("Browser (--driver web):")
    lines.append(f"  {browser.get('browser') if browser.get('available') else browser.get('fix')}")
    desktop = found.desktop
    lines.append("Desktop (--driver desktop):")
    if not desktop.get("available"):
        lines.append("  no display (set DISPLAY)")
    else:
        lines.append(f"  display {desktop.get('display')}")
        for m in desktop.get("monitors", []):  # numbered as --monitor takes them
            flags = " primary" if m.get("primary") else ""
            name = f" {m['name']}" if m.get("name") else ""
            lines.append(f"  --monitor {m['index']}: {m['width']}x{m['height']} at "
                         f"{m['left']},{m['top']}{flags}{name}")
        if desktop.get("monitors_error"):
            lines.append(f"  monitors unknown: {desktop['monitors_error']}")
    return "\n".join(lines)


# ------------------------------------------------------------- raw phone verbs
KEYS = {"back": "PressBack", "home": "PressHome", "enter": "PressEnter", "recent": "PressRecent",
        "recents": "PressRecent"}


def phone_action(device: str | None, action: Any) -> str:
    """Perform one action given in phone pixels: no model grid, no guard (debugging)."""
    from venusctl.core.actions import describe

    driver = _open_phone(device)
    try:
        result = driver.perform(action)
        driver.settle(3.0)
        lines = [f"{driver.serial}: {describe(action)}"]
        if result.feedback:
            lines.append(result.feedback)
        lines.extend(f"{key}: {value}" for key, value in result.details.items())
        return "\n".join(lines)
    finally:
        driver.close()


def key_action(name: str) -> Any:
    from venusctl.core import actions
    from venusctl.core.errors import UsageError

    if name.lower() not in KEYS:
        raise UsageError(f"unknown key '{name}'; choose one of: back, home, enter, recent")
    return getattr(actions, KEYS[name.lower()])()


def phone_describe(device: str | None, x: int, y: int) -> dict[str, Any] | None:
    driver = _open_phone(device)
    try:
        element = driver.describe(x, y)
        return element.as_dict() if element else None
    finally:
        driver.close()


def phone_info(device: str | None) -> dict[str, Any]:
    driver = _open_phone(device)
    try:
        return driver.info()
    finally:
        driver.close()


def _open_phone(device: str | None) -> Any:
    from venusctl.drivers.android.driver import AndroidDriver, AndroidOptions

    return AndroidDriver(AndroidOptions(device=device))
