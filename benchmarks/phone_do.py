"""`venusctl do` on the simulated phone with a local model, start to finish, as a user runs it.

    .venv/bin/python benchmarks/phone_do.py --model tiny|vocab|9b|FILE [--gpu-layers -1]
                                            [--steps 3] [--realistic] [--image-max-tokens N]

Starts an adb server (Debian's adb, else the one adbutils ships) with the simulated
phone attached, runs the real `venusctl` command against it, and prints the run's
first progress line (it names the llama.cpp backend), its exit code and, per step,
the action and where the seconds went. A random-weight model picks random actions:
the point is that the whole path runs (the GPU build, the model, the phone, the
record), not what it does.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from model_common import model_files

from venusctl.sim.phone import PhoneConfig, android_env


def adb_on_path(folder: Path) -> dict[str, str]:
    """PATH with an `adb`: the system's, else the static one in adbutils' wheel."""
    if shutil.which("adb"):
        return {}
    import adbutils

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "adb").symlink_to(adbutils.adb_path())
    return {"PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"}


def venusctl_command() -> list[str]:
    script = Path(sys.executable).with_name("venusctl")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from venusctl.cli import main; "
            "sys.argv[0] = 'venusctl'; main()"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--gpu-layers", default=None)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--realistic", action="store_true")
    parser.add_argument("--image-max-tokens", default=None)
    parser.add_argument("--max-tokens", default="300")
    args = parser.parse_args()
    files = model_files(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(adb_on_path(Path(tmp) / "bin"))
        config = PhoneConfig.realistic(seed=1) if args.realistic else PhoneConfig()
        with android_env(config) as env:
            command = [*venusctl_command(), "do", "open the notes app and write 'milk'",
                       "--driver", "android", "--model", str(files.model), "--mmproj",
                       str(files.mmproj), "--max-steps", str(args.steps), "--max-tokens",
                       args.max_tokens, "--temperature", "1.0", "--confirm", "never", "--yes",
                       "--runs-dir", str(Path(tmp) / "runs")]
            if args.gpu_layers is not None:
                command += ["--gpu-layers", str(args.gpu_layers)]
            if args.image_max_tokens is not None:
                command += ["--image-max-tokens", str(args.image_max_tokens),
                            "--image-min-tokens", "16"]
            done = subprocess.run(command, env={**os.environ, **env.environ()},
                                  capture_output=True, text=True, timeout=900, check=False,
                                  stdin=subprocess.DEVNULL)
        report(done, Path(tmp) / "runs")


def report(done: subprocess.CompletedProcess[str], runs: Path) -> None:
    lines = done.stderr.splitlines()
    print(f"first progress line: {lines[0] if lines else '(none)'}")
    print(f"exit code {done.returncode}; last line: {(lines[-1] if lines else '(none)')[:160]}")
    records = [p for p in runs.iterdir() if (p / "run.json").exists()] if runs.exists() else []
    if not records:
        print("no run record:\n" + done.stderr[-3000:])
        raise SystemExit(1)
    info = json.loads((records[0] / "run.json").read_text())
    print(f"run: model {info['model']}, outcome {info.get('outcome', {}).get('status')}")
    for line in (records[0] / "steps.jsonl").read_text().splitlines():
        step = json.loads(line)
        timings = step.get("timings", {})
        model = step.get("model") or {}
        action = str(step.get("action") or step.get("error"))
        print(f"  step {step['step']}: {action[:80]}  "
              f"model {timings.get('model', 0):.2f} s (prompt {model.get('prompt_tokens')}, "
              f"reused {model.get('reused_tokens')}, decoded {model.get('completion_tokens')}), "
              f"describe {timings.get('describe', 0):.2f} s, act {timings.get('act', 0):.2f} s")
    if done.returncode not in (0, 1, 3, 4):
        raise SystemExit(done.returncode)


if __name__ == "__main__":
    main()
