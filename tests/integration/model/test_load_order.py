"""llama.cpp's libraries load before numpy's, whichever way venusctl is entered.

On a CUDA build, numpy's extension loaded before ggml's libraries made GPU offload
segfault (see venusctl.model.llama.libraries). A CPU build does not crash either way, so
these tests watch the order itself: each entry point runs in a fresh process with
the dynamic loader's own trace on (`LD_DEBUG=files`), which records every library
as it is loaded, independent of the code under test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.cli import VENUSCTL
from tests.support.tiny_model import ModelFiles

GGML = "libggml-base"
NUMPY = "_multiarray_umath"


def first_loads(trace_dir: Path) -> list[str]:
    """Library paths in the order the loader opened them (all processes of the trace)."""
    order: list[str] = []
    for trace in sorted(trace_dir.glob("ld.*")):
        for line in trace.read_text(errors="replace").splitlines():
            text = line.split(":", 1)[-1].strip()
            if text.startswith("file=") and "generating link map" in text:
                order.append(text[5:].split(";", 1)[0].split(" ", 1)[0].strip())
    return order


def loaded_before(order: list[str], first: str, second: str) -> bool:
    def index(mark: str) -> int:
        found = [i for i, path in enumerate(order) if mark in os.path.basename(path)]
        assert found, f"{mark} was never loaded; loaded: {[os.path.basename(p) for p in order]}"
        return found[0]

    return index(first) < index(second)


def traced(command: list[str], tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess,
                                                                     list[str]]:
    trace_dir = tmp_path / "trace"
    trace_dir.mkdir()
    environ = {**os.environ, "LD_DEBUG": "files", "LD_DEBUG_OUTPUT": str(trace_dir / "ld"),
               **env}
    done = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=240,
                          check=False)
    return done, first_loads(trace_dir)


LIBRARY_USE = """
import sys
from pathlib import Path
from venusctl.core.actions import Surface
from venusctl.model.base import SamplingOptions
from venusctl.model.llama.backend import LlamaModel, LlamaSettings
model = LlamaModel(LlamaSettings(Path(sys.argv[1]), Path(sys.argv[2]), image_max_tokens=64,
                                 image_min_tokens=None), Surface.BROWSER)
import numpy  # what a script would import next
model.close()
print("loaded")
"""


def test_the_backend_loads_llama_cpp_before_numpy(tiny_model: ModelFiles, tmp_path: Path):
    """A script using the backend directly: its own import path fixes the order."""
    done, order = traced([sys.executable, "-c", LIBRARY_USE, str(tiny_model.model),
                          str(tiny_model.mmproj)], tmp_path)
    assert done.returncode == 0 and "loaded" in done.stdout, done.stderr[-2000:]
    assert loaded_before(order, GGML, NUMPY)


def test_the_command_line_loads_llama_cpp_before_numpy(tiny_model: ModelFiles, tmp_path: Path):
    """`venusctl ground` loads the model, reads an image and decodes."""
    from PIL import Image

    image = tmp_path / "screen.png"
    Image.new("RGB", (320, 200), (200, 220, 240)).save(image)
    done, order = traced([VENUSCTL, "ground", "the blue page", str(image),
                          "--model", str(tiny_model.model), "--mmproj", str(tiny_model.mmproj),
                          "--image-max-tokens", "64", "--image-min-tokens", "16"], tmp_path)
    assert done.returncode in (0, 1), done.stderr[-2000:]  # 1: "not on the screen"
    assert loaded_before(order, GGML, NUMPY)


def test_the_process_knows_its_own_order(tmp_path: Path):
    """What doctor reports: numpy imported before venusctl is seen, not hidden."""
    script = ("import numpy, venusctl.model\nfrom venusctl.model.llama import libraries as l\n"
              "print(l.numpy_was_first, l.ggml_before_numpy())")
    late = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=True)
    assert late.stdout.split() == ["True", "False"]
    early = subprocess.run([sys.executable, "-c", script.replace("import numpy, ", "import ")
                            + "\nimport numpy\nprint(l.ggml_before_numpy())"],
                           capture_output=True, text=True, timeout=120, check=True)
    assert early.stdout.split() == ["False", "None", "True"]
