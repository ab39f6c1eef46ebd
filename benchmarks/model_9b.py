"""The shape-true UI-Venus-2-9B (random weights, Q4_0 + f16 projector) on this CPU.

    .venv/bin/python benchmarks/model_9b.py [--image-tokens 1024] [--max-tokens 16]
                                            [--steps 2] [--cold] [--gpu-layers N]

Generates the model on first use (~6 GB under ~/.cache/venusctl-test, about a
minute). Reports load time, then per step: prompt and image tokens, reused tokens,
prefill seconds, decode seconds per token, step seconds; finally peak RSS against
the model + projector file sizes (goal: at most +1 GiB). `--cold` repeats the last
step without prefix reuse for comparison. Slow on 2 cores (minutes per step): it is
never part of the test suite.
"""

from __future__ import annotations

import argparse
import time

from model_common import model_files, peak_rss_mib, step_messages

from venusctl.core.actions import Surface
from venusctl.model.base import SamplingOptions
from venusctl.model.llama.backend import LlamaModel, LlamaSettings, default_threads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image-tokens", type=int, default=1024)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--gpu-layers", type=int, default=None,
                        help="default: all where the build has a GPU backend")
    args = parser.parse_args()
    files = model_files("9b")
    size_mib = (files.model.stat().st_size + files.mmproj.stat().st_size) / 2**20
    print(f"files: {files.model.stat().st_size / 2**30:.2f} GiB model + "
          f"{files.mmproj.stat().st_size / 2**30:.2f} GiB projector; threads {args.threads}",
          flush=True)
    started = time.perf_counter()
    settings = LlamaSettings(files.model, files.mmproj, threads=args.threads, grammar=False,
                             image_min_tokens=args.image_tokens,
                             image_max_tokens=args.image_tokens, gpu_layers=args.gpu_layers)
    model = LlamaModel(settings, Surface.BROWSER)
    print(f"load: {time.perf_counter() - started:.1f} s ({model.name}, offloaded "
          f"{model.offloaded or '-'}), RSS peak {peak_rss_mib():.0f} MiB", flush=True)
    options = SamplingOptions(max_tokens=args.max_tokens, temperature=0.0)
    for step in range(args.steps):
        report(f"step {step + 1}", model.complete(step_messages(step), options))
    if args.cold:
        model.close()
        settings.prefix_cache = False
        cold = LlamaModel(settings, Surface.BROWSER)
        report(f"step {args.steps} cold", cold.complete(step_messages(args.steps - 1), options))
        cold.close()
    else:
        model.close()
    peak = peak_rss_mib()
    print(f"peak RSS {peak:.0f} MiB = files {size_mib:.0f} MiB {peak - size_mib:+.0f} MiB "
          f"(goal: at most +1024 MiB)")


def report(label: str, completion) -> None:
    per_token = completion.decode_s / max(completion.completion_tokens, 1)
    print(f"{label}: prompt {completion.prompt_tokens} tokens (image {completion.image_tokens},"
          f" reused {completion.reused_tokens}); prefill {completion.prefill_s:.1f} s; decode "
          f"{completion.completion_tokens} tokens at {per_token:.2f} s/token; step "
          f"{completion.total_s:.1f} s; RSS peak {peak_rss_mib():.0f} MiB", flush=True)


if __name__ == "__main__":
    main()
