"""One model step through venusctl vs a bare llama-cpp-python call, same messages and image.

    .venv/bin/python benchmarks/model_step.py [--model tiny|vocab|grammatical|9b|FILE]
                                              [--runs 7] [--max-tokens 48] [--gpu-layers N]

Bare: `Llama(chat_handler=MTMDChatHandler(...)).create_chat_completion(...)`, the
library's own multimodal path. venusctl: `LlamaModel.complete` with its prefix cache
emptied before every run (a first step), grammar off so both sample the same way
(a second line shows the cost with the grammar on). Same context size, threads,
flash attention, image budget (the library default, which the bare handler cannot
change), greedy, no repetition penalty. Prints medians and venusctl/bare ratios
(goal: at most 1.03 on the first step), in wall-clock seconds and in the process's
CPU seconds: on a machine shared with other work, `--threads 1` and the CPU-time
ratio measure the work done rather than the waiting for a core.

Then the cost of thinking: decode tokens and seconds of one answer with thinking on
and with it off (the template's empty think block), grammar on, up to
`--thinking-tokens`. A random-weight model thinks until the grammar's bound; the
`grammatical` model writes its one-sentence thought; a real model, given by file,
shows its real habit.
"""

from __future__ import annotations

import argparse
import os
import time

from model_common import median, model_files, step_messages

from venusctl.core.actions import Surface
from venusctl.model.base import SamplingOptions
from venusctl.model.llama.backend import (
    LlamaModel,
    LlamaSettings,
    default_threads,
    resolve_gpu_layers,
)

N_CTX = 8192


def bare_runner(files, threads: int, gpu_layers: int):
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import MTMDChatHandler

    handler = MTMDChatHandler(clip_model_path=str(files.mmproj), verbose=False,
                              use_gpu=gpu_layers != 0)
    llm = Llama(model_path=str(files.model), chat_handler=handler, n_ctx=N_CTX,
                n_threads=threads, n_threads_batch=threads, flash_attn=True, verbose=False,
                n_gpu_layers=gpu_layers)

    def run(messages, max_tokens: int) -> tuple[float, int]:
        started = time.perf_counter()
        result = llm.create_chat_completion(
            messages=[m.to_openai() for m in messages], max_tokens=max_tokens,
            temperature=0.0, repeat_penalty=1.0)
        return time.perf_counter() - started, result["usage"]["completion_tokens"]

    return run, llm


def venus_runner(files, threads: int, grammar: bool, image_max: int | None, gpu_layers: int):
    model = LlamaModel(LlamaSettings(
        files.model, files.mmproj, n_ctx=N_CTX, threads=threads, grammar=grammar,
        image_min_tokens=None, image_max_tokens=image_max, gpu_layers=gpu_layers),
        Surface.BROWSER)

    def run(messages, max_tokens: int) -> tuple[float, int]:
        model.cache.clear()  # a first step: nothing to reuse
        started = time.perf_counter()
        completion = model.complete(messages, SamplingOptions(
            max_tokens=max_tokens, temperature=0.0, repeat_penalty=1.0))
        return time.perf_counter() - started, completion.completion_tokens

    return run, model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--gpu-layers", type=int, default=None,
                        help="default: all where the build has a GPU backend, else none")
    parser.add_argument("--thinking-tokens", type=int, default=600)
    args = parser.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    files = model_files(args.model)
    messages = step_messages(0)
    layers = resolve_gpu_layers(args.gpu_layers)

    bare, llm = bare_runner(files, args.threads, layers)
    venus, model = venus_runner(files, args.threads, False, None, layers)
    venus_g, model_g = venus_runner(files, args.threads, True, None, layers)
    times: dict[str, list[float]] = {"bare": [], "venusctl": [], "venusctl+grammar": []}
    tokens: dict[str, list[int]] = {k: [] for k in times}
    for run in (bare, venus, venus_g):
        run(messages, 4)  # warm-up: first image encode, page cache
    cpu: dict[str, list[float]] = {k: [] for k in times}
    for _ in range(args.runs):  # interleaved, so load from others spreads evenly
        for name, run in (("bare", bare), ("venusctl", venus), ("venusctl+grammar", venus_g)):
            before = time.process_time()
            seconds, count = run(messages, args.max_tokens)
            cpu[name].append(time.process_time() - before)
            times[name].append(seconds)
            tokens[name].append(count)
    print(f"model: {args.model} ({model.name}, GPU layers {layers}), threads {args.threads}, "
          f"runs {args.runs}, max tokens {args.max_tokens}")
    base, base_cpu = median(times["bare"]), median(cpu["bare"])
    for name in times:
        value, used = median(times[name]), median(cpu[name])
        print(f"  {name:17s} median {value:8.3f} s   tokens {median(tokens[name]):5.0f}   "
              f"ratio to bare {value / base:5.3f}   (CPU time {used:7.3f} s, ratio "
              f"{used / base_cpu:5.3f})")
    llm.close()
    model.close()
    thinking_cost(model_g, messages, args.thinking_tokens)
    model_g.close()


def thinking_cost(model: LlamaModel, messages, max_tokens: int) -> None:
    """Decode tokens and seconds per step with thinking on and off (grammar on)."""
    print(f"thinking cost per step (grammar on, up to {max_tokens} tokens):")
    for thinking in (True, False):
        model.cache.clear()
        completion = model.complete(messages, SamplingOptions(
            max_tokens=max_tokens, temperature=0.0, thinking=thinking))
        print(f"  thinking {'on ' if thinking else 'off'}  {completion.completion_tokens:5d} "
              f"decode tokens, decode {completion.decode_s:7.3f} s")


if __name__ == "__main__":
    main()
