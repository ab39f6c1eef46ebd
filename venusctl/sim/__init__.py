"""Simulated environments to try venusctl on without a device or an account.
Real local apps (web, Tk on Xvfb, an adb phone) for people and tests; no agent logic.

Three local apps, each an `Environment`: built with its options, `start()`ed (returns
itself) and `stop()`ped (nothing left running), or used in a `with` block.
`variables()` gives what a task or a shell needs to reach it.

    from venusctl.sim import Desktop, PhoneConfig, PhoneEnv, ShopServer

    with ShopServer() as shop:                  # the shop web app on a free port
        shop.url                                # http://127.0.0.1:PORT
        shop.state.orders                       # what it was asked to do

    with Desktop(size=(1280, 800)) as desktop:  # Xvfb + the Venus Test App (Tk)
        desktop.display                         # ":5", for DISPLAY
        desktop.app.events()                    # every X event the app received

    with PhoneEnv(PhoneConfig(size=(1080, 2400))) as env:   # phone + private adb server
        env.serial, env.adb_port                # 127.0.0.1:PORT, ANDROID_ADB_SERVER_PORT
        env.state.notes                         # what the phone's apps hold

`serve(env)` announces the variables (`NAME=VALUE` lines, then `READY`) and runs until
SIGINT/SIGTERM: what `venusctl sim NAME` does, and what a task file's `environments:`
entry reads. System tools a simulation needs (Xvfb, adb, Tk for Python) missing, or a
port already taken, raise `SimUnavailable` with the fix.
"""

from venusctl.sim.base import Environment, announce, serve
from venusctl.sim.catalog import BUILTINS
from venusctl.sim.desktop import Desktop
from venusctl.sim.phone import AdbServer, FakePhone, PhoneConfig, PhoneEnv
from venusctl.sim.tools import SimUnavailable
from venusctl.sim.web import ShopServer
from venusctl.sim.xserver import TkApp, XServer

__all__ = ["BUILTINS", "AdbServer", "Desktop", "Environment", "FakePhone", "PhoneConfig",
           "PhoneEnv", "ShopServer", "SimUnavailable", "TkApp", "XServer", "announce", "serve"]
