"""Prefill seconds by screenshot size and image budget, then decode speed.

    .venv/bin/python benchmarks/model_prefill.py [--model 9b] [--gpu-layers N] [--runs 2]

For a phone (1080x2400), a desktop (1920x1080), a large desktop (2560x1440) and a
browser viewport (1280x800): the image tokens and the prefill seconds of a first
step (nothing reused) at venusctl's default image budget (1,024-1,280 tokens) and
unresized (llama.cpp's own limits, up to 4,096 tokens). Then decode tokens per
second over a 64-token answer (grammar off, greedy) and the process's peak RSS.
"""

from __future__ import annotations

import argparse

from model_common import median, model_files, peak_rss_mib, step_messages

from venusctl.core.actions import Surface
from venusctl.model.base import SamplingOptions
from venusctl.model.llama.backend import (
    DEFAULT_IMAGE_MAX_TOKENS,
    DEFAULT_IMAGE_MIN_TOKENS,
    LlamaModel,
    LlamaSettings,
    default_threads,
)

SIZES = {"phone 1080x2400": (1080, 2400), "desktop 1920x1080": (1920, 1080),
         "desktop 2560x1440": (2560, 1440), "browser 1280x800": (1280, 800)}
BUDGETS = {"default budget": (DEFAULT_IMAGE_MIN_TOKENS, DEFAULT_IMAGE_MAX_TOKENS),
           "unresized": (None, None)}
ONE_TOKEN = SamplingOptions(max_tokens=1, temperature=0.0, thinking=False)


def prefill(model: LlamaModel, size: tuple[int, int], runs: int) -> tuple[int, float]:
    """(image tokens, median prefill seconds) of a first step at this screen size."""
    messages = step_messages(0, size=size)
    seconds, tokens = [], 0
    for _ in range(runs):
        model.cache.clear()
        completion = model.complete(messages, ONE_TOKEN)
        seconds.append(completion.prefill_s)
        tokens = completion.image_tokens
    return tokens, median(seconds)


def decode_speed(model: LlamaModel) -> tuple[int, float]:
    model.cache.clear()
    completion = model.complete(step_messages(0), SamplingOptions(
        max_tokens=64, temperature=0.0, thinking=True))
    return completion.completion_tokens, completion.completion_tokens / completion.decode_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--gpu-layers", type=int, default=None)
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    files = model_files(args.model)
    print(f"prefill of a first step (median of {args.runs} runs after a warm-up)")
    decode = None
    for budget, (low, high) in BUDGETS.items():
        model = LlamaModel(LlamaSettings(files.model, files.mmproj, threads=args.threads,
                                         grammar=False, image_min_tokens=low,
                                         image_max_tokens=high, gpu_layers=args.gpu_layers),
                           Surface.BROWSER)
        if decode is None:
            print(f"model {model.name}, GPU layers {model.gpu_layers}, offloaded "
                  f"{model.offloaded or '-'}", flush=True)
        prefill(model, (1280, 800), 1)  # warm-up: first image encode, kernels
        for label, size in SIZES.items():
            tokens, seconds = prefill(model, size, args.runs)
            print(f"  {budget:15s} {label:18s} {tokens:5d} image tokens  prefill "
                  f"{seconds:7.3f} s", flush=True)
        if decode is None:
            decode = decode_speed(model)
        model.close()
    assert decode is not None
    print(f"decode: {decode[1]:.1f} tokens/s ({decode[0]} tokens, grammar off)")
    print(f"peak RSS {peak_rss_mib():.0f} MiB")


if __name__ == "__main__":
    main()
