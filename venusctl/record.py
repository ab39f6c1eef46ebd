"""Run records: one folder per run that survives Ctrl-C, dead devices and crashes.

  RUN_DIR/run.json      task, model, driver, settings, outcome (rewritten atomically)
  RUN_DIR/steps.jsonl   one JSON object per step, appended and fsync'ed at once
  RUN_DIR/step-NNN.png  the screenshot the model saw at that step (or .jpg)

`run.json` is written when the run starts with outcome "running", so even a run
killed with SIGKILL leaves a readable record; every other ending rewrites it.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from platformdirs import user_data_path

from venusctl.drivers.base import Screen
from venusctl.errors import ExitCode, UsageError

RUN_FILE = "run.json"
STEPS_FILE = "steps.jsonl"


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
    verdict: dict[str, str] | None = None
    reply: str | None = None
    feedback: str | None = None
    result: dict[str, Any] | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    parse_errors: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    model: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    image: str | None = None
    screen: Screen | None = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("screen", None)
        return data


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
            raise UsageError(f"cannot create the run folder {self.run_dir}: {exc}") from None
        self._info: dict[str, Any] = {}
        self._steps = self.run_dir / STEPS_FILE
        self._closed = False

    def start(self, info: RunInfo) -> None:
        self._info = {
            "run_id": info.run_id,
            "task": info.task,
            "surface": info.surface,
            "driver": info.driver,
            "model": info.model,
            "settings": info.settings,
            "started_at": info.started_at,
            "outcome": {"status": "running"},
        }
        self._write_run()
        self._steps.touch()

    def step(self, record: StepRecord) -> None:
        if record.screen is not None and record.image is None:
            name = f"step-{record.step:03d}.{record.screen.extension}"
            (self.run_dir / name).write_bytes(record.screen.data)
            record.image = name
        line = json.dumps(record.as_dict(), ensure_ascii=False, default=str)
        with self._steps.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def save_file(self, name: str, data: bytes) -> Path:
        """Keep an extra file (a confirmation crop, say) beside the steps."""
        path = self.run_dir / name
        path.write_bytes(data)
        return path

    def finish(self, outcome: Outcome) -> None:
        if self._closed:
            return
        self._closed = True
        self._info["outcome"] = outcome.as_dict()
        self._write_run()

    def _write_run(self) -> None:
        tmp = self.run_dir / (RUN_FILE + ".tmp")
        tmp.write_text(json.dumps(self._info, indent=2, ensure_ascii=False, default=str),
                       encoding="utf-8")
        os.replace(tmp, self.run_dir / RUN_FILE)


# ------------------------------------------------------------------------ reading


@dataclass
class StoredRun:
    """A run read back from disk."""

    path: Path
    info: dict[str, Any]

    @property
    def run_id(self) -> str:
        return str(self.info.get("run_id", self.path.name))

    @property
    def outcome(self) -> dict[str, Any]:
        return dict(self.info.get("outcome") or {})

    def steps(self) -> list[dict[str, Any]]:
        """Every complete step line; a line cut short by a crash is skipped."""
        path = self.path / STEPS_FILE
        if not path.exists():
            return []
        steps = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                steps.append(json.loads(line))
            except json.JSONDecodeError:
                continue
        return steps


def load_run(path: Path) -> StoredRun:
    try:
        info = json.loads((path / RUN_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path} is not a run folder (no {RUN_FILE})") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path / RUN_FILE} is damaged: {exc.msg}") from None
    return StoredRun(path, info)


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
    runs.sort(key=lambda r: r.info.get("started_at", 0))
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
