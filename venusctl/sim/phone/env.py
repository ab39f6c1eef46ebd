"""Debian's real adb server on a private port, with simulated phones attached to it.

    with android_env() as env:          # starts an adb server and one phone
        env.phone.state.wifi            # the apps' state
        env.phone.inputs()              # every input/am/monkey/ime command received
        os.environ.update(env.environ())  # point adbutils and venusctl at this server

The server is started on a non-default port (never 5037), so adbutils never spawns
one of its own, and phones listen outside 5555-5585, which the server scans.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from tests.support.fakephone.phone import FakePhone, PhoneConfig

CONNECT_TIMEOUT_S = 10.0


class AdbServer:
    """One `adb` server process on its own port, killed on stop."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        program = shutil.which("adb")
        if program is None:
            raise RuntimeError("adb is not installed; run scripts/test.sh (apt install adb)")
        self.adb = program

    def environ(self) -> dict[str, str]:
        return {"ANDROID_ADB_SERVER_PORT": str(self.port)}

    def run(self, *args: str, timeout: float = 20.0) -> str:
        env = {**os.environ, **self.environ()}
        env.pop("ANDROID_SERIAL", None)
        env.pop("ADB_SERVER_SOCKET", None)
        done = subprocess.run([self.adb, "-P", str(self.port), *args], env=env, timeout=timeout,
                              capture_output=True, check=False)
        return (done.stdout + done.stderr).decode("utf-8", "replace").strip()

    def start(self) -> AdbServer:
        self.run("start-server")
        return self

    def stop(self) -> None:
        self.run("kill-server")

    def devices(self) -> dict[str, str]:
        lines = self.run("devices").splitlines()[1:]
        return dict(line.split("\t", 1) for line in lines if "\t" in line)

    def attach(self, phone: FakePhone, state: str = "device") -> None:
        """`adb connect` the phone and wait until the server reports `state` for it."""
        output = self.run("connect", phone.serial)
        deadline = time.monotonic() + CONNECT_TIMEOUT_S
        while self.devices().get(phone.serial) != state:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{phone.serial} never became {state!r}: {output}; "
                                   f"devices: {self.devices()}")
            time.sleep(0.05)

    def detach(self, phone: FakePhone) -> None:
        self.run("disconnect", phone.serial)


@dataclass
class PhoneEnv:
    """A running adb server with one simulated phone attached."""

    server: AdbServer
    phone: FakePhone

    @property
    def serial(self) -> str:
        return self.phone.serial

    @property
    def port(self) -> int:
        return self.phone.port

    @property
    def adb_port(self) -> int:
        return self.server.port

    @property
    def state(self):
        return self.phone.state

    @property
    def log(self) -> list[str]:
        """Every simple command the phone ran, in order."""
        return self.phone.executed

    def environ(self) -> dict[str, str]:
        return self.server.environ()

    def add_phone(self, config: PhoneConfig | None = None, state: str = "device") -> FakePhone:
        """Attach one more phone to the same server (for several-devices cases)."""
        phone = FakePhone(config).start()
        self.server.attach(phone, state)
        return phone


def free_port() -> int:
    """A free loopback port outside the adb server's emulator range."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if not 5554 <= port <= 5585:
            return port


@contextmanager
def phone_on(server: AdbServer, config: PhoneConfig | None = None) -> Iterator[FakePhone]:
    """One phone attached to an existing server for the duration of the block."""
    phone = FakePhone(config).start()
    state = "unauthorized" if phone.config.refuse_auth else "device"
    try:
        server.attach(phone, state)
        yield phone
    finally:
        phone.stop()
        server.detach(phone)


@contextmanager
def android_env(config: PhoneConfig | None = None,
                server: AdbServer | None = None) -> Iterator[PhoneEnv]:
    """An adb server (started here unless given) and one attached simulated phone."""
    own = server is None
    server = server or AdbServer().start()
    try:
        with phone_on(server, config) as phone:
            yield PhoneEnv(server, phone)
    finally:
        if own:
            server.stop()
