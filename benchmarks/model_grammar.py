"""What the action grammar costs per answer at the real vocabulary size (248,320 tokens).

    .venv/bin/python benchmarks/model_grammar.py [--runs 5] [--decode-s-per-token 1.0]

Uses the `vocab` model (tiny layers, the real vocabulary) so that what scales with
the vocabulary, sampling and grammar checks, is measured without a 9B model's
compute. Three ways to pick each token of the same answer:
  free     the sampler chain alone (no grammar)
  lazy     venusctl: sample first, ask the grammar about that one token, check the
           whole vocabulary only when it is rejected
  full     the grammar applied to the whole vocabulary every token (what
           llama-cpp-python's `grammar=` does)
For "a trained model" the logits favour the next token of a valid answer (teacher
forcing); for "a random model" they are random and the lazy path is rejected often.
The overhead per answer is compared with the decode time of the same number of
tokens on the shape-true 9B model (`--decode-s-per-token`, measured by
benchmarks/model_9b.py) and on the `vocab` model itself (a lower bound).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from model_common import ANSWERS, median, model_files

from venusctl.actions import Surface
from venusctl.model.base import SamplingOptions
from venusctl.model.grammar import GrammarOptions, action_grammar
from venusctl.model.native import TextModel
from venusctl.model.sampler import Sampler

OPTIONS = SamplingOptions(temperature=0.0, repeat_penalty=1.0)


def answer_tokens(model: TextModel) -> list[int]:
    """A realistic answer after the template's `<think>\\n`: thought, then the action."""
    text = ANSWERS[0].removeprefix("<think>")
    return model.tokenize(text, special=True)


def time_answer(model: TextModel, grammar: str | None, tokens: list[int], mode: str,
                rng: np.random.Generator) -> tuple[float, int, int]:
    """Seconds choosing the tokens of one answer, rejections, tokens chosen.

    trained/full: teacher-forced along `tokens`; random: the model's own random
    choices under the grammar until the answer is complete (or 400 tokens)."""
    sampler = Sampler(model, OPTIONS, grammar, seed=1)
    spent, chosen_count, text = 0.0, 0, b""
    try:
        for index in range(len(tokens) if mode != "random" else 400):
            logits = rng.normal(0, 1, model.n_vocab).astype(np.float32)
            if mode != "random":
                logits[tokens[index]] = 30.0  # a trained model: the valid token stands out
            started = time.perf_counter()
            token = sampler._pick(logits, True) if mode == "full" else sampler.sample(logits)
            spent += time.perf_counter() - started
            chosen_count += 1
            token = token if mode == "random" else tokens[index]
            sampler.accept(token)
            text += model.piece(token)
            if mode == "random" and text.endswith(b"</action>") and sampler.allows(model.eos):
                break
        return spent, sampler.stats.rejected, chosen_count
    finally:
        sampler.close()


def decode_seconds_per_token(files) -> float:
    from model_common import step_messages

    from venusctl.model.llama import LlamaModel, LlamaSettings

    model = LlamaModel(LlamaSettings(files.model, files.mmproj, grammar=False,
                                     image_max_tokens=256, image_min_tokens=None),
                       Surface.BROWSER)
    completion = model.complete(step_messages(0), SamplingOptions(max_tokens=64))
    model.close()
    return completion.decode_s / max(completion.completion_tokens, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--decode-s-per-token", type=float, default=None,
                        help="the 9B model's decode time per token (from model_9b.py)")
    args = parser.parse_args()
    files = model_files("vocab")
    model = TextModel(files.model, vocab_only=True)
    started = time.perf_counter()
    model.whole_characters()
    table_s = time.perf_counter() - started
    grammar = action_grammar(Surface.BROWSER)
    tokens = answer_tokens(model)
    rng = np.random.default_rng(5)
    rows = {}
    random_grammar = action_grammar(Surface.BROWSER, GrammarOptions(thought_chars=len(
        ANSWERS[0])))
    for label, use, mode in (("free", None, "trained"), ("lazy", grammar, "trained"),
                             ("full", grammar, "full"),
                             ("lazy, random model", random_grammar, "random")):
        runs = [time_answer(model, use, tokens, mode, rng) for _ in range(args.runs)]
        rows[label] = (median([r[0] / r[2] for r in runs]), median([r[1] for r in runs]),
                       median([r[2] for r in runs]))
    n = len(tokens)
    vocab_decode = decode_seconds_per_token(files)
    print(f"vocabulary {model.n_vocab} tokens; answer {n} tokens; whole-character table "
          f"built once in {table_s:.2f} s")
    free = rows["free"][0]
    for label, (per_token, rejected, count) in rows.items():
        print(f"  {label:19s} {per_token * 1000:7.3f} ms/token  (answer of {count:.0f} tokens, "
              f"{rejected:.0f} refused by the grammar)")
    overhead = (rows["lazy"][0] - free) * n
    full_overhead = (rows["full"][0] - free) * n
    random_overhead = (rows["lazy, random model"][0] - free) * n
    print(f"grammar overhead per {n}-token answer: lazy {overhead * 1000:.1f} ms, full "
          f"{full_overhead * 1000:.1f} ms, lazy with a random model {random_overhead * 1000:.1f}"
          f" ms")
    print(f"  vs decode on the vocab model ({vocab_decode * 1000:.1f} ms/token): lazy "
          f"{overhead / (vocab_decode * n):.1%}, full {full_overhead / (vocab_decode * n):.1%}")
    if args.decode_s_per_token:
        decode = args.decode_s_per_token * n
        print(f"  vs decode on the 9B model ({args.decode_s_per_token:.2f} s/token): lazy "
              f"{overhead / decode:.2%}, random model {random_overhead / decode:.2%}, full "
              f"{full_overhead / decode:.2%} (goal: at most 10 %)")
    model.close()


if __name__ == "__main__":
    main()
