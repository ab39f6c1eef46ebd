"""How long `venusctl model info|list` and `model pull`'s checksum take on real-size files.

    .venv/bin/python benchmarks/model_files.py [-n 5]

1. Reading a GGUF header with the real Qwen3.5 vocabulary size (248,320 tokens and
   as many merges, the arrays that make header reading slow): venusctl's reader
   (`venusctl.model.files.gguf_header`) against `gguf.GGUFReader`, median seconds and ratio.
2. SHA-256 verification throughput, and what it costs for the UI-Venus-2-9B Q4_K_M
   download (about 5.5 GB model + 0.9 GB projector).
Prints medians; writes its files to a temporary folder and removes them.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gguf
import numpy as np

from venusctl.core.errors import ModelError
from venusctl.model.files.gguf_header import read_info
from venusctl.model.files.hub import HubFile, verify

VOCAB = 248_320
Q4_K_M_BYTES = 5.5e9 + 0.9e9


def header_file(path: Path) -> Path:
    writer = gguf.GGUFWriter(str(path), "qwen35")
    writer.add_context_length(262144)
    writer.add_file_type(15)
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list([f"tok{i:06d}" for i in range(VOCAB)])
    writer.add_token_types([1] * VOCAB)
    writer.add_token_merges([f"t{i} k{i}" for i in range(VOCAB - 256)])
    writer.add_chat_template("{{ messages }}")
    writer.add_tensor("output_norm.weight", np.ones(4096, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def median_s(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5, help="runs per measurement")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = header_file(Path(folder) / "vocab.gguf")
        size_mb = path.stat().st_size / 1e6
        ours = median_s(lambda: read_info(path), args.n)
        theirs = median_s(lambda: gguf.GGUFReader(str(path)), max(1, min(args.n, 3)))
        print(f"GGUF header with {VOCAB:,} tokens + merges ({size_mb:.1f} MB):")
        print(f"  venusctl reader   {ours * 1000:8.1f} ms (median of {args.n})")
        print(f"  gguf.GGUFReader   {theirs * 1000:8.1f} ms")
        print(f"  ratio             {theirs / ours:8.1f}x faster")

        blob = Path(folder) / "blob"
        blob.write_bytes(np.random.default_rng(0).bytes(256 << 20))
        wrong = HubFile("blob", blob.stat().st_size, "0" * 64)
        seconds = median_s(lambda: _verify_quietly(blob, wrong), args.n)
        rate = blob.stat().st_size / seconds / 1e9
        print(f"SHA-256 verification: {rate:.2f} GB/s (median of {args.n} x 256 MiB); "
              f"the 9B Q4_K_M download ({Q4_K_M_BYTES / 1e9:.1f} GB) takes "
              f"{Q4_K_M_BYTES / 1e9 / rate:.1f} s to verify")


def _verify_quietly(blob: Path, file: HubFile) -> None:
    with contextlib.suppress(ModelError):  # wrong on purpose: the whole file is still read
        verify(blob, file)


if __name__ == "__main__":
    main()
