"""Debian's real adb server with simulated phones attached to it.

    with PhoneEnv(PhoneConfig(size=(1080, 2400))) as env:   # a private adb server + a phone
        env.serial, env.adb_port        # 127.0.0.1:PORT, and the server's port
        env.phone.state.wifi            # the apps' state
        env.phone.inputs()              # every input/am/monkey/ime command received
        os.environ.update(env.environ())  # point adbutils, adb and venusctl at this server

`adb_port=0` (the default) starts a private server on a free port, so nothing of
yours (phones, a running server) is touched and adbutils never spawns a server of
its own; a port number uses the adb server there if one answers (the phone is added
to it and removed on stop), else starts one there. A server started here runs in the
foreground as a child (`adb nodaemon server`) and ends with `stop()`. Phones listen
outside 5555-5585, which the server scans for emulators.
"""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from venusctl.sim.base import Environment
from venusctl.sim.phone.app import PhoneState
from venusctl.sim.phone.phone import FakePhone, PhoneConfig
from venusctl.sim.tools import SimUnavailable, busy, require

CONNECT_TIMEOUT_S = 10.0
SERVER_START_S = 15.0
STOP_WAIT_S = 10.0
EMULATOR_PORTS = range(5554, 5586)


class AdbServer:
    """An `adb` server on `port`: started here (and ended on stop), or one already there."""

    def __init__(self, port: int | None = None) -> None:
        self.adb = require("adb")
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def own(self) -> bool:
        """Whether this object started the server (and so stops it)."""
        return self.process is not None

    def environ(self) -> dict[str, str]:
        return {"ANDROID_ADB_SERVER_PORT": str(self.port)}

    def run(self, *args: str, timeout: float = 20.0) -> str:
        if self.process is not None and self.process.poll() is not None:
            raise SimUnavailable(f"the adb server on port {self.port} stopped")
        env = {**os.environ, **self.environ()}
        env.pop("ANDROID_SERIAL", None)
        env.pop("ADB_SERVER_SOCKET", None)
        done = subprocess.run([self.adb, "-P", str(self.port), *args], env=env, timeout=timeout,
                              capture_output=True, check=False)
        return (done.stdout + done.stderr).decode("utf-8", "replace").strip()

    def start(self) -> AdbServer:
        """Use the server on the port, or start one there; something else there is an error."""
        found = probe(self.port)
        if found == "adb":
            return self
        if found == "other":
            raise busy(self.port, "the adb server", "--adb-port")
        # the server logs on stderr for as long as it runs: a file, never a pipe that
        # would fill up and stall it; read back only to say why it did not start
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        self.process = subprocess.Popen(
            [self.adb, "-P", str(self.port), "nodaemon", "server"], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=self._log)
        deadline = time.monotonic() + SERVER_START_S
        while probe(self.port) != "adb":
            if self.process.poll() is not None or time.monotonic() > deadline:
                reason = self._failure()
                self.stop()
                raise SimUnavailable(f"the adb server did not start on port {self.port}: "
                                     f"{reason}")
            time.sleep(0.05)
        return self

    def _failure(self) -> str:
        if self.process is None or self.process.poll() is None:
            return f"no answer within {SERVER_START_S:g} s"
        err = ""
        if self._log is not None:
            self._log.seek(0)
            err = self._log.read().decode("utf-8", "replace")
        lines = [line for line in err.splitlines() if line.strip()]
        return lines[-1].strip() if lines else f"it exited with code {self.process.returncode}"

    def stop(self) -> None:
        """End the server if it was started here; a server found running is left alone."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(STOP_WAIT_S)
        if self._log is not None:
            self._log.close()
            self._log = None

    def alive(self) -> bool:
        return self.process.poll() is None if self.process is not None else \
            probe(self.port) == "adb"

    def devices(self) -> dict[str, str]:
        lines = self.run("devices").splitlines()[1:]
        return dict(line.split("\t", 1) for line in lines if "\t" in line)

    def attach(self, phone: FakePhone, state: str = "device") -> None:
        """`adb connect` the phone and wait until the server reports `state` for it."""
        output = self.run("connect", phone.serial)
        deadline = time.monotonic() + CONNECT_TIMEOUT_S
        while self.devices().get(phone.serial) != state:
            if time.monotonic() > deadline:
                raise SimUnavailable(f"{phone.serial} never became {state!r}: {output}; "
                                     f"devices: {self.devices()}")
            time.sleep(0.05)

    def detach(self, phone: FakePhone) -> None:
        """`adb disconnect` the phone and wait until the server no longer lists it.

        The server answers `disconnect` before it forgets the device, and one whose
        phone has just stopped is listed `offline` while the server retries it: the next
        phone on this server would otherwise meet it in `adb devices`."""
        deadline = time.monotonic() + CONNECT_TIMEOUT_S
        while self.alive() and phone.serial in self.devices():
            if time.monotonic() > deadline:
                raise SimUnavailable(f"{phone.serial} stayed attached: {self.devices()}")
            self.run("disconnect", phone.serial)
            time.sleep(0.05)


def probe(port: int) -> str | None:
    """"adb" when an adb server answers on the loopback port, "other" when something
    else holds it, None when nothing listens."""
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=2.0)
    except OSError:
        return None
    with sock:
        try:
            sock.sendall(b"000chost:version")
            reply = sock.recv(4)
        except OSError:
            return "other"
    return "adb" if reply == b"OKAY" else "other"


class PhoneEnv(Environment):
    """An adb server with one simulated phone attached: the phone environment.

    `server` shares an adb server started elsewhere (it is left running); otherwise one
    is used or started on `adb_port` as described above. `port` is the phone's own
    port (its serial is 127.0.0.1:PORT); 0 picks a free one.
    """

    kind = "phone"

    def __init__(self, config: PhoneConfig | None = None, *, adb_port: int = 0, port: int = 0,
                 server: AdbServer | None = None) -> None:
        if port in EMULATOR_PORTS:
            raise ValueError(f"port {port} is in 5554-5585, where the adb server looks for "
                             "emulators; choose another")
        self.config = config or PhoneConfig()
        self.adb_port_wanted = adb_port
        self.port_wanted = port
        self._given = server
        self._server: AdbServer | None = server
        self._phone: FakePhone | None = None

    @property
    def server(self) -> AdbServer:
        if self._server is None:
            raise RuntimeError("start() the phone first")
        return self._server

    @property
    def phone(self) -> FakePhone:
        if self._phone is None:
            raise RuntimeError("start() the phone first")
        return self._phone

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
    def state(self) -> PhoneState:
        return self.phone.state

    @property
    def log(self) -> list[str]:
        """Every simple command the phone ran, in order."""
        return self.phone.executed

    def environ(self) -> dict[str, str]:
        return self.server.environ()

    def start(self) -> PhoneEnv:
        if self._given is None:
            self._server = AdbServer(self.adb_port_wanted).start()
        try:
            self._phone = start_phone(self.config, self.port_wanted)
            state = "unauthorized" if self.config.refuse_auth else "device"
            self.server.attach(self._phone, state)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        ending = self._given is None and self._server is not None and self._server.own
        if self._phone is not None:
            if self._server is not None and not ending:
                self._server.detach(self._phone)
            self._phone.stop()
        self._phone = None
        if self._given is None and self._server is not None:
            self._server.stop()
            self._server = None

    def add_phone(self, config: PhoneConfig | None = None, state: str = "device") -> FakePhone:
        """Attach one more phone to the same server (for several-devices cases); the
        caller stops it and detaches it from `server`."""
        phone = FakePhone(config).start()
        self.server.attach(phone, state)
        return phone

    def variables(self) -> dict[str, str]:
        return {**self.environ(), "PHONE_SERIAL": self.serial}

    def summary(self) -> str:
        width, height = self.config.size
        server = "an adb server started for it" if self.server.own else "the running adb server"
        return (f"simulated phone {self.serial} ({self.config.model}, {width}x{height}) on "
                f"{server} at port {self.adb_port}; try: adb -P {self.adb_port} -s "
                f"{self.serial} shell wm size")

    def problem(self) -> str | None:
        if self._server is not None and self._server.own and not self._server.alive():
            return f"the adb server on port {self._server.port} stopped"
        return None


def start_phone(config: PhoneConfig | None, port: int = 0) -> FakePhone:
    """A phone listening on `port`; a busy port is a `SimUnavailable`."""
    try:
        return FakePhone(config).start(port)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise busy(port, "the simulated phone") from None
        raise


def free_port() -> int:
    """A free loopback port outside the adb server's emulator range."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port not in EMULATOR_PORTS:
            return port


@contextmanager
def phone_on(server: AdbServer, config: PhoneConfig | None = None) -> Iterator[FakePhone]:
    """One phone attached to an existing server for the duration of the block."""
    with PhoneEnv(config, server=server) as env:
        yield env.phone


@contextmanager
def android_env(config: PhoneConfig | None = None,
                server: AdbServer | None = None) -> Iterator[PhoneEnv]:
    """An adb server (a private one unless given) and one attached simulated phone."""
    with PhoneEnv(config, server=server) as env:
        yield env
