"""Steps 2..10 of a run: prefill tokens and seconds with prefix reuse vs without.

    .venv/bin/python benchmarks/model_reuse.py [--model tiny|vocab|9b] [--steps 10]
                                               [--history-images 0] [--gpu-layers N]

A browser run with scripted earlier answers (so both models see the same prompts),
1280x800 screenshots at the default image budget. For each step: the prompt's KV
cells, the cells new since the previous step's prompt (its longest common prefix),
the cells venusctl evaluated with reuse, and prefill seconds with and without reuse.
Goal: on reused steps, evaluated <= 1.1 x new. Prints per step, then medians.
"""

from __future__ import annotations

import argparse

from model_common import median, model_files, step_messages

from venusctl.core.actions import Surface
from venusctl.model.base import SamplingOptions
from venusctl.model.llama.backend import LlamaModel, LlamaSettings

OPTIONS = SamplingOptions(max_tokens=8, temperature=0.0)


def common_prefix(model: LlamaModel, before: list, after: list) -> int:
    """KV cells two prompts share from the start (whole units, then text tokens)."""
    prompts = []
    for messages in (before, after):
        rendered = model.template.render(messages, model.vision.marker, True)
        prompts.append(model.vision.tokenize(rendered.text, rendered.images))
    shared = 0
    try:
        for one, two in zip(prompts[0].units, prompts[1].units, strict=False):
            if one.key == two.key:
                shared += one.n_tokens
                continue
            if one.image < 0 and two.image < 0:
                for a, b in zip(one.tokens, two.tokens, strict=False):
                    if a != b:
                        break
                    shared += 1
            break
    finally:
        for prompt in prompts:
            prompt.close()
    return shared


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--history-images", type=int, default=0)
    parser.add_argument("--gpu-layers", type=int, default=None)
    args = parser.parse_args()
    files = model_files(args.model)
    warm = LlamaModel(LlamaSettings(files.model, files.mmproj, grammar=False,
                                    gpu_layers=args.gpu_layers), Surface.BROWSER)
    cold = LlamaModel(LlamaSettings(files.model, files.mmproj, grammar=False,
                                    prefix_cache=False, gpu_layers=args.gpu_layers),
                      Surface.BROWSER)
    from venusctl.interface.messages import build

    print(f"model: {args.model} ({warm.name}), history images {args.history_images}")
    print("step  prompt   new  evaluated  ratio   prefill warm   prefill cold")
    rows = []
    previous = None
    for step in range(args.steps):
        messages = step_messages(step)
        if args.history_images:
            messages = _with_history_images(step, args.history_images, build)
        hot = warm.complete(messages, OPTIONS)
        plain = cold.complete(messages, OPTIONS)
        new = hot.prompt_tokens - (common_prefix(warm, previous, messages) if previous else 0)
        evaluated = hot.prompt_tokens - hot.reused_tokens
        rows.append((step + 1, hot.prompt_tokens, new, evaluated, hot.prefill_s, plain.prefill_s))
        print(f"{step + 1:4d}  {hot.prompt_tokens:6d} {new:5d} {evaluated:10d} "
              f"{evaluated / max(new, 1):6.3f}   {hot.prefill_s:10.3f} s {plain.prefill_s:12.3f} s")
        previous = messages
    later = rows[1:]
    print(f"steps 2..{args.steps} medians: evaluated/new "
          f"{median([r[3] / max(r[2], 1) for r in later]):.3f} (max "
          f"{max(r[3] / max(r[2], 1) for r in later):.3f}), prefill warm "
          f"{median([r[4] for r in later]):.3f} s vs cold {median([r[5] for r in later]):.3f} s "
          f"(x{median([r[5] for r in later]) / median([r[4] for r in later]):.1f}), "
          f"cells evaluated {median([r[3] for r in later]):.0f} vs "
          f"{median([r[1] for r in later]):.0f}")
    warm.close()
    cold.close()


def _with_history_images(step: int, count: int, build):
    from model_common import ANSWERS, TASK, screen

    from venusctl.interface.messages import Turn, load_template, system_prompt

    system = system_prompt(load_template(Surface.BROWSER), TASK)
    history = [Turn(ANSWERS[i % len(ANSWERS)], screen(i)) for i in range(step)]
    return build(system, history, screen(step), None, count)


if __name__ == "__main__":
    main()
