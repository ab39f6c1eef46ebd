"""Which llama.cpp build scripts/install.sh picks, with fake GPU tools on PATH.

`nvidia-smi`, `nvcc` and `uname` are small shell scripts here that answer like the
real ones; the script runs for real with `--print-cmake-args`, which stops after
the choice. The last test runs it on this machine as it is (no GPU: a CPU build
for this processor).
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
INSTALL = ROOT / "scripts" / "install.sh"
BASIC_TOOLS = ("uname", "tr", "grep", "sort", "sed", "paste", "cat", "dirname")
"""The only real programs on the fake PATH: a test machine's own nvidia-smi or nvcc
(some have a CUDA toolkit) must not be found."""


def tool(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.unlink(missing_ok=True)
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def nvidia_smi(folder: Path, caps: list[str] | None, driver_loaded: bool = True) -> Path:
    """Fake nvidia-smi: `-L` lists GPUs; `--query-gpu=compute_cap` prints each one's
    capability, or fails like drivers before 510 when `caps` is None."""
    listing = "".join(f'echo "GPU {i}: NVIDIA Fake (UUID: GPU-{i})"\n'
                      for i in range(len(caps or ["x"])))
    query = ("".join(f'echo "{cap}"\n' for cap in caps) if caps is not None
             else 'echo "Field \\"compute_cap\\" is not a valid field to query." >&2; exit 2')
    return tool(folder, "nvidia-smi", f"""
if [ {str(driver_loaded).lower()} = false ]; then
  echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
  exit 9
fi
case "$*" in
  *-L*) {listing} ;;
  *compute_cap*) {query} ;;
  *) echo "Fake NVIDIA-SMI" ;;
esac""")


def choose(folder: Path, **env: str) -> tuple[str, str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("CMAKE_ARGS", "CUDA_HOME")}
    # toolkits installed on the test machine itself (/usr/local/cuda) stay out of sight
    environ.update({"PATH": str(folder), "NVCC_CANDIDATES": "", **env})
    done = subprocess.run([BASH, str(INSTALL), "--print-cmake-args"], env=environ,
                          capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip(), done.stderr


BASH = shutil.which("bash") or "/bin/bash"


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    for name in BASIC_TOOLS:
        real = shutil.which(name)
        assert real, f"{name} is missing on this machine"
        (folder / name).symlink_to(real)
    return folder


def test_a_cpu_only_linux_machine_gets_a_native_cpu_build(bin_dir: Path):
    args, why = choose(bin_dir)
    assert args == "-DGGML_NATIVE=on"
    assert "CPU" in why


def test_an_nvidia_gpu_with_the_toolkit_gets_cuda_for_its_architecture(bin_dir: Path):
    nvidia_smi(bin_dir, ["9.0"])
    nvcc = tool(bin_dir, "nvcc", 'echo "Cuda compilation tools, release 13.0"')
    args, why = choose(bin_dir)
    assert args == f"-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=90-real -DCMAKE_CUDA_COMPILER={nvcc}"
    assert "CUDA" in why and "90-real" in why


def test_two_kinds_of_gpu_get_both_architectures(bin_dir: Path):
    nvidia_smi(bin_dir, ["8.9", "8.6", "8.9"])
    tool(bin_dir, "nvcc", "true")
    args, _ = choose(bin_dir)
    assert "-DCMAKE_CUDA_ARCHITECTURES=86-real;89-real " in args


def test_an_old_driver_leaves_the_architecture_to_cmake(bin_dir: Path):
    nvidia_smi(bin_dir, None)
    tool(bin_dir, "nvcc", "true")
    args, _ = choose(bin_dir)
    assert "-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=native " in args


def test_a_toolkit_outside_path_is_found_through_cuda_home(bin_dir: Path, tmp_path: Path):
    nvidia_smi(bin_dir, ["8.0"])
    toolkit = tmp_path / "cuda" / "bin"
    toolkit.mkdir(parents=True)
    nvcc = tool(toolkit, "nvcc", "true")
    args, _ = choose(bin_dir, CUDA_HOME=str(tmp_path / "cuda"))
    assert args.endswith(f"-DCMAKE_CUDA_ARCHITECTURES=80-real -DCMAKE_CUDA_COMPILER={nvcc}")


def test_a_gpu_without_the_toolkit_builds_for_the_cpu_and_says_how_to_fix_it(bin_dir: Path):
    nvidia_smi(bin_dir, ["9.0"])
    args, why = choose(bin_dir)
    assert args == "-DGGML_NATIVE=on"
    assert "CUDA toolkit" in why and "nvidia-cuda-toolkit" in why


def test_nvidia_smi_without_a_working_driver_is_no_gpu(bin_dir: Path):
    nvidia_smi(bin_dir, ["9.0"], driver_loaded=False)
    tool(bin_dir, "nvcc", "true")
    args, why = choose(bin_dir)
    assert args == "-DGGML_NATIVE=on" and "toolkit" not in why


@pytest.mark.parametrize(("machine", "expected"), [("arm64", "-DGGML_METAL=on"),
                                                   ("x86_64", "-DGGML_METAL=off -DGGML_NATIVE=on")])
def test_macs(bin_dir: Path, machine: str, expected: str):
    tool(bin_dir, "uname", f'case "$1" in -s) echo Darwin ;; -m) echo {machine} ;; '
                           '*) echo Darwin ;; esac')
    nvidia_smi(bin_dir, ["9.0"])  # never consulted on a Mac
    args, _ = choose(bin_dir)
    assert args == expected


def test_cmake_args_given_by_the_user_win(bin_dir: Path):
    nvidia_smi(bin_dir, ["9.0"])
    tool(bin_dir, "nvcc", "true")
    args, _ = choose(bin_dir, CMAKE_ARGS="-DGGML_VULKAN=on")
    assert args == "-DGGML_VULKAN=on"


def test_this_machine_as_it_is():
    """No fakes: the real PATH, toolkit and uname of the test machine (no GPU here; it
    may have a CUDA toolkit, which alone is no reason for a CUDA build)."""
    environ = {k: v for k, v in os.environ.items() if k != "CMAKE_ARGS"}
    done = subprocess.run(["bash", str(INSTALL), "--print-cmake-args"], env=environ,
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "-DGGML_NATIVE=on"
    assert "llama.cpp build: CPU" in done.stderr


def test_doctor_names_the_same_architecture(bin_dir: Path, monkeypatch: pytest.MonkeyPatch):
    from venusctl.doctor.model import check_llama_build, rebuild_command

    nvidia_smi(bin_dir, ["9.0"])
    monkeypatch.setenv("PATH", str(bin_dir))
    assert "-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=90-real" in rebuild_command()
    wasted = check_llama_build(("0.3.36", ("CPU",), False))  # GPU found through nvidia-smi
    assert wasted.status.value == "warn" and "90-real" in wasted.fix
