"""The simulated Android phone, attached to Debian's real adb server on a private port.

Exports ANDROID_ADB_SERVER_PORT (venusctl and adb use that server) and PHONE_SERIAL.
"""

from __future__ import annotations

from _serve import announce, wait_for_stop

from tests.support.fakephone import android_env

with android_env() as env:
    announce(ANDROID_ADB_SERVER_PORT=str(env.adb_port), PHONE_SERIAL=env.serial)
    wait_for_stop()
