"""The phones an adb server knows, with what a person needs to tell them apart."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from venusctl.core.errors import VenusError
from venusctl.drivers.android.adb import (
    AdbAddress,
    Attached,
    Link,
    attached,
    client,
    server_address,
    server_running,
)
from venusctl.drivers.android.screen import parse_density, parse_wm_size

DETAILS = ("getprop ro.product.model; getprop ro.build.version.release; "
           "getprop ro.build.version.sdk; wm size; wm density")


@dataclass
class PhoneInfo:
    """One attached phone; details are empty unless its state is 'device'."""

    serial: str
    state: str
    model: str | None = None
    android: str | None = None
    sdk: int | None = None
    screen: str | None = None
    density: int | None = None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def parse_details(text: str) -> dict[str, Any]:
    """The output of `DETAILS`: three getprop lines, then `wm size` and `wm density`."""
    lines = text.splitlines()
    props = [line.strip() or None for line in ([*lines, "", "", ""])[:3]]
    rest = "\n".join(lines[3:])
    size = parse_wm_size(rest)
    sdk = props[2]
    return {
        "model": props[0], "android": props[1],
        "sdk": int(sdk) if sdk and sdk.isdigit() else None,
        "screen": f"{size[0]}x{size[1]}" if size else None,
        "density": parse_density(rest),
    }


def list_phones(address: AdbAddress | None = None, start_server: bool = True) -> list[PhoneInfo]:
    """Every phone the adb server lists, with model, Android version and screen."""
    adb = client(address or server_address(), start=start_server)
    phones = []
    for device in attached(adb):
        phones.append(_details(adb, device))
    return phones


def _details(adb: Any, device: Attached) -> PhoneInfo:
    info = PhoneInfo(device.serial, device.state, model=device.model)
    if device.state != "device":
        return info
    try:
        output = Link(adb, device.serial).run(DETAILS, timeout_s=10.0).out
    except VenusError as exc:
        info.error = str(exc)
        return info
    for key, value in parse_details(output).items():
        if value is not None:
            setattr(info, key, value)
    return info


def attached_now(address: AdbAddress | None = None) -> list[Attached]:
    """The phones a *running* server lists; never starts a server, never fails."""
    try:
        address = address or server_address()
        if not server_running(address, timeout_s=0.3):
            return []
        return attached(client(address, start=False))
    except VenusError:
        return []
