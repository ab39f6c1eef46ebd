"""Running the installed `venusctl` console script as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

VENUSCTL = str(Path(sys.executable).with_name("venusctl"))


def venusctl(*args: str, env: dict[str, str] | None = None, timeout: float = 120,
             stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run `venusctl ARGS` to completion; stdin is closed unless given (no TTY)."""
    return subprocess.run(
        [VENUSCTL, *args], capture_output=True, text=True, timeout=timeout,
        env={**os.environ, **(env or {})}, input=stdin if stdin is not None else "",
    )


def start(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start `venusctl ARGS` in the background (for interrupt and crash tests)."""
    return subprocess.Popen(
        [VENUSCTL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})},
    )


def write_answers(path: Path, answers: list[str]) -> Path:
    path.write_text("".join(json.dumps(a) + "\n" for a in answers), encoding="utf-8")
    return path


def only_run(runs_dir: Path) -> Path:
    """The single run folder a test produced."""
    runs = [p for p in runs_dir.iterdir() if (p / "run.json").exists()]
    assert len(runs) == 1, runs
    return runs[0]
