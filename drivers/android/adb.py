"""Talking to phones through the adb server: which server, which phone, one shell call.

adbutils provides the server protocol (connections, device listing, transports);
this module adds what a long agent run needs on top: honouring the standard adb
environment variables, choosing a phone the way `adb` does, reading large binary
output in linear time, exit codes through the shell v2 protocol, and turning a
phone that vanished into a `DeviceError` while an ordinary failed command stays an
`ActionFailed` the model can recover from.
"""

from __future__ import annotations

import os
import shutil
import socket
import struct
import subprocess
from dataclasses import dataclass
from typing import Any

from venusctl.core.errors import ActionFailed, DeviceError, UsageError

DEFAULT_PORT = 5037
SHELL_TIMEOUT_S = 30.0
V1_EXIT_MARK = "X4EXIT:"
AUTHORISE_HINT = ("unlock it and accept the 'Allow USB debugging?' prompt "
                  "(tick 'Always allow from this computer')")


@dataclass(frozen=True)
class AdbAddress:
    """Where the adb server listens."""

    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT

    @classmethod
    def parse(cls, text: str) -> AdbAddress | None:
        """`HOST:PORT` (an IPv6 host in brackets) as an address; None when it is not one,
        so that each caller can say in its own words what it expected."""
        host, colon, port = text.strip().rpartition(":")
        if not colon or not host or not port.isdigit():
            return None
        return cls(host.strip("[]"), int(port))

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def server_address(env: dict[str, str] | None = None) -> AdbAddress:
    """The server the `adb` tool itself would use.

    `ADB_SERVER_SOCKET=tcp:HOST:PORT` wins, then `ANDROID_ADB_SERVER_HOST` and
    `ANDROID_ADB_SERVER_PORT`, then 127.0.0.1:5037.
    """
    env = dict(os.environ) if env is None else env
    socket_spec = env.get("ADB_SERVER_SOCKET", "").strip()
    if socket_spec:
        parts = socket_spec.split(":")
        if len(parts) == 3 and parts[0] == "tcp" and parts[2].isdigit():
            return AdbAddress(parts[1] or "127.0.0.1", int(parts[2]))
        if len(parts) == 2 and parts[0] == "tcp" and parts[1].isdigit():
            return AdbAddress("127.0.0.1", int(parts[1]))
        raise UsageError(f"ADB_SERVER_SOCKET must look like tcp:HOST:PORT, not '{socket_spec}'")
    port_text = env.get("ANDROID_ADB_SERVER_PORT", "").strip()
    if port_text and not port_text.isdigit():
        raise UsageError(f"ANDROID_ADB_SERVER_PORT must be a port number, not '{port_text}'")
    host = env.get("ANDROID_ADB_SERVER_HOST", "").strip() or "127.0.0.1"
    return AdbAddress(host, int(port_text) if port_text else DEFAULT_PORT)


def server_running(address: AdbAddress, timeout_s: float = 0.5) -> bool:
    try:
        with socket.create_connection((address.host, address.port), timeout=timeout_s):
            return True
    except OSError:
        return False


def start_server(address: AdbAddress) -> None:
    """Start the adb server like `adb devices` would, or say how to install adb."""
    program = shutil.which("adb")
    if program is None:
        raise DeviceError(
            f"adb is not installed and no adb server runs on {address}: install it "
            "(Debian/Ubuntu: sudo apt install adb; or Android platform-tools) and retry")
    if address.host not in ("127.0.0.1", "localhost", "::1"):
        raise DeviceError(f"no adb server answers on {address}")
    try:
        subprocess.run([program, "-P", str(address.port), "start-server"], timeout=20,
                       capture_output=True, check=True)
    except (subprocess.SubprocessError, OSError) as exc:
        raise DeviceError(f"could not start the adb server on {address}: {exc}") from None


def client(address: AdbAddress | None = None, start: bool = True) -> Any:
    """An adbutils client for a running server (started here when `start`)."""
    from adbutils import AdbClient

    address = address or server_address()
    if not server_running(address):
        if not start:
            raise DeviceError(f"no adb server runs on {address}")
        start_server(address)
    return AdbClient(host=address.host, port=address.port, socket_timeout=SHELL_TIMEOUT_S)


@dataclass(frozen=True)
class Attached:
    """One line of `adb devices -l`."""

    serial: str
    state: str
    model: str | None = None


def attached(adb: Any) -> list[Attached]:
    from adbutils.errors import AdbError

    try:
        infos = adb.list(extended=True)
    except (AdbError, OSError) as exc:
        raise DeviceError(f"the adb server on {adb.host}:{adb.port} failed: {exc}") from None
    return [Attached(i.serial, i.state, (i.tags or {}).get("model")) for i in infos]


def choose_serial(devices: list[Attached], wanted: str | None) -> str:
    """The phone to use: the one asked for (`--device`, ANDROID_SERIAL) or the only one."""
    if wanted:
        match = next((d for d in devices if d.serial == wanted), None)
        if match is None:
            listing = ", ".join(d.serial for d in devices) or "none"
            raise DeviceError(f"no phone with serial {wanted} is attached (attached: {listing})")
        check_state(match)
        return match.serial
    if not devices:
        raise DeviceError("no Android phone is attached: connect one by USB with USB debugging "
                          "on (docs: drivers/android.md), or run 'adb connect HOST:PORT'")
    if len(devices) > 1:
        listing = ", ".join(f"{d.serial} ({d.state})" for d in devices)
        raise UsageError(f"several phones are attached: {listing}; choose one with --device "
                         "SERIAL or ANDROID_SERIAL")
    check_state(devices[0])
    return devices[0].serial


def check_state(device: Attached) -> None:
    if device.state == "device":
        return
    if device.state == "unauthorized":
        raise DeviceError(f"the phone {device.serial} has not authorised this computer: "
                          f"{AUTHORISE_HINT}")
    if device.state == "offline":
        raise DeviceError(f"the phone {device.serial} is offline: reconnect the cable or run "
                          "'adb reconnect'")
    raise DeviceError(f"the phone {device.serial} is in state '{device.state}', not ready")


@dataclass(frozen=True)
class Output:
    """A finished shell command."""

    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return (self.out + self.err).strip()

    def first_line(self) -> str:
        lines = [line.strip() for line in self.text.splitlines() if line.strip()]
        return lines[0][:300] if lines else f"exit code {self.code}"


class Link:
    """Shell commands and binary output for one phone, with failures classified."""

    def __init__(self, adb: Any, serial: str) -> None:
        self.adb = adb
        self.serial = serial
        self._tport = self._server_version() >= 41
        self.features = set(self._host_query("features").split(","))
        self.v2 = "shell_v2" in self.features

    def run(self, command: str, timeout_s: float = SHELL_TIMEOUT_S) -> Output:
        """Run one `sh -c` line on the phone; exit code through shell v2 when available."""
        if self.v2:
            data = self._stream(f"shell,v2,raw:{command}", timeout_s)
            return _parse_v2(data, self, command)
        data = self._stream(f"shell:{command}; echo {V1_EXIT_MARK}$?", timeout_s)
        text = data.decode("utf-8", "replace")
        head, mark, code = text.rpartition(V1_EXIT_MARK)
        if not mark:
            raise self.lost(f"the output of '{command[:60]}' ended early")
        return Output(int(code.strip() or 255), head, "")

    def check(self, command: str, timeout_s: float = SHELL_TIMEOUT_S) -> Output:
        """`run`, turning a failing exit code into an `ActionFailed`."""
        result = self.run(command, timeout_s)
        if result.code != 0:
            raise ActionFailed(f"'{command.split()[0]}' failed on the phone: "
                               f"{result.first_line()}")
        return result

    def binary(self, command: str, timeout_s: float = SHELL_TIMEOUT_S) -> bytes:
        """Standard output only, byte for byte (screenshots)."""
        if self.v2:
            result = _split_v2(self._stream(f"shell,v2,raw:{command}", timeout_s))
            if result is None:
                raise self.lost(f"the output of '{command[:60]}' ended early")
            out, _err, code = result
            if code != 0:
                raise ActionFailed(f"'{command}' failed on the phone (exit code {code})")
            return out
        return self._stream(f"exec:{command}", timeout_s)

    def state(self) -> str:
        """The phone's state as the server sees it now ('gone' when not listed)."""
        try:
            devices = attached(self.adb)
        except DeviceError:
            return "no adb server"
        return next((d.state for d in devices if d.serial == self.serial), "gone")

    def lost(self, detail: str) -> Exception:
        """A `DeviceError` when the phone is no longer usable, else an `ActionFailed`."""
        state = self.state()
        if state == "device":
            return ActionFailed(f"adb: {detail}")
        if state == "no adb server":
            return DeviceError(f"the adb server on {self.adb.host}:{self.adb.port} stopped")
        if state == "unauthorized":
            return DeviceError(f"the phone {self.serial} revoked this computer's authorisation: "
                               f"{AUTHORISE_HINT}")
        if state == "gone":
            return DeviceError(f"the phone {self.serial} disconnected")
        if state == "offline":
            return DeviceError(f"the phone {self.serial} went offline (disconnected?): reconnect "
                               "the cable, or 'adb connect' it again")
        return DeviceError(f"the phone {self.serial} is {state}")

    # ------------------------------------------------------------------ plumbing
    def _server_version(self) -> int:
        from adbutils.errors import AdbError

        try:
            return int(self.adb.server_version())
        except (AdbError, OSError) as exc:
            raise DeviceError(f"the adb server on {self.adb.host}:{self.adb.port} failed: "
                              f"{exc}") from None

    def _host_query(self, what: str) -> str:
        from adbutils.errors import AdbError

        try:
            with self.adb.make_connection(timeout=10) as conn:
                conn.send_command(f"host-serial:{self.serial}:{what}")
                conn.check_okay()
                return str(conn.read_string_block())
        except (AdbError, OSError, EOFError) as exc:
            raise self.lost(f"{what}: {exc}") from None

    def _stream(self, service: str, timeout_s: float) -> bytes:
        """Open `service` on the phone and read everything until the phone closes it."""
        from adbutils.errors import AdbError

        try:
            conn = self.adb.make_connection(timeout=timeout_s)
        except (AdbError, OSError) as exc:
            raise DeviceError(f"the adb server on {self.adb.host}:{self.adb.port} went away: "
                              f"{exc}") from None
        sock = conn.conn
        try:
            if self._tport:
                conn.send_command(f"host:tport:serial:{self.serial}")
                conn.check_okay()
                conn.read_exact(8)  # the transport id
            else:
                conn.send_command(f"host:transport:{self.serial}")
                conn.check_okay()
            conn.send_command(service)
            conn.check_okay()
            return _read_to_end(sock)
        except (AdbError, OSError, EOFError) as exc:
            raise self.lost(f"{service.split(':')[0]} failed: {exc}") from None
        finally:
            sock.close()


def _read_to_end(sock: socket.socket) -> bytes:
    """Everything until the peer closes, in linear time (frames can be 10 MB)."""
    buffer = bytearray()
    while True:
        chunk = sock.recv(1 << 20)
        if not chunk:
            return bytes(buffer)
        buffer += chunk


def _split_v2(data: bytes) -> tuple[bytes, bytes, int] | None:
    """Shell v2 packets (id, u32 length, payload) into stdout, stderr and exit code.

    None when the exit packet never came: the stream was cut, not finished.
    """
    out, err = bytearray(), bytearray()
    view = memoryview(data)
    offset = 0
    while offset + 5 <= len(view):
        kind, length = struct.unpack_from("<BI", view, offset)
        payload = view[offset + 5:offset + 5 + length]
        offset += 5 + length
        if kind == 1:
            out += payload
        elif kind == 2:
            err += payload
        elif kind == 3:
            return bytes(out), bytes(err), payload[0] if len(payload) else 255
    return None


def _parse_v2(data: bytes, link: Link, command: str) -> Output:
    result = _split_v2(data)
    if result is None:
        raise link.lost(f"the output of '{command[:60]}' ended early")
    out, err, code = result
    return Output(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
