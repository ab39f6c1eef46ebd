"""llama.cpp's shared libraries, loaded into the process before numpy's.

On a CUDA build of llama-cpp-python 0.3.36 (H200, CUDA 13), a process that had
loaded numpy's extension module before ggml's libraries segfaulted inside
`llama_model_load_from_file` as soon as layers were offloaded to the GPU; with
ggml's libraries loaded first the same load worked. `import llama_cpp` loads its
libraries before it imports numpy itself, which is why bare llama-cpp-python
scripts work and venusctl (which imported numpy first) crashed. On CPU builds both
orders work, and the libraries the two share (glibc, libstdc++, libgcc_s) bind the
same way in both (compared with `LD_DEBUG=bindings`); numpy's own bundled runtime
(OpenBLAS, libgfortran, libquadmath) is renamed and symbol-prefixed by its wheel.

So the order is fixed here, in the model package's own import path: importing
anything under `venusctl.model` first loads `libllama` and `libmtmd` (and through
them ggml and its backends: CPU, CUDA, Metal, ...) the same way llama_cpp does,
without importing llama_cpp's Python side (which pulls in numpy). A missing or
broken llama.cpp is not an error here: the backend reports it when it is used.
"""

from __future__ import annotations

import ctypes
import importlib.util
import logging
import os
import sys
from pathlib import Path

log = logging.getLogger(__name__)

LIBRARIES = ("llama", "mtmd")
"""Loaded in this order; each pulls in the ggml libraries it links against."""
NUMPY_MARK = "_multiarray_umath"
GGML_MARK = "libggml-base"

_handles: list[ctypes.CDLL] = []  # kept alive for the life of the process
numpy_was_first: bool | None = None
"""Whether numpy's extension was already loaded when the libraries were (None: unknown)."""


def library_dir() -> Path | None:
    """Where llama-cpp-python keeps its shared libraries, without importing it."""
    override = os.environ.get("LLAMA_CPP_LIB_PATH")
    if override:
        return Path(override)
    try:
        spec = importlib.util.find_spec("llama_cpp")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "lib"


def _file(directory: Path, name: str) -> Path | None:
    for candidate in (f"lib{name}.so", f"lib{name}.dylib", f"{name}.dll", f"lib{name}.dll"):
        if (directory / candidate).exists():
            return directory / candidate
    return None


def preload() -> bool:
    """Load llama.cpp's libraries now (once); False when they are not there to load."""
    global numpy_was_first
    if _handles:
        return True
    directory = library_dir()
    if directory is None:
        return False
    if numpy_was_first is None:
        numpy_was_first = "numpy" in sys.modules
    for name in LIBRARIES:
        path = _file(directory, name)
        if path is None:
            return bool(_handles)
        try:
            _handles.append(ctypes.CDLL(str(path)))  # llama_cpp's own mode (RTLD_LOCAL)
        except OSError as exc:
            log.debug("could not preload %s: %s", path, exc)
            return bool(_handles)
    if numpy_was_first:
        log.debug("numpy was imported before venusctl.model: with GPU offload, import "
                  "venusctl.model (or llama_cpp) before numpy")
    return True


def load_order() -> list[str]:
    """Every shared object in the process, in the order the dynamic loader added them."""
    if not sys.platform.startswith("linux"):
        return []

    class Info(ctypes.Structure):
        _fields_ = [("addr", ctypes.c_void_p), ("name", ctypes.c_char_p)]

    names: list[str] = []
    callback_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Info), ctypes.c_size_t,
                                     ctypes.c_void_p)

    def visit(info: ctypes._Pointer, _size: int, _data: ctypes.c_void_p) -> int:  # type: ignore[type-arg]
        raw = info.contents.name
        names.append(raw.decode(errors="replace") if raw else "")
        return 0

    libc = ctypes.CDLL(None)
    libc.dl_iterate_phdr(callback_type(visit), None)
    return names


def ggml_before_numpy(order: list[str] | None = None) -> bool | None:
    """True when ggml's libraries were loaded before numpy's extension (None: one of
    them is not loaded, so the order does not matter yet)."""
    names = load_order() if order is None else order
    ggml = next((i for i, n in enumerate(names) if GGML_MARK in os.path.basename(n)), None)
    numpy = next((i for i, n in enumerate(names) if NUMPY_MARK in os.path.basename(n)), None)
    if ggml is None or numpy is None:
        return None
    return ggml < numpy
