"""The adb *device* protocol, as a daemon on a phone speaks it to the adb server.

Every message is a 24-byte header (command, arg0, arg1, payload length, payload
checksum, command ^ 0xffffffff) followed by the payload. The server opens a stream
per service with OPEN; the device answers OKAY, sends output in WRTE packets (each
acknowledged with OKAY before the next) and ends with CLSE. There is no AUTH unless
the phone is told to refuse this computer, like an emulator with secure adb off.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

A_CNXN = 0x4E584E43
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_WRTE = 0x45545257
A_CLSE = 0x45534C43
A_AUTH = 0x48545541
A_VERSION = 0x01000001  # "skip checksum" version: the server does not verify payload sums
MAX_PAYLOAD = 1024 * 1024
AUTH_TOKEN, AUTH_SIGNATURE, AUTH_RSAPUBLICKEY = 1, 2, 3
HEADER = struct.Struct("<6I")
ACK_TIMEOUT_S = 20.0


class StreamClosed(Exception):
    """The server closed the stream (or the whole connection) under a service."""


@dataclass
class Packet:
    command: int
    arg0: int
    arg1: int
    payload: bytes


def encode(command: int, arg0: int, arg1: int, payload: bytes = b"") -> bytes:
    check = sum(payload) & 0xFFFFFFFF if len(payload) < 4096 else 0
    return HEADER.pack(command, arg0, arg1, len(payload), check, command ^ 0xFFFFFFFF) + payload


def read_packet(sock: socket.socket) -> Packet | None:
    header = _read_exact(sock, HEADER.size)
    if header is None:
        return None
    command, arg0, arg1, length, _check, magic = HEADER.unpack(header)
    if magic != command ^ 0xFFFFFFFF:
        raise ValueError(f"bad adb packet magic {magic:#x}")
    payload = _read_exact(sock, length) if length else b""
    if payload is None:
        return None
    return Packet(command, arg0, arg1, payload)


def _read_exact(sock: socket.socket, n: int) -> bytes | None:
    chunks = bytearray()
    while len(chunks) < n:
        try:
            chunk = sock.recv(n - len(chunks))
        except OSError:
            return None
        if not chunk:
            return None
        chunks += chunk
    return bytes(chunks)


class Stream:
    """One OPENed service: what the device writes waits for the server's OKAY."""

    def __init__(self, conn: Connection, local_id: int, remote_id: int) -> None:
        self.conn = conn
        self.local_id = local_id
        self.remote_id = remote_id
        self._inbox = bytearray()
        self._cond = threading.Condition()
        self._acked = threading.Event()
        self.closed = False

    def write(self, data: bytes) -> None:
        step = self.conn.max_payload
        for start in range(0, len(data), step):
            if self.closed:
                raise StreamClosed
            self._acked.clear()
            self.conn.send(A_WRTE, self.local_id, self.remote_id, data[start:start + step])
            if not self._acked.wait(ACK_TIMEOUT_S) or self.closed:
                raise StreamClosed

    def read_exact(self, n: int) -> bytes:
        with self._cond:
            while len(self._inbox) < n:
                if self.closed:
                    raise StreamClosed
                self._cond.wait(0.5)
            data = bytes(self._inbox[:n])
            del self._inbox[:n]
            return data

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.conn.send(A_CLSE, self.local_id, self.remote_id)
            self.conn.forget(self.local_id)
        self._wake()

    # called from the connection's reader thread
    def received(self, data: bytes) -> None:
        with self._cond:
            self._inbox += data
            self._cond.notify_all()

    def acked(self) -> None:
        self._acked.set()

    def remote_closed(self) -> None:
        self.closed = True
        self._wake()

    def _wake(self) -> None:
        self._acked.set()
        with self._cond:
            self._cond.notify_all()


ServiceHandler = Callable[[str, Stream], None]


class Connection:
    """One TCP connection from the adb server: a reader loop plus a thread per stream."""

    def __init__(self, sock: socket.socket, banner: str, service: ServiceHandler,
                 refuse_auth: bool = False) -> None:
        self.sock = sock
        self.banner = banner
        self.service = service
        self.refuse_auth = refuse_auth
        self.max_payload = 256 * 1024
        self._send_lock = threading.Lock()
        self._streams: dict[int, Stream] = {}
        self._next_id = 1
        self._lock = threading.Lock()
        self.alive = True

    def send(self, command: int, arg0: int, arg1: int, payload: bytes = b"") -> None:
        data = encode(command, arg0, arg1, payload)
        with self._send_lock:
            try:
                self.sock.sendall(data)
            except OSError:
                self.alive = False

    def forget(self, local_id: int) -> None:
        with self._lock:
            self._streams.pop(local_id, None)

    def serve(self) -> None:
        try:
            while self.alive:
                packet = read_packet(self.sock)
                if packet is None:
                    break
                self._dispatch(packet)
        except (OSError, ValueError) as exc:
            log.debug("fake phone connection ended: %s", exc)
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        self.alive = False
        with self._lock:
            streams = list(self._streams.values())
            self._streams.clear()
        for stream in streams:
            stream.remote_closed()
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()

    def _dispatch(self, packet: Packet) -> None:
        if packet.command == A_CNXN:
            self.max_payload = max(4096, min(packet.arg1, MAX_PAYLOAD))
            if self.refuse_auth:
                self.send(A_AUTH, AUTH_TOKEN, 0, os.urandom(20))
            else:
                self.send(A_CNXN, A_VERSION, self.max_payload, self.banner.encode())
        elif packet.command == A_AUTH:
            if packet.arg0 == AUTH_SIGNATURE:  # never accept: this computer is not authorised
                self.send(A_AUTH, AUTH_TOKEN, 0, os.urandom(20))
        elif packet.command == A_OPEN:
            self._open(packet)
        else:
            self._stream_packet(packet)

    def _open(self, packet: Packet) -> None:
        name = packet.payload.rstrip(b"\0").decode("utf-8", "replace")
        with self._lock:
            local_id = self._next_id
            self._next_id += 1
            stream = Stream(self, local_id, packet.arg0)
            self._streams[local_id] = stream
        self.send(A_OKAY, local_id, packet.arg0)
        threading.Thread(target=self._run_service, args=(name, stream), daemon=True,
                         name=f"fakephone-{name[:20]}").start()

    def _run_service(self, name: str, stream: Stream) -> None:
        try:
            self.service(name, stream)
        except StreamClosed:
            pass
        except Exception:  # a bug in the fake must not kill the connection
            log.exception("fake phone service %r failed", name)
        finally:
            stream.close()

    def _stream_packet(self, packet: Packet) -> None:
        with self._lock:
            stream = self._streams.get(packet.arg1)
        if stream is None:
            if packet.command == A_WRTE:
                self.send(A_CLSE, 0, packet.arg0)
            return
        if packet.command == A_OKAY:
            stream.acked()
        elif packet.command == A_WRTE:
            stream.received(packet.payload)
            self.send(A_OKAY, stream.local_id, stream.remote_id)
        elif packet.command == A_CLSE:
            stream.remote_closed()
            self.forget(stream.local_id)


class Listener:
    """Accepts the adb server's connections on a loopback port."""

    def __init__(self, banner: Callable[[], str], service: ServiceHandler,
                 refuse_auth: Callable[[], bool], port: int = 0) -> None:
        self._banner = banner
        self._service = service
        self._refuse_auth = refuse_auth
        self.sock = _bind(port)
        self.port = self.sock.getsockname()[1]
        self.connections: list[Connection] = []
        self._stopped = False
        self._thread = threading.Thread(target=self._accept, daemon=True, name="fakephone-accept")
        self._thread.start()

    def _accept(self) -> None:
        while not self._stopped:
            try:
                sock, _ = self.sock.accept()
            except OSError:
                return
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Connection(sock, self._banner(), self._service, self._refuse_auth())
            self.connections.append(conn)
            threading.Thread(target=conn.serve, daemon=True, name="fakephone-conn").start()

    def drop_connections(self) -> None:
        """Cut every live connection, as pulling the cable would."""
        for conn in list(self.connections):
            conn.shutdown()
        self.connections.clear()

    def stop(self) -> None:
        self._stopped = True
        with contextlib.suppress(OSError):
            self.sock.close()
        self.drop_connections()


def _bind(port: int) -> socket.socket:
    """A loopback listener outside 5555-5585, the range the adb server scans for emulators."""
    for _ in range(20):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        if port or not 5555 <= sock.getsockname()[1] <= 5585:
            sock.listen(8)
            return sock
        sock.close()
    raise OSError("no free loopback port outside 5555-5585")
