"""`venusctl devices` (what can be operated) and `venusctl device …` (raw phone verbs)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from venusctl.cli.common import OUTPUT, DeviceOpt, VerboseOpt, setup_logging
from venusctl.cli.panels import Typer
from venusctl.safety.sanitize import json_text, shown

JsonOpt = OUTPUT.told(json="Print JSON instead of a table.").option("json")
device_app = Typer(
    help="Raw phone verbs in phone pixels, without the model or the guard (for debugging).",
    no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.command("devices")(devices)
    app.add_typer(device_app, name="device")


def devices(json_out: JsonOpt = False, verbose: VerboseOpt = False) -> int:
    """List the phones (serial, model, Android version, screen, state) and other surfaces.

    Example: venusctl devices --json
    """
    from venusctl.drivers.inventory import format_inventory, inventory

    setup_logging(verbose)
    found = inventory()
    print(json.dumps(found.as_dict(), indent=2) if json_out else format_inventory(found))
    return 0


@device_app.command("tap")
def tap(x: int, y: int, device: DeviceOpt = None) -> int:
    """Tap a point. Example: venusctl device tap 540 1200"""
    from venusctl.core.actions import Click
    from venusctl.drivers.inventory import phone_action

    print(shown(phone_action(device, Click(point=(x, y)))))
    return 0


@device_app.command("swipe")
def swipe(x1: int, y1: int, x2: int, y2: int, device: DeviceOpt = None) -> int:
    """Flick from one point to another. Example: venusctl device swipe 540 1800 540 600"""
    from venusctl.core.actions import Swipe
    from venusctl.drivers.inventory import phone_action

    print(shown(phone_action(device, Swipe(start=(x1, y1), end=(x2, y2)))))
    return 0


@device_app.command("text")
def text(content: str, device: DeviceOpt = None) -> int:
    """Type text into the focused field. Example: venusctl device text "Grüße 你好" """
    from venusctl.core.actions import Type
    from venusctl.drivers.inventory import phone_action

    print(shown(phone_action(device, Type(content=content))))
    return 0


@device_app.command("key")
def key(name: str, device: DeviceOpt = None) -> int:
    """Press back, home, enter or recent. Example: venusctl device key back"""
    from venusctl.drivers.inventory import key_action, phone_action

    print(shown(phone_action(device, key_action(name))))
    return 0


@device_app.command("launch")
def launch(app_name: Annotated[str, typer.Argument(metavar="APP")],
           device: DeviceOpt = None) -> int:
    """Start an app by its visible name. Example: venusctl device launch Settings"""
    from venusctl.core.actions import LaunchApp
    from venusctl.drivers.inventory import phone_action

    print(shown(phone_action(device, LaunchApp(app=app_name))))
    return 0


@device_app.command("describe")
def describe(x: int, y: int, device: DeviceOpt = None) -> int:
    """What is under a point (from uiautomator). Example: venusctl device describe 540 1200"""
    from venusctl.drivers.inventory import phone_describe

    element = phone_describe(device, x, y)
    print(json_text(element, indent=2) if element else "nothing there")
    return 0


@device_app.command("info")
def info(device: DeviceOpt = None) -> int:
    """Screen size, density, current app and the measured screenshot path.

    Example: venusctl device info --device R58M123ABC
    """
    from venusctl.drivers.inventory import phone_info

    print(json.dumps(phone_info(device), indent=2))
    return 0
