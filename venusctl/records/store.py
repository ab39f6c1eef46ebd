"""Run records: one folder per run that survives Ctrl-C, dead devices and crashes.

  RUN_DIR/run.json      task, model, driver, settings, outcome (rewritten atomically)
  RUN_DIR/steps.jsonl   one JSON object per step, appended and fsync'ed at once
  RUN_DIR/step-NNN.png  the screenshot the model saw at that step (or .jpg)

Both JSON files carry `schema` (see `venusctl.records.schema`); `StoredRun` reads a
run back as typed objects (`RecordedRun`, `StepRecord`), whatever version wrote it.

`run.json` is written when the run starts with outcome "running", so even a run
killed with SIGKILL leaves a readable record; every other ending rewrites it.

A full disk ends the run with one line and exit 1 (`RecordError`), never a
traceback: a file cut short is removed (or, for `steps.jsonl`, cut back to its last
whole line), no temporary file is left behind, and `run.json` is closed all the
same: it is written with spare room at its end, so its final version can be
written over it in place without needing a single new block on the disk.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import secrets
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from platformdirs import user_data_path

from venusctl.core.errors import ExitCode, UsageError, VenusError
from venusctl.drivers.base import Screen
from venusctl.records.schema import SCHEMA, RecordedOutcome, RecordedRun, schema_of, typed

log = logging.getLogger(__name__)

RUN_FILE = "run.json"
STEPS_FILE = "steps.jsonl"
RUN_FILE_ROOM = 8192  # bytes run.json keeps, so it can be closed in place on a full disk
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


class RecordError(VenusError):
    """The run's record cannot be written (a full disk, a folder that went away)."""

    exit_code = ExitCode.FAILED


def record_error(exc: OSError, path: Path) -> RecordError:
    """One line saying why a record file could not be written."""
    if exc.errno in DISK_FULL:
        return RecordError(f"no space left on the disk for the run record ({path})")
    return RecordError(f"cannot write the run record {path}: {exc.strerror or exc}")


def default_runs_dir() -> Path:
    """Where runs live unless `--runs-dir` or `VENUSCTL_RUNS_DIR` says otherwise."""
    env = os.environ.get("VENUSCTL_RUNS_DIR")
    return Path(env) if env else user_data_path("venusctl") / "runs"


@dataclass
class RunInfo:
    """What a run is: written to run.json before the first step."""

    run_id: str
    task: str
    surface: str
    driver: str
    model: str
    run_dir: Path
    settings: dict[str, Any] = field(default_factory=dict)
    started_at: float = field(default_factory=time.time)


@dataclass
class Outcome:
    """How a run ended; `status` is one word, `message` the final answer or reason."""

    status: str
    exit_code: ExitCode
    message: str = ""
    steps: int = 0
    ended_at: float = field(default_factory=time.time)

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "exit_code": int(self.exit_code),
            "message": self.message,
            "steps": self.steps,
            "ended_at": self.ended_at,
        }


@dataclass
class StepRecord:
    """Everything about one step, as stored in steps.jsonl."""

    step: int
    started_at: float
    screen_size: tuple[int, int] | None = None
    context: dict[str, str] = field(default_factory=dict)
    raw: str = ""
    thought: str = ""
    action_text: str | None = None
    action: str | None = None
    action_kind: str | None = None
    grid: list[list[int]] = field(default_factory=list)
    pixels: list[list[int]] = field(default_factory=list)
    placed: str | None = None
    element: dict[str, Any] | None = None
    targets: list[dict[str, Any]] = field(default_factory=list)
    verdict: dict[str, str] | None = None
    reply: str | None = None
    feedback: str | None = None
    result: dict[str, Any] | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    parse_errors: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    model: dict[str, Any] = field(default_factory=dict)
    source: str = "asked"
    """Where the answer came from: "asked" (the model) or "replayed" (the trajectory cache)."""
    timings: dict[str, float] = field(default_factory=dict)
    image: str | None = None
    screen: Screen | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("screen", None)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str) -> StepRecord:
        """A step line read back (any schema up to `SCHEMA`; see `venusctl.records.schema`)."""
        schema_of(data, where)
        return typed(cls, {k: v for k, v in data.items() if k != "screen"})


def new_run_id(task: str, now: float | None = None) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now or time.time()))
    slug = re.sub(r"[^a-z0-9]+", "-", task.lower()).strip("-")[:32].strip("-") or "run"
    return f"{stamp}-{slug}-{secrets.token_hex(2)}"


class Recorder:
    """Writes one run's folder as the run happens."""

    def __init__(self, runs_dir: Path, task: str) -> None:
        self.run_id = new_run_id(task)
        self.run_dir = runs_dir / self.run_id
        try:
            self.run_dir.mkdir(parents=True, exist_ok=False)
        except OSError as exc:
            if exc.errno in DISK_FULL:
                raise record_error(exc, self.run_dir) from None
            raise UsageError(f"cannot create the run folder {self.run_dir}: {exc}") from None
        self._info: dict[str, Any] = {}
        self._steps = self.run_dir / STEPS_FILE
        self._closed = False

    def start(self, info: RunInfo) -> None:
        self._info = {
            "schema": SCHEMA,
            "run_id": info.run_id,
            "task": info.task,
            "surface": info.surface,
            "driver": info.driver,
            "model": info.model,
            "settings": info.settings,
            "started_at": info.started_at,
            "outcome": {"status": "running"},
        }
        try:
            self._write_run()
            self._steps.touch()
        except OSError as exc:
            self._abandon()
            raise record_error(exc, self.run_dir) from None

    def step(self, record: StepRecord) -> None:
        """Append one step (and keep its screenshot); RecordError when the disk is full,
        after keeping as much of the step as fits (its line before its picture)."""
        problem = self._keep_picture(record)
        try:
            self._append(_line(record))
        except OSError as exc:
            if record.image is None:
                raise record_error(exc, self.run_dir) from None
            problem = self._drop_picture(record, exc)  # the line matters more: free room
            try:
                self._append(_line(record))
            except OSError as again:
                raise record_error(again, self.run_dir) from None
        if problem is not None:
            raise record_error(problem, self.run_dir)

    def _keep_picture(self, record: StepRecord) -> OSError | None:
        if record.screen is None or record.image is not None:
            return None
        name = f"step-{record.step:03d}.{record.screen.extension}"
        try:
            write_whole(self.run_dir / name, record.screen.data)
        except OSError as exc:
            record.error = record.error or f"screenshot not kept: {exc.strerror or exc}"
            return exc
        record.image = name
        return None

    def _drop_picture(self, record: StepRecord, exc: OSError) -> OSError:
        with contextlib.suppress(OSError):
            (self.run_dir / str(record.image)).unlink()
        record.image = None
        record.error = record.error or f"screenshot not kept: {exc.strerror or exc}"
        return exc

    def _append(self, line: str) -> None:
        """Append a whole line or nothing: a line cut short by a full disk is cut off."""
        size = self._steps.stat().st_size if self._steps.exists() else 0
        try:
            with self._steps.open("a", encoding="utf-8") as fh:
                fh.write(line)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError:
            with contextlib.suppress(OSError):
                os.truncate(self._steps, size)
            raise

    def finish(self, outcome: Outcome) -> None:
        """Close run.json with the outcome; on a full disk, in place (never raises)."""
        if self._closed:
            return
        self._closed = True
        self._info["outcome"] = outcome.as_dict()
        try:
            self._write_run()
        except OSError as exc:
            try:
                self._close_in_place()
            except OSError:
                log.warning("could not close the run record: %s", record_error(exc, self.run_dir))

    def _write_run(self) -> None:
        """run.json replaced atomically, with room to spare at its end (see the module)."""
        tmp = self.run_dir / (RUN_FILE + ".tmp")
        text = json.dumps(self._info, indent=2, ensure_ascii=False, default=str)
        data = text.encode("utf-8")
        data += b" " * max(0, RUN_FILE_ROOM - len(data) - 1) + b"\n"
        try:
            write_whole(tmp, data, sync=True)
            os.replace(tmp, self.run_dir / RUN_FILE)
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink()

    def _close_in_place(self) -> None:
        """Write the final run.json over the old one, within the blocks it already has."""
        path = self.run_dir / RUN_FILE
        room = path.stat().st_size
        for info in self._shrinking():
            data = json.dumps(info, ensure_ascii=False, default=str).encode("utf-8")
            if len(data) < room:
                with path.open("r+b") as fh:
                    fh.write(data + b" " * (room - len(data) - 1) + b"\n")
                    fh.flush()
                    os.fsync(fh.fileno())
                return
        raise OSError(errno.ENOSPC, "run.json has no room for its outcome")

    def _shrinking(self) -> list[dict[str, Any]]:
        """The final run.json, then smaller versions of it (settings, then long texts)."""
        whole = dict(self._info)
        lean = {k: v for k, v in whole.items() if k != "settings"}
        outcome = dict(whole.get("outcome") or {})
        outcome["message"] = str(outcome.get("message", ""))[:500]
        least = {"schema": SCHEMA, "run_id": whole.get("run_id"),
                 "task": str(whole.get("task", ""))[:500], "surface": whole.get("surface"),
                 "driver": whole.get("driver"), "started_at": whole.get("started_at"),
                 "outcome": outcome}
        return [whole, lean, least]

    def _abandon(self) -> None:
        """A record that could not even start leaves nothing behind."""
        for name in (RUN_FILE + ".tmp", RUN_FILE, STEPS_FILE):
            with contextlib.suppress(OSError):
                (self.run_dir / name).unlink()
        with contextlib.suppress(OSError):
            self.run_dir.rmdir()


def _line(record: StepRecord) -> str:
    data = {"schema": SCHEMA, **record.as_dict()}
    return json.dumps(data, ensure_ascii=False, default=str) + "\n"


def write_whole(path: Path, data: bytes, sync: bool = False) -> None:
    """Write a file whole or not at all: what a full disk cut short is removed."""
    try:
        with path.open("wb") as fh:
            fh.write(data)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
    except OSError:
        with contextlib.suppress(OSError):
            path.unlink()
        raise


# ------------------------------------------------------------------------ reading


@dataclass
class StoredRun:
    """A run read back from disk: run.json as a `RecordedRun`, its steps as `StepRecord`s."""

    path: Path
    record: RecordedRun

    @property
    def run_id(self) -> str:
        return self.record.run_id or self.path.name

    @property
    def outcome(self) -> RecordedOutcome:
        return self.record.outcome

    def steps(self) -> list[StepRecord]:
        """Every complete step line; a line cut short by a crash is skipped."""
        path = self.path / STEPS_FILE
        if not path.exists():
            return []
        steps = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict):
                steps.append(StepRecord.from_json(data, f"{path} line {number}"))
        return steps


def load_run(path: Path) -> StoredRun:
    where = path / RUN_FILE
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path} is not a run folder (no {RUN_FILE})") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{where} is damaged: {exc.msg}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{where} is damaged: not a JSON object")
    return StoredRun(path, RecordedRun.from_json(data, str(where)))


def list_runs(runs_dir: Path) -> list[StoredRun]:
    """All runs, oldest first."""
    if not runs_dir.is_dir():
        return []
    runs = []
    for child in sorted(runs_dir.iterdir()):
        if (child / RUN_FILE).is_file():
            try:
                runs.append(load_run(child))
            except UsageError:
                continue
    runs.sort(key=lambda r: r.record.started_at or 0)
    return runs


def resolve_run(ref: str, runs_dir: Path) -> StoredRun:
    """A run by path, id, unique id prefix, or `last`."""
    as_path = Path(ref)
    if (as_path / RUN_FILE).is_file():
        return load_run(as_path)
    runs = list_runs(runs_dir)
    if ref == "last":
        if not runs:
            raise UsageError(f"no runs recorded yet in {runs_dir}")
        return runs[-1]
    matches = [r for r in runs if r.run_id == ref] or [
        r for r in runs if r.run_id.startswith(ref)
    ]
    if not matches:
        raise UsageError(f"no run '{ref}' in {runs_dir}")
    if len(matches) > 1:
        raise UsageError(f"'{ref}' matches {len(matches)} runs; give more of the id")
    return matches[0]
