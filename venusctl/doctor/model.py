"""The model half of `venusctl doctor`: which files a run would load, and can it.

Model settings are resolved exactly as `venusctl do` resolves them (flags >
environment > config file > default, in `venusctl.model.settings`), but nothing is ever
downloaded here: a model that is not on disk is reported with the command that
fetches it. "Loadable" means both GGUF headers read back as a text model and a
projector; `--load` goes further and loads them into llama.cpp.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from venusctl.core.errors import VenusError
from venusctl.doctor.machine import Check, Status

EXPECTED_ARCH = "qwen35"
SERVER_TIMEOUT_S = 5


def check_model_files(load: bool = False, config: Any = None) -> tuple[list[Check], int | None]:
    """Checks for the model a run would use, and its size in bytes when known."""
    try:
        from venusctl.model.select import backend
        from venusctl.model.settings import resolve
    except ImportError as exc:
        return [Check("model: files", Status.FAIL, f"model management is missing ({exc.name})",
                      "reinstall venusctl (scripts/install.sh)")], None
    try:
        config = config or resolve({})
        kind = backend(config)
    except VenusError as exc:
        return [Check("model: settings", Status.FAIL, str(exc),
                      "fix the [model]/[server] tables of the config file or the "
                      "VENUSCTL_* variables")], None
    settings = _settings_check(config)
    if kind == "server":
        return [*settings, check_server(str(config.server))], None
    found = find_local(config)
    if isinstance(found, Check):
        return [*settings, found], None
    model_path, mmproj_path = found
    size = model_path.stat().st_size + mmproj_path.stat().st_size
    checks = [
        *settings,
        Check("model: files", Status.OK,
              f"{model_path} + {mmproj_path.name} ({_size(size)})"),
        check_headers(model_path, mmproj_path),
    ]
    if load and checks[-1].status is not Status.FAIL:
        checks.append(check_load(model_path, mmproj_path, getattr(config, "gpu_layers", None)))
    return checks, size


def _settings_check(config: Any) -> list[Check]:
    """The model settings that are not defaults, and the place each came from (the
    environment or the config file), so a surprising value can be traced."""
    from venusctl.model.settings import described

    text = described(config) if hasattr(config, "given") else ""
    return [Check("model: settings", Status.OK, text)] if text else []


def find_local(config: Any) -> tuple[Path, Path] | Check:
    """The text model and projector on disk, or a failed check saying how to get them."""
    from venusctl.model.files.hub import find_cached, hub_cache_dir, parse_reference

    name = "model: files"
    text = config.model
    path = Path(os.path.expandvars(text)).expanduser() if text else None
    if path is not None and path.exists():
        from venusctl.model.select import local_model

        try:
            found = local_model(config, False, lambda _selection: False, lambda _m: None)
        except VenusError as exc:
            return Check(name, Status.FAIL, str(exc), "pass --model FILE and --mmproj FILE")
        return found.model_path, found.mmproj_path  # type: ignore[return-value]
    reference = parse_reference(text) if text else (config.repo, config.quant)
    if reference is None:
        return Check(name, Status.FAIL, f"model '{text}' is neither a file nor a hub repo",
                     "set --model/VENUSCTL_MODEL to a GGUF file or owner/name[:QUANT]")
    repo, quant = reference[0], reference[1] or config.quant
    cached = find_cached(repo, quant, hub_cache_dir())
    if cached is None or cached.mmproj_path is None:
        return Check(name, Status.FAIL, f"{repo}:{quant} is not downloaded",
                     f"venusctl model pull {repo} --quant {quant} (or --model PATH, "
                     "or --server URL)")
    mmproj = config.mmproj or cached.mmproj_path
    return cached.model_path, mmproj


def _size(value: int) -> str:
    return f"{value / (1 << 30):.1f} GiB" if value >= 1 << 30 else f"{value / (1 << 20):.0f} MiB"


def check_headers(model_path: Path, mmproj_path: Path) -> Check:
    """Both files are GGUF, the first a text model and the second a vision projector."""
    from venusctl.model.files.gguf_header import read_info

    name = "model: loadable"
    try:
        model, projector = read_info(model_path), read_info(mmproj_path)
    except VenusError as exc:
        return Check(name, Status.FAIL, str(exc), "download it again: venusctl model pull")
    if model.is_projector:
        return Check(name, Status.FAIL, f"{model_path.name} is a projector, not the text model",
                     "swap --model and --mmproj")
    if not projector.is_projector:
        return Check(name, Status.FAIL, f"{mmproj_path.name} is not a vision projector",
                     "pass the mmproj-*.gguf file with --mmproj")
    detail = (f"{model.architecture} {model.quantization}, projector "
              f"{projector.projector_type or '?'}")
    if model.architecture != EXPECTED_ARCH:
        return Check(name, Status.WARN, detail + f" (UI-Venus-2 is {EXPECTED_ARCH})",
                     "use a UI-Venus-2 GGUF: venusctl model pull")
    return Check(name, Status.OK, detail)


PROBE_TIMEOUT_S = 900
"""Loading a 9B model from a slow disk and compiling GPU kernels can take minutes."""


def check_load(model_path: Path, mmproj_path: Path, gpu_layers: int | None = None) -> Check:
    """Load both files into llama.cpp (with GPU layers when the build has a GPU), decode
    one token and free them again: slow, seconds to minutes.

    The load runs in a child process (`venusctl.model.llama.probe`): a GPU build that
    crashes inside llama.cpp takes the child down, and doctor says so."""
    name = "model: loads"
    command = [sys.executable, "-m", "venusctl.model.llama.probe", str(model_path),
               str(mmproj_path)]
    if gpu_layers is not None:
        command += ["--gpu-layers", str(gpu_layers)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S,
                              check=False)
    except subprocess.TimeoutExpired:
        return Check(name, Status.FAIL, f"loading did not finish in {PROBE_TIMEOUT_S} s",
                     "check the disk and memory; -v shows llama.cpp's log")
    if done.returncode < 0:
        return _crashed(name, -done.returncode)
    try:
        result = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        first = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Check(name, Status.FAIL, f"the model backend failed: {first[:200]}",
                     "reinstall venusctl (scripts/install.sh)")
    if not result.get("ok"):
        return Check(name, Status.FAIL, str(result.get("error")),
                     "see the message; -v shows llama.cpp's log")
    return Check(name, Status.OK, _loaded(result))


def _loaded(result: dict[str, Any]) -> str:
    where = result.get("backend") or "CPU"
    offloaded = result.get("offloaded")
    if where != "CPU" and offloaded:
        where += f", {offloaded[0]}/{offloaded[1]} layers on the GPU"
    return (f"loaded on {where} in {result.get('load_s', 0):.1f} s, first token in "
            f"{result.get('first_token_s', 0):.1f} s")


def _crashed(name: str, signum: int) -> Check:
    try:
        signame = signal.Signals(signum).name
    except ValueError:
        signame = f"signal {signum}"
    return Check(name, Status.FAIL,
                 f"llama.cpp crashed loading the model ({signame}), with GPU layers if the "
                 "build has a GPU",
                 "try --gpu-layers 0 (VENUSCTL_GPU_LAYERS=0) to run on the CPU, and rebuild "
                 "llama.cpp for this machine: scripts/install.sh")


def check_server(url: str) -> Check:
    """The OpenAI-compatible server answers its model list."""
    name = "model: server"
    target = url.rstrip("/") + ("/models" if url.rstrip("/").endswith("/v1") else "/v1/models")
    try:
        with urllib.request.urlopen(target, timeout=SERVER_TIMEOUT_S) as reply:
            return Check(name, Status.OK, f"{url} answers (HTTP {reply.status})")
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403):
            return Check(name, Status.OK, f"{url} answers (it needs an API key)")
        return Check(name, Status.FAIL, f"{url} answered HTTP {exc.code}",
                     "check the URL: it should be the server's OpenAI-compatible base")
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return Check(name, Status.FAIL, f"{url} is unreachable: {reason}",
                     "start the server (e.g. llama-server -m MODEL --mmproj MMPROJ) or fix "
                     "--server / VENUSCTL_SERVER")


# ------------------------------------------------------------------- llama.cpp


def gpu_present() -> bool:
    """An NVIDIA GPU is visible, or this is Apple Silicon (the common cases where a
    CPU-only build wastes the machine)."""
    if platform.system() == "Darwin" and platform.machine() == "arm64":
        return True
    return shutil.which("nvidia-smi") is not None or Path("/proc/driver/nvidia").exists()


def rebuild_command() -> str:
    """How to rebuild llama.cpp for this machine's GPU (what scripts/install.sh picks)."""
    if platform.system() == "Darwin":
        args = "-DGGML_METAL=on"
    else:
        arch = cuda_architectures()
        args = "-DGGML_CUDA=on" + (f" -DCMAKE_CUDA_ARCHITECTURES={arch}" if arch else "")
    return (f'scripts/install.sh, or: CMAKE_ARGS="{args}" pip install --force-reinstall '
            "--no-deps --no-cache-dir llama-cpp-python==0.3.36 (needs the CUDA toolkit, nvcc, "
            "for NVIDIA)")


def cuda_architectures() -> str | None:
    """The local GPUs' architectures as CMake wants them (`90-real`), from nvidia-smi."""
    if shutil.which("nvidia-smi") is None:
        return None
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    caps = sorted({line.strip().replace(".", "") for line in done.stdout.splitlines()
                   if line.strip().replace(".", "").isdigit()})
    return ";".join(f"{cap}-real" for cap in caps) or None


def check_llama_build(info: Any = None, gpu: bool | None = None) -> Check:
    """Which ggml backends the installed llama.cpp has, and whether a GPU goes unused."""
    name = "llama.cpp build"
    try:
        info = info or backend_summary()
    except ImportError:
        return Check(name, Status.FAIL, "llama-cpp-python is not installed",
                     "pip install llama-cpp-python==0.3.36 (compiles llama.cpp once)")
    version, devices, offload = info
    detail = f"llama-cpp-python {version}: {', '.join(devices) or 'CPU'}" + (
        "" if offload else " (GPU offload not built in)")
    if not offload and (gpu_present() if gpu is None else gpu):
        return Check(name, Status.WARN, detail + "; a GPU is present but unused",
                     "rebuild llama.cpp for it: " + rebuild_command())
    return Check(name, Status.OK, detail)


def backend_summary() -> tuple[str, tuple[str, ...], bool]:
    """(version, device names, GPU offload) from the model backend, else llama_cpp itself."""
    import llama_cpp

    version = str(getattr(llama_cpp, "__version__", "?"))
    for module in ("venusctl.model.llama.backend", "venusctl.model.llama.native"):
        try:
            backend_info = __import__(module, fromlist=["backend_info"]).backend_info
        except (ImportError, AttributeError):
            continue
        found = backend_info()
        devices = tuple(getattr(found, "gpu_names", ())) + tuple(
            d for d in found.devices if d == "CPU" or not getattr(found, "gpu_names", ()))
        return version, devices, bool(found.gpu_offload)
    return version, (), bool(llama_cpp.llama_supports_gpu_offload())
