"""What the action grammar costs per decoded token, on a model that answers grammatically.

    .venv/bin/python benchmarks/model_grammar.py [--runs 7] [--model grammatical]
                                                 [--decode-s-per-token 0.01]

The `grammatical` model has the real 248,320-token vocabulary and weights biased
towards one valid answer (tests/support/tiny_model.py), so, like a trained model,
it writes what the grammar allows and the lazy check (sample, then ask the grammar
about that one token) nearly never has to look at the whole vocabulary. Each run
decodes the same answer through `LlamaModel.complete` with the grammar on and off,
interleaved; the figure is decode time per token (prefill excluded). Goal: the
grammar adds at most 5 % to decode time.

For scale it also prints what one whole-vocabulary check costs (what a refused
token pays, and what llama-cpp-python's `grammar=` pays on every token), and how
often the grammar refuses a random model's tokens (`vocab`).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from model_common import median, model_files, step_messages

from venusctl.core.actions import Surface
from venusctl.model.base import SamplingOptions
from venusctl.model.grammar import action_grammar
from venusctl.model.llama.backend import LlamaModel, LlamaSettings, default_threads
from venusctl.model.llama.sampler import Sampler

OPTIONS = SamplingOptions(max_tokens=120, temperature=0.0)


def open_model(files, grammar: bool, threads: int, gpu_layers: int | None) -> LlamaModel:
    return LlamaModel(LlamaSettings(files.model, files.mmproj, threads=threads, grammar=grammar,
                                    image_min_tokens=None, image_max_tokens=256,
                                    gpu_layers=gpu_layers), Surface.BROWSER)


ANSWERS: list[str] = []


def decode_per_token(model: LlamaModel, messages: list) -> tuple[float, int, int]:
    """(seconds per decoded token, tokens, tokens the grammar refused) for one answer."""
    completion = model.complete(messages, OPTIONS)
    ANSWERS.append(completion.text)
    refused = model.last_grammar.rejected if model.last_grammar else 0
    return completion.decode_s / max(completion.completion_tokens, 1), \
        completion.completion_tokens, refused


def lazy_check_ms(model: LlamaModel, text: str, repeats: int = 20) -> float:
    """The grammar's own work per token of an accepted answer, timed alone: asking about
    the sampled token and advancing the grammar past it (robust to a busy machine)."""
    tokens = model.text.tokenize(text.removeprefix("<think>"), special=True)
    grammar = action_grammar(Surface.BROWSER)
    times = []
    for _ in range(repeats):
        sampler = Sampler(model.text, OPTIONS, grammar, seed=1)
        started = time.perf_counter()
        for token in tokens:
            if not sampler.allows(token):
                raise SystemExit(f"the grammar refused {model.text.piece(token)!r}")
            sampler.grammar_accept(token)
        times.append((time.perf_counter() - started) / len(tokens))
        sampler.close()
    return median(times) * 1000


def full_check_ms(model: LlamaModel, repeats: int = 5) -> float:
    """One pass of the grammar over the whole vocabulary, then the sampler chain."""
    sampler = Sampler(model.text, OPTIONS, action_grammar(Surface.BROWSER), seed=1)
    rng = np.random.default_rng(3)
    times = []
    try:
        for _ in range(repeats):
            logits = rng.normal(0, 1, model.text.n_vocab).astype(np.float32)
            started = time.perf_counter()
            sampler._constrained(logits)
            times.append(time.perf_counter() - started)
    finally:
        sampler.close()
    return median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--model", default="grammatical")
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--gpu-layers", type=int, default=None)
    parser.add_argument("--decode-s-per-token", type=float, default=None,
                        help="a real model's decode time per token, to compare a full check")
    parser.add_argument("--no-random", action="store_true", help="skip the random-model line")
    args = parser.parse_args()
    files = model_files(args.model)
    messages = step_messages(0)
    models = {"grammar off": open_model(files, False, args.threads, args.gpu_layers),
              "grammar on": open_model(files, True, args.threads, args.gpu_layers)}
    for model in models.values():
        decode_per_token(model, messages)  # warm-up
    results: dict[str, list[tuple[float, int, int]]] = {name: [] for name in models}
    for _ in range(args.runs):  # interleaved, so load from others spreads evenly
        for name, model in models.items():
            results[name].append(decode_per_token(model, messages))
    print(f"model: {args.model} ({models['grammar on'].text.n_vocab} tokens), "
          f"{models['grammar on'].name}, threads {args.threads}, runs {args.runs}")
    for name, rows in results.items():
        print(f"  {name:12s} decode {median([r[0] for r in rows]) * 1000:7.3f} ms/token  "
              f"({median([r[1] for r in rows]):.0f} tokens, {median([r[2] for r in rows]):.0f} "
              "refused by the grammar)")
    off = median([r[0] for r in results["grammar off"]])
    on = median([r[0] for r in results["grammar on"]])
    print(f"grammar overhead, end to end: {(on - off) / off:+.1%} of decode time "
          "(goal: at most 5 %; noisy on a busy machine)")
    lazy = lazy_check_ms(models["grammar on"], ANSWERS[-1])
    print(f"grammar overhead, its own work timed alone: {lazy:.3f} ms/token = "
          f"{lazy / (off * 1000):.2%} of decode time")
    check = full_check_ms(models["grammar on"])
    print(f"one whole-vocabulary grammar check: {check:.1f} ms (paid only for a refused token)")
    if args.decode_s_per_token:
        print(f"  = {check / 1000 / args.decode_s_per_token:.0%} of a "
              f"{args.decode_s_per_token * 1000:.0f} ms token of the real model")
    for model in models.values():
        model.close()
    if not args.no_random:
        random_model = open_model(model_files("vocab"), True, args.threads, args.gpu_layers)
        per_token, tokens, refused = decode_per_token(random_model, messages)
        print(f"a random model (vocab): {refused} of {tokens} tokens refused, decode "
              f"{per_token * 1000:.1f} ms/token with the grammar")
        random_model.close()


if __name__ == "__main__":
    main()
