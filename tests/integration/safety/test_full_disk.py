"""A full disk during a run: one line, exit 1, the record closed, nothing half-written.

A real full disk: the run's folder lies on a tmpfs of 128 KiB mounted in a private
mount namespace (`unshare`), so the screenshots of a real Chromium run fill it
after a few steps. The test then copies what is on it out of the namespace and
reads it as `runs show` would.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

from PIL import Image

from tests.support.cli import VENUSCTL, write_answers

TINY_KIB = 128


def namespace_prefix() -> list[str]:
    """A private mount namespace: as root directly, else through a user namespace."""
    unshare = shutil.which("unshare")
    assert unshare, "unshare (util-linux) is needed to mount a tiny filesystem"
    if os.geteuid() == 0:
        return [unshare, "--mount", "--propagation", "private"]
    return [unshare, "--user", "--map-root-user", "--mount"]


def test_a_full_disk_ends_the_run_with_one_line_and_a_closed_record(site, browser_path,
                                                                    tmp_path: Path):
    script = write_answers(tmp_path / "answers.jsonl", [
        *[f"<think>Look again.</think><action>Scroll(point=({100 + 40 * i}, 500), "
          "direction='down')</action>" for i in range(20)],
        "<think>Done.</think><action>Finished(content='ok')</action>"])
    disk, copy = tmp_path / "disk", tmp_path / "copy"
    disk.mkdir()
    copy.mkdir()
    run = shlex.join([VENUSCTL, "do", "look at the checkout", "--quiet", "--driver", "web",
                      "--url", site.url + "/checkout.html", "--browser-path", browser_path,
                      "--model-file", str(script), "--runs-dir", str(disk / "runs")])
    inside = (f"mount -t tmpfs -o size={TINY_KIB}k tmpfs {shlex.quote(str(disk))} || exit 99; "
              f"{run}; code=$?; cp -a {shlex.quote(str(disk))}/. {shlex.quote(str(copy))}/; "
              "exit $code")
    done = subprocess.run([*namespace_prefix(), "sh", "-c", inside], capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode != 99, f"could not mount a tmpfs: {done.stderr}"
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr  # one line, no traceback
    assert done.stderr.startswith("venusctl: failed: no space left on the disk")

    runs = list((copy / "runs").iterdir())
    assert len(runs) == 1
    folder = runs[0]
    names = sorted(p.name for p in folder.iterdir())
    assert not [n for n in names if n.endswith(".tmp")], names
    info = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    assert info["outcome"]["status"] == "failed" and info["outcome"]["exit_code"] == 1
    assert "no space left" in info["outcome"]["message"]
    steps = [json.loads(line) for line in
             (folder / "steps.jsonl").read_text(encoding="utf-8").splitlines()]
    assert steps and [s["step"] for s in steps] == list(range(1, len(steps) + 1))
    kept = {s["image"] for s in steps if s.get("image")}
    pictures = {n for n in names if n.startswith("step-")}
    assert pictures == kept  # no picture cut short and left behind
    for name in pictures:
        with Image.open(folder / name) as picture:
            picture.load()  # whole, not truncated
    assert len(steps) < 20  # the disk did fill up
    assert "screenshot not kept" in (steps[-1].get("error") or "")
