"""The simulated phone: adb device protocol on loopback, apps, files and a command log."""

from __future__ import annotations

import copy
import random
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PIL import Image

from venusctl.sim.phone import render
from venusctl.sim.phone.app import (
    ADB_IME,
    APPS,
    CLIPPER,
    LATIN_IME,
    LAUNCHER,
    Apps,
    PhoneState,
    Widget,
)
from venusctl.sim.phone.commands import Commands
from venusctl.sim.phone.shell import Result, Shell
from venusctl.sim.phone.transport import Listener, Stream

GRID = 1000  # the model's mobile grid divisor (venusctl.core.grid)


@dataclass
class PhoneConfig:
    """What kind of phone to simulate; every field can be changed per test."""

    model: str = "Venus Phone"
    manufacturer: str = "Venus"
    android_version: str = "14"
    sdk: int = 34
    size: tuple[int, int] = (540, 960)
    override_size: tuple[int, int] | None = None
    density: int = 240
    override_density: int | None = None
    rotation: int = 0
    adb_keyboard: bool = True
    clipper: bool = False
    draganddrop: bool = True
    raw_screencap: bool = True
    refuse_auth: bool = False
    shell_v2: bool = True
    """False: an old phone (before Android 7) with only `shell:` and `exec:`."""
    texts: dict[str, list[str]] = field(default_factory=dict)
    """Extra lines shown on a screen ("home", "settings", "notes", "shop", "shop_confirm",
    "gallery"): for injected-instruction and other content tests."""
    input_s: tuple[float, float] = (0.0, 0.0)
    """Seconds each `input` command takes, drawn from this range once per shell line
    (a real phone starts a Java process for each: 0.3-1 s)."""
    dump_s: tuple[float, float] = (0.0, 0.0)
    """Seconds `uiautomator dump` takes (1-3 s on real phones); with a nonzero range it
    fails, as real ones do, when the screen animates during the dump."""
    seed: int = 0
    """For the random timings: the same seed, the same run."""

    @classmethod
    def realistic(cls, **changes: object) -> PhoneConfig:
        """A phone that behaves like a real one where the simulator is otherwise kind:
        `input` 0.3-1 s, dumps 1-3 s that fail while the screen animates, and no ADB
        Keyboard (most phones have none) unless asked for."""
        settings: dict[str, object] = {"input_s": (0.3, 1.0), "dump_s": (1.0, 3.0),
                                       "adb_keyboard": False}
        return cls(**{**settings, **changes})  # type: ignore[arg-type]


class FakePhone:
    """A phone that adbd-speaking clients (the real adb server) can attach to."""

    def __init__(self, config: PhoneConfig | None = None) -> None:
        self.config = config or PhoneConfig()
        self.state = PhoneState(texts=copy.deepcopy(self.config.texts))
        self.apps = Apps(self.state, self.logical_size())
        self.commands = Commands(self)
        self.services: list[str] = []
        self.executed: list[str] = []
        self.scanned: list[str] = []
        self.disconnect_when: Callable[[str], bool] | None = None
        self.listener: Listener | None = None
        self.random = random.Random(self.config.seed)
        self._random_lock = threading.Lock()
        self._frame_key: str | None = None
        self._frame: Image.Image | None = None

    # ------------------------------------------------------------------ network
    def start(self, port: int = 0) -> FakePhone:
        self.listener = Listener(self.banner, self.serve, lambda: self.config.refuse_auth, port)
        return self

    @property
    def port(self) -> int:
        assert self.listener is not None, "start() the phone first"
        return self.listener.port

    @property
    def serial(self) -> str:
        return f"127.0.0.1:{self.port}"

    def banner(self) -> str:
        model = self.config.model.replace(" ", "_")
        features = "shell_v2,cmd" if self.config.shell_v2 else "cmd"
        return (f"device::ro.product.name=venus;ro.product.model={model};"
                f"ro.product.device=venus;features={features}")

    def disconnect(self) -> None:
        """Vanish like an unplugged cable: connections cut, no reconnection possible."""
        if self.listener is not None:
            self.listener.stop()

    def stop(self) -> None:
        self.disconnect()

    # ----------------------------------------------------------------- services
    def serve(self, name: str, stream: Stream) -> None:
        self.services.append(name)
        if self.disconnect_when is not None and self.disconnect_when(name):
            threading.Thread(target=self.disconnect, daemon=True).start()
            return
        if name.startswith(("shell", "exec:")):
            self._shell(name, stream)
        elif name == "sync:":
            _sync(self, stream)

    def _shell(self, name: str, stream: Stream) -> None:
        service, _, line = name.partition(":")
        if not line:
            return  # interactive shells are not simulated
        result = Shell(self.commands.line()).run(line)
        if service.startswith("shell,v2") and not self.config.shell_v2:
            stream.write(b"FAIL")  # never reached through adb: the server checks features
            return
        if service.startswith("shell,v2"):
            for kind, data in ((1, result.out), (2, result.err)):
                if data:
                    stream.write(struct.pack("<BI", kind, len(data)) + data)
            stream.write(struct.pack("<BIB", 3, 1, result.code & 0xFF))
        else:
            stream.write(result.out + result.err)

    def run(self, line: str) -> Result:
        """Run a shell line directly (tests set state up this way, without adb)."""
        return Shell(self.commands.line()).run(line)

    def seconds(self, span: tuple[float, float]) -> float:
        """A random duration within `span` (thread-safe, from the phone's seed)."""
        low, high = span
        if high <= 0:
            return 0.0
        with self._random_lock:
            return self.random.uniform(low, high)

    def animate(self, seconds: float) -> None:
        """Keep the screen moving for a while (a spinner, a video): dumps fail meanwhile."""
        with self.apps.lock:
            self.state.animate_until = time.monotonic() + seconds

    # ------------------------------------------------------------------ display
    def logical_size(self) -> tuple[int, int]:
        """The size input coordinates and the hierarchy use, in the current rotation."""
        w, h = self.config.override_size or self.config.size
        return (h, w) if self.config.rotation % 2 else (w, h)

    def frame_size(self) -> tuple[int, int]:
        """The size of a captured frame (the panel, in the current rotation)."""
        w, h = self.config.size
        return (h, w) if self.config.rotation % 2 else (w, h)

    def rotate(self, rotation: int) -> None:
        self.config.rotation = rotation % 4
        self.apps.size = self.logical_size()

    def frame(self) -> Image.Image:
        with self.apps.lock:
            root = self.apps.widgets()
            animating = self.state.animate_until > time.monotonic()
            key = repr(root) + repr(self.frame_size())
            if not animating and key == self._frame_key and self._frame is not None:
                return self._frame
            image = render.draw_frame(root, self.logical_size(), self.state.animate_until)
        if image.size != self.frame_size():
            image = image.resize(self.frame_size(), Image.Resampling.BILINEAR)
        if not animating:
            self._frame_key, self._frame = key, image
        return image

    def input_point(self, x: str, y: str) -> tuple[int, int]:
        return (int(float(x)), int(float(y)))

    # -------------------------------------------------------------- inventory
    def properties(self) -> dict[str, str]:
        c = self.config
        return {"ro.product.model": c.model, "ro.product.manufacturer": c.manufacturer,
                "ro.build.version.release": c.android_version, "ro.build.version.sdk": str(c.sdk),
                "ro.product.name": "venus", "ro.serialno": "VENUS0001"}

    def packages(self) -> list[str]:
        names = [LAUNCHER, "com.android.systemui", "com.android.inputmethod.latin",
                 *(a.package for a in APPS)]
        if self.config.adb_keyboard:
            names.append(ADB_IME.split("/")[0])
        if self.config.clipper:
            names.append(CLIPPER)
        return names

    def launchable(self) -> list[tuple[str, str]]:
        return [(a.package, a.activity) for a in APPS]

    def imes(self) -> list[str]:
        return [LATIN_IME, ADB_IME] if self.config.adb_keyboard else [LATIN_IME]

    # ------------------------------------------------------------ test helpers
    def find(self, text: str | None = None, rid: str | None = None) -> Widget:
        """The widget on the current screen with this text/description or resource id."""
        for widget in self.apps.widgets().walk():
            if (text is not None and text in (widget.text, widget.desc)) or (
                    rid is not None and widget.rid.endswith(rid)):
                return widget
        raise LookupError(f"no widget {text or rid!r} on screen {self.state.screen}")

    def grid_of(self, widget: Widget) -> tuple[int, int]:
        """The widget's centre on the model's 0..999 grid (for scripted answers)."""
        left, top, right, bottom = widget.box
        w, h = self.logical_size()
        return ((left + right) * GRID // (2 * w), (top + bottom) * GRID // (2 * h))

    def grid_on(self, screen: str, text: str | None = None, rid: str | None = None
                ) -> tuple[int, int]:
        """`grid_of` a widget on a screen that is not showing yet (to script answers)."""
        with self.apps.lock:
            saved = list(self.state.stack)
            self.state.stack.append(screen)
            try:
                return self.grid_of(self.find(text=text, rid=rid))
            finally:
                self.state.stack[:] = saved

    def inputs(self) -> list[str]:
        """Every `input`, `am`, `monkey` and `ime` command run, in order."""
        kinds = ("input ", "am ", "monkey ", "ime ")
        return [c for c in self.executed if c.startswith(kinds)]


def _sync(phone: FakePhone, stream: Stream) -> None:
    """The file-transfer service: STAT, RECV, SEND and LIST over the phone's files."""
    files = phone.state.files
    while True:
        request = stream.read_exact(8)
        command, length = request[:4], struct.unpack("<I", request[4:])[0]
        if command == b"QUIT":
            return
        path = stream.read_exact(length).decode()
        if command == b"STAT":
            data = files.get(path)
            mode, size = (0o100644, len(data)) if data is not None else (0, 0)
            stream.write(b"STAT" + struct.pack("<III", mode, size, int(time.time()) if mode else 0))
        elif command == b"RECV":
            _send_file(files.get(path), path, stream)
        elif command == b"SEND":
            files[path.rsplit(",", 1)[0]] = _receive_file(stream)
            stream.write(b"OKAY" + struct.pack("<I", 0))
        elif command == b"LIST":
            prefix = path.rstrip("/") + "/"
            for name in sorted(p[len(prefix):] for p in files if p.startswith(prefix)):
                entry = name.encode()
                size = len(files[prefix + name])
                stream.write(b"DENT" + struct.pack("<IIII", 0o100644, size, 0, len(entry)) + entry)
            stream.write(b"DONE" + struct.pack("<IIII", 0, 0, 0, 0))
        else:
            message = b"unsupported sync request"
            stream.write(b"FAIL" + struct.pack("<I", len(message)) + message)
            return


def _send_file(data: bytes | None, path: str, stream: Stream) -> None:
    if data is None:
        message = f"open failed: No such file or directory: {path}".encode()
        stream.write(b"FAIL" + struct.pack("<I", len(message)) + message)
        return
    for start in range(0, len(data), 64 * 1024):
        chunk = data[start:start + 64 * 1024]
        stream.write(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
    stream.write(b"DONE" + struct.pack("<I", 0))


def _receive_file(stream: Stream) -> bytes:
    data = b""
    while True:
        header = stream.read_exact(8)
        length = struct.unpack("<I", header[4:])[0]
        if header[:4] == b"DONE":
            return data
        data += stream.read_exact(length)
