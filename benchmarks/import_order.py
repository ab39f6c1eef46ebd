"""Does loading a model with GPU layers depend on whether numpy was imported first?

    .venv/bin/python benchmarks/import_order.py [--model tiny] [--gpu-layers -1] [--debugger]

Each case runs in a fresh process and loads the model with GPU layers:
  numpy, then llama_cpp     the order that crashed a CUDA build (bare llama-cpp-python)
  llama_cpp, then numpy     the order llama-cpp-python itself uses
  numpy, then venusctl      a script that imported numpy before venusctl.model
  venusctl                  venusctl as it imports itself (llama.cpp's libraries first)
and prints how it ended (a signal is a crash). With `--debugger`, a crashing case is
run again under cuda-gdb (or gdb) for a backtrace, and the libraries each order
loads, in load order, are listed side by side (LD_DEBUG=files): the evidence for the
root cause (see venusctl/model/llama/libraries.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from model_common import model_files

BARE = """
import sys
{first}
from llama_cpp import Llama
llm = Llama(model_path=sys.argv[1], n_gpu_layers=int(sys.argv[3]), verbose=False)
llm.close()
print("loaded")
"""
VENUSCTL = """
import sys
from pathlib import Path
{first}
from venusctl.model.llama.backend import LlamaModel, LlamaSettings
model = LlamaModel(LlamaSettings(Path(sys.argv[1]), Path(sys.argv[2]),
                                 gpu_layers=int(sys.argv[3])), None)
print("loaded on", model.backend, model.offloaded)
model.close()
"""
CASES = {
    "numpy, then llama_cpp": BARE.format(first="import numpy"),
    "llama_cpp, then numpy": BARE.format(first="import llama_cpp, numpy"),
    "numpy, then venusctl": VENUSCTL.format(first="import numpy"),
    "venusctl": VENUSCTL.format(first=""),
}


def ended(code: int) -> str:
    if code < 0:
        try:
            return f"CRASHED ({signal.Signals(-code).name})"
        except ValueError:
            return f"CRASHED (signal {-code})"
    return "ok" if code == 0 else f"failed (exit {code})"


def run_case(script: str, args: list[str], env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-X", "faulthandler", "-c", script, *args],
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, **(env or {})})


def load_list(script: str, args: list[str]) -> list[str]:
    """Shared objects in the order the loader opened them (LD_DEBUG=files)."""
    with tempfile.TemporaryDirectory() as tmp:
        run_case(script, args, {"LD_DEBUG": "files", "LD_DEBUG_OUTPUT": f"{tmp}/ld"})
        names = []
        for trace in sorted(Path(tmp).glob("ld.*")):
            for line in trace.read_text(errors="replace").splitlines():
                text = line.split(":", 1)[-1].strip()
                if text.startswith("file=") and "generating link map" in text:
                    names.append(os.path.basename(text[5:].split(";", 1)[0].split()[0]))
    return names


def backtrace(script: str, args: list[str]) -> str:
    debugger = shutil.which("cuda-gdb") or shutil.which("gdb")
    if debugger is None:
        return "(no cuda-gdb or gdb here)"
    done = subprocess.run([debugger, "-batch", "-ex", "run", "-ex", "bt 30", "-ex",
                           "info sharedlibrary", "--args", sys.executable, "-c", script, *args],
                          capture_output=True, text=True, timeout=180, check=False)
    return (done.stdout + done.stderr)[-8000:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--gpu-layers", default="-1")
    parser.add_argument("--debugger", action="store_true")
    args = parser.parse_args()
    files = model_files(args.model)
    argv = [str(files.model), str(files.mmproj), args.gpu_layers]
    results = {}
    for name, script in CASES.items():
        done = run_case(script, argv)
        results[name] = done.returncode
        detail = done.stdout.strip().splitlines()[-1:] or done.stderr.strip().splitlines()[-1:]
        print(f"  {name:24s} {ended(done.returncode):24s} {' '.join(detail)[:120]}")
        if done.returncode < 0:
            print("    " + "\n    ".join(done.stderr.strip().splitlines()[-12:]))
    crashed = [name for name, code in results.items() if code < 0]
    if not args.debugger or not crashed:
        return
    print(f"\nbacktrace of '{crashed[0]}':\n{backtrace(CASES[crashed[0]], argv)}")
    first = load_list(CASES["numpy, then llama_cpp"], argv)
    second = load_list(CASES["llama_cpp, then numpy"], argv)
    print("\nlibraries in load order: numpy first | llama_cpp first")
    for index in range(max(len(first), len(second))):
        left = first[index] if index < len(first) else ""
        right = second[index] if index < len(second) else ""
        print(f"  {left:50s} | {right}")


if __name__ == "__main__":
    main()
