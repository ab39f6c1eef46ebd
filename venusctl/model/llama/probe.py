"""Load the local model once, in a process of its own, and say how it went (for doctor).

    python -m venusctl.model.llama.probe MODEL.gguf MMPROJ.gguf [--gpu-layers N]

Prints one JSON line: the backend and layers offloaded, load and first-token
seconds, or the one-line error. It runs apart from doctor because a broken GPU
build can crash the whole process inside llama.cpp (a segfault is no Python
exception): doctor then reports the signal instead of dying with it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from venusctl.core.errors import VenusError


def probe(model_path: Path, mmproj_path: Path, gpu_layers: int | None) -> dict[str, Any]:
    """Load both files, decode one token, free everything; what happened, as a dict."""
    from venusctl.model.base import Message, SamplingOptions, TextPart
    from venusctl.model.llama.backend import LlamaModel, LlamaSettings

    started = time.perf_counter()
    model = LlamaModel(LlamaSettings(model_path=model_path, mmproj_path=mmproj_path,
                                     gpu_layers=gpu_layers, grammar=False), None)
    loaded = time.perf_counter()
    try:
        model.complete([Message("user", (TextPart("Say OK."),))],
                       SamplingOptions(max_tokens=1, thinking=False))
    finally:
        model.close()
    return {"ok": True, "backend": model.backend, "gpu_layers": model.gpu_layers,
            "offloaded": list(model.offloaded) if model.offloaded else None,
            "load_s": round(loaded - started, 2),
            "first_token_s": round(time.perf_counter() - loaded, 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m venusctl.model.llama.probe")
    parser.add_argument("model", type=Path)
    parser.add_argument("mmproj", type=Path)
    parser.add_argument("--gpu-layers", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        result = probe(args.model, args.mmproj, args.gpu_layers)
    except VenusError as exc:
        result = {"ok": False, "error": str(exc)}
    print(json.dumps(result), flush=True)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
