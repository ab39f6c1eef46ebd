"""A simulated Android phone speaking the adb device protocol, behind Debian's real adb
server: for trying tasks, batch files and policies without a device, and for tests.

Use `PhoneEnv` (start/stop or a `with` block) or `venusctl sim phone`; the test suite's
pytest fixtures are in `tests.support.phone_fixtures`.
"""

from venusctl.sim.phone.app import APPS, PhoneState, Widget
from venusctl.sim.phone.env import AdbServer, PhoneEnv, android_env, phone_on
from venusctl.sim.phone.phone import FakePhone, PhoneConfig

__all__ = ["APPS", "AdbServer", "FakePhone", "PhoneConfig", "PhoneEnv", "PhoneState", "Widget",
           "android_env", "phone_on"]
