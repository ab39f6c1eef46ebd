"""Test helpers for X displays: waiting for a condition, and what the server holds down."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from venusctl.sim.xserver import XServer


def wait_until(check: Callable[[], Any], timeout: float = 10, what: str = "condition") -> Any:
    """Poll `check` until it returns something true; fail the test after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def input_state(server: XServer) -> tuple[set[str], int]:
    """What the X server itself holds down now: key names and the button mask.

    Read on a fresh connection, so it reports the server's state, not any client's.
    """
    from Xlib import XK, display

    conn = display.Display(server.display)
    try:
        keymap = conn.query_keymap()
        codes = {byte * 8 + bit for byte, value in enumerate(keymap) for bit in range(8)
                 if value & (1 << bit)}
        by_keysym = {getattr(XK, n): n[3:] for n in dir(XK) if n.startswith("XK_")}
        names = {by_keysym.get(conn.keycode_to_keysym(code, 0), str(code)) for code in codes}
        mask = conn.screen().root.query_pointer().mask
        buttons = mask & 0x1F00  # Button1Mask .. Button5Mask
        return names, buttons
    finally:
        conn.close()
