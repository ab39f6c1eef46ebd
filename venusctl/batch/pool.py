"""The surfaces a batch runs on, and handing them out one task at a time.

A slot is one surface that runs one task at a time: a phone (by serial, on the
local adb server or a remote one, `SERIAL@HOST:PORT`), a browser context (a local
Chromium, or a context on a Playwright browser server or a CDP endpoint shared by
several slots), or the desktop (there is only one pointer, so one slot). Slots hold
settings, not open drivers: each task opens its own driver in its worker thread
(Playwright's sync API is bound to the thread that started it) and closes it after
its checks, so every task starts from a fresh context.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

from venusctl.batch.taskfile import TaskSpec
from venusctl.core.errors import UsageError
from venusctl.drivers.android.adb import AdbAddress
from venusctl.drivers.factory import DriverOptions


@dataclass(frozen=True)
class PhoneSpec:
    """`SERIAL`, `SERIAL@HOST:PORT` or `@HOST:PORT` (every phone on that adb server)."""

    serial: str | None
    server: AdbAddress | None

    @classmethod
    def parse(cls, text: str) -> PhoneSpec:
        serial, at, server = text.strip().rpartition("@") if "@" in text else (text, "", "")
        address = _address(server, text) if at else None
        if not serial and address is None:
            raise UsageError(f"--phone '{text}': give SERIAL, SERIAL@HOST:PORT or @HOST:PORT")
        return cls(serial.strip() or None, address)


def _address(text: str, whole: str) -> AdbAddress:
    address = AdbAddress.parse(text)
    if address is None:
        raise UsageError(f"'{whole}': the adb server must be HOST:PORT (e.g. lab-pc:5037)")
    return address


@dataclass(frozen=True)
class Slot:
    """One surface; `options` are the driver settings every task on it starts from."""

    label: str
    driver: str
    options: DriverOptions
    serial: str | None = None
    server: AdbAddress | None = None

    def accepts(self, task: TaskSpec) -> bool:
        if task.driver != self.driver:
            return False
        if task.driver != "android" or not task.device:
            return True
        wanted = PhoneSpec.parse(task.device)
        return wanted.serial == self.serial and (
            wanted.server is None or wanted.server == self.server)

    def options_for(self, task: TaskSpec) -> DriverOptions:
        """This slot's settings with the task's start page and its own (viewport, ...)."""
        return task.driver_options(
            replace(self.options, url=task.url if self.driver == "web" else None))


@dataclass
class PoolOptions:
    """Where the surfaces are, from the command line."""

    concurrency: int = 1
    phones: tuple[str, ...] = ()
    browser_servers: tuple[str, ...] = ()
    cdp_endpoints: tuple[str, ...] = ()
    base: DriverOptions | None = None


def build_slots(tasks: tuple[TaskSpec, ...], options: PoolOptions) -> list[Slot]:
    """The slots the tasks need: browser contexts up to the concurrency, every phone
    named (or, when none is, every phone the adb server lists), one desktop."""
    kinds = {t.driver for t in tasks}
    base = options.base or DriverOptions()
    slots: list[Slot] = []
    if "web" in kinds:
        slots += _web_slots(options, base)
    if "android" in kinds:
        slots += _phone_slots(tasks, options, base)
    if "desktop" in kinds:
        slots.append(Slot("desktop", "desktop", replace(base, driver="desktop")))
    return slots


def _web_slots(options: PoolOptions, base: DriverOptions) -> list[Slot]:
    remotes = [("connect", url) for url in options.browser_servers] + [
        ("cdp", url) for url in options.cdp_endpoints]
    count = max(options.concurrency, len(remotes), 1)
    slots = []
    for index in range(count):
        settings = replace(base, driver="web")
        where = "local"
        if remotes:
            kind, url = remotes[index % len(remotes)]
            settings = replace(settings, browser_server=url if kind == "connect" else None,
                               cdp_url=url if kind == "cdp" else None)
            where = url
        slots.append(Slot(f"web-{index + 1} ({where})" if remotes else f"web-{index + 1}",
                          "web", settings))
    return slots


def _phone_slots(tasks: tuple[TaskSpec, ...], options: PoolOptions, base: DriverOptions
                 ) -> list[Slot]:
    specs = [PhoneSpec.parse(text) for text in options.phones]
    pinned = [PhoneSpec.parse(t.device) for t in tasks if t.driver == "android" and t.device]
    if not specs and not pinned:
        specs = [PhoneSpec(None, None)]
    found: dict[tuple[str, AdbAddress | None], None] = {}
    for spec in specs:
        for serial in _serials(spec):
            found[(serial, spec.server)] = None
    for spec in pinned:  # a phone a task names, unless the pool has it already
        if spec.serial and not any(serial == spec.serial and (spec.server in (None, server))
                                   for serial, server in found):
            found[(spec.serial, spec.server)] = None
    return [Slot(serial + (f"@{server}" if server else ""), "android",
                 replace(base, driver="android", device=serial,
                         adb_server=str(server) if server else None), serial, server)
            for serial, server in found]


def _serials(spec: PhoneSpec) -> list[str]:
    if spec.serial:
        return [spec.serial]
    from venusctl.drivers.android.devices import attached_now

    return [p.serial for p in attached_now(spec.server) if p.state == "device"]


class SlotPool:
    """Hands out free slots; a task waits only for a slot that can run it."""

    def __init__(self, slots: list[Slot]) -> None:
        self.slots = slots
        self._free = list(slots)
        self._lock = threading.Lock()

    def can_run(self, task: TaskSpec) -> bool:
        return any(slot.accepts(task) for slot in self.slots)

    def try_take(self, task: TaskSpec) -> Slot | None:
        with self._lock:
            for slot in self._free:
                if slot.accepts(task):
                    self._free.remove(slot)
                    return slot
        return None

    def give_back(self, slot: Slot) -> None:
        with self._lock:
            self._free.append(slot)
