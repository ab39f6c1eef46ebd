"""A simulated Android phone speaking the adb device protocol, for tests and benchmarks.

Use `android_env()` (a context manager) or the pytest fixtures in
`tests.support.fakephone.fixtures` (import them into a conftest.py).
"""

from tests.support.fakephone.app import APPS, PhoneState, Widget
from tests.support.fakephone.env import AdbServer, PhoneEnv, android_env, phone_on
from tests.support.fakephone.phone import FakePhone, PhoneConfig

__all__ = ["APPS", "AdbServer", "FakePhone", "PhoneConfig", "PhoneEnv", "PhoneState", "Widget",
           "android_env", "phone_on"]
