"""UI-Venus-2 in-process through llama.cpp: GGUF text model + projector, one context per run.

One `complete` call:
  render    the messages with the GGUF's own chat template (thinking on or off)
  tokenise  text and screenshots into keyed units (`venusctl.model.llama.vision`)
  restore   the deepest cached snapshot whose prefix matches (`prefix_cache`)
  prefill   only the units after it, snapshotting where the next step will resume
  decode    token by token, a grammar from the surface's action set checked lazily
  return    `<think>…</think>` + the action, with token counts and timings

The context lives as long as the model object (a run), sized from what the prompts
really need (text tokens + image tokens + the answer), and grows when a prompt
would not fit.
"""

from __future__ import annotations

import codecs
import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

from venusctl.core.actions import Surface, split_answer
from venusctl.core.errors import ModelError, UsageError
from venusctl.model.base import Completion, ImagePart, Message, OnText, SamplingOptions
from venusctl.model.grammar import GrammarOptions, action_grammar, fitting_budget
from venusctl.model.llama.native import BackendInfo, Context, ContextParams, State, TextModel
from venusctl.model.llama.native import backend_info as _backend_info
from venusctl.model.llama.prefix_cache import PrefixCache, Snapshot
from venusctl.model.llama.sampler import GrammarStats, Sampler
from venusctl.model.llama.template import ChatTemplate, Rendered
from venusctl.model.llama.vision import Prompt, Unit, Vision, VisionParams

log = logging.getLogger(__name__)
_THINK_CLOSE = re.compile("</think>", re.IGNORECASE)

DEFAULT_IMAGE_MIN_TOKENS: int | None = None
DEFAULT_IMAGE_MAX_TOKENS: int | None = None
"""None: screenshots go in unresized, up to the projector's own limit (4,096 tokens), as
the authors send them; the interface profile (`venusctl.interface.profile`, `--interface lean`)
or `--image-max-tokens` set a budget."""
STOP = "</action>"
CONTEXT_STEP = 1024
DEFAULT_SNAPSHOTS = 2
INTERRUPTIBLE_BYTES = 1 << 30
"""From this model size on, Ctrl-C can stop a decode midway (see native._Interrupts)."""
ACTION_RESERVE = 200
"""Tokens kept for the action when the thought has to be closed for the model."""


@dataclass
class LlamaSettings:
    """How to load and run the local model (the CLI's flags, resolved)."""

    model_path: Path
    mmproj_path: Path
    n_ctx: int | None = None  # None: size it from each prompt
    threads: int | None = None
    gpu_layers: int | None = None  # None: all layers when the build can offload, else none
    image_min_tokens: int | None = DEFAULT_IMAGE_MIN_TOKENS
    image_max_tokens: int | None = DEFAULT_IMAGE_MAX_TOKENS
    flash_attn: bool = True
    grammar: bool = True
    verbose: bool = False
    prefix_cache: bool = True
    snapshots: int = DEFAULT_SNAPSHOTS
    mmap: bool = False  # see TextModel: a map doubles peak memory when weights are repacked
    interruptible: bool | None = None  # None: for models of 1 GiB and more (see native)


def backend_info() -> BackendInfo:
    """Which ggml backends (CPU, CUDA, Metal, …) the installed build has."""
    return _backend_info()


def resolve_gpu_layers(asked: int | None, info: BackendInfo | None = None) -> int:
    """Layers to offload: as asked, else all of them (-1) when the build has a GPU backend."""
    if asked is not None:
        return asked
    info = info or _backend_info()
    return -1 if info.gpu_offload and info.gpus else 0


def backend_label(gpu_layers: int, info: BackendInfo | None = None) -> str:
    """What runs the layers: `CPU`, or the GPU backend (`CUDA`, `Metal`, ...)."""
    info = info or _backend_info()
    if gpu_layers != 0 and info.gpu_offload and info.gpu_kind:
        return info.gpu_kind
    return "CPU"


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class LlamaModel:
    """The `Model` protocol over llama.cpp; one instance per run (it keeps the context)."""

    supports_grammar = True

    def __init__(self, settings: LlamaSettings, surface: Surface | None = None) -> None:
        self.settings = settings
        self.surface = surface
        self.threads = settings.threads or default_threads()
        if settings.verbose:
            logging.getLogger("venusctl.llama").setLevel(logging.DEBUG)
        _check_budget(settings)
        info = _backend_info()
        self.gpu_layers = resolve_gpu_layers(settings.gpu_layers, info)
        self.backend = backend_label(self.gpu_layers, info)
        self.name = f"llama.cpp/{self.backend}:{settings.model_path.name}"
        """Names the backend, so a run's first progress line says where the model runs."""
        self.text = TextModel(settings.model_path, self.gpu_layers, mmap=settings.mmap)
        self.offloaded = self.text.offloaded
        try:
            self.vision = Vision(settings.mmproj_path, self.text, VisionParams(
                threads=self.threads, flash_attn=settings.flash_attn,
                use_gpu=self.gpu_layers != 0, min_tokens=settings.image_min_tokens,
                max_tokens=settings.image_max_tokens))
        except BaseException:
            self.text.close()
            raise
        try:
            self.template = ChatTemplate(self._template_source())
        except BaseException:
            self.vision.close()
            self.text.close()
            raise
        self.context: Context | None = None
        self.cache: PrefixCache[State] = PrefixCache(
            settings.snapshots if settings.prefix_cache else 0)
        self.last_grammar: GrammarStats | None = None
        self._calls = 0

    def _template_source(self) -> str:
        source = self.text.chat_template()
        if not source:
            raise ModelError(f"{self.settings.model_path.name} has no embedded chat template")
        return source

    # ----------------------------------------------------------------- the seam
    def complete(
        self, messages: list[Message], options: SamplingOptions, on_text: OnText | None = None
    ) -> Completion:
        started = time.perf_counter()
        rendered = self.template.render(messages, self.vision.marker, options.thinking)
        prompt = self.vision.tokenize(rendered.text, rendered.images)
        try:
            context = self._context_for(prompt.n_tokens + options.max_tokens)
            reused, n_past = self._prefill(context, prompt, _opens_with_image(messages))
            prefilled = time.perf_counter()
            raw, generated = self._decode(context, prompt, n_past, options, rendered, on_text)
        finally:
            prompt.close()
        finished = time.perf_counter()
        return self._completion(raw, rendered, prompt, reused, generated,
                                (started, prefilled, finished))

    def close(self) -> None:
        self.cache.clear()
        if self.context is not None:
            self.context.close()
            self.context = None
        self.vision.close()
        self.text.close()

    # ------------------------------------------------------------------ context
    def _context_for(self, needed: int) -> Context:
        """A context with room for `needed` cells, created or grown on demand."""
        fixed = self.settings.n_ctx
        if fixed is not None and needed > fixed:
            raise ModelError(
                f"the prompt needs {needed} context tokens (text + image tokens + max tokens) "
                f"but --n-ctx is {fixed}; raise --n-ctx or lower --image-max-tokens/--max-tokens")
        if self.context is not None and self.context.n_ctx >= needed:
            return self.context
        size = fixed or _round_up(int(needed * 1.25), CONTEXT_STEP)
        limit = self.text.n_ctx_train
        if fixed is None and limit > 0:
            if needed > limit:
                raise ModelError(f"the prompt needs {needed} tokens, more than the model's "
                                 f"trained context of {limit}")
            size = min(size, limit)
        if self.context is not None:
            log.debug("growing the context from %d to %d tokens", self.context.n_ctx, size)
            self.context.close()
            self.context = None
        self.context = Context(self.text, ContextParams(
            size, self.threads, self.settings.flash_attn, interruptible=self._interruptible()))
        return self.context

    def _interruptible(self) -> bool:
        chosen = self.settings.interruptible
        if chosen is not None:
            return chosen
        return self.settings.model_path.stat().st_size >= INTERRUPTIBLE_BYTES

    # ------------------------------------------------------------------ prefill
    def _prefill(self, context: Context, prompt: Prompt, image_first: bool) -> tuple[int, int]:
        """Restore the best snapshot, evaluate the rest; returns (reused cells, n_past)."""
        units = prompt.units
        keep = _snapshot_points(units, image_first)
        found = self.cache.deepest([u.key for u in units], limit=len(units) - 1)
        if found is None:
            context.clear()
            start, n_past, reused = 0, 0, 0
        else:
            index, snapshot = found
            context.restore(snapshot.state)
            start, n_past, reused = index + 1, snapshot.n_past, snapshot.n_tokens
        for index in keep:
            if index < start:
                self.cache.touch(units[index].key)  # still wanted: keep it over older ones
        filled = reused
        for index in range(start, len(units)):
            unit = units[index]
            last = index == len(units) - 1
            if unit.image >= 0:
                n_past = self.vision.eval_image(context, prompt, unit, n_past, last)
            else:
                context.decode(unit.tokens, n_past, logits_last=last)
                n_past += unit.n_pos
            filled += unit.n_tokens
            if index in keep:
                self._keep(unit.key, context, n_past, filled)
        return reused, n_past

    def _keep(self, key: bytes, context: Context, n_past: int, filled: int) -> None:
        if key in self.cache:
            self.cache.touch(key)
        else:
            self.cache.put(key, Snapshot(context.save(), n_past, filled))

    # ------------------------------------------------------------------- decode
    def _decode(self, context: Context, prompt: Prompt, n_past: int, options: SamplingOptions,
                rendered: Rendered, on_text: OnText | None) -> tuple[str, int]:
        plan = None if options.grammar else self._action_grammar(options, rendered)
        grammar = options.grammar or (plan.first if plan is not None else None)
        self._calls += 1
        seed = options.seed if options.seed is not None else 0x5EED + self._calls
        sampler = Sampler(self.text, options, grammar, seed)
        closing = _ThoughtBudget(self.text, options, rendered, active=grammar is not None)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
        text = ""
        generated = 0
        try:
            for _ in range(options.max_tokens):
                token = closing.forced(generated, text, sampler)
                if token is None:
                    token = sampler.sample(context)
                    if self.text.is_eog(token):
                        break
                sampler.accept(token)
                generated += 1
                piece = decoder.decode(self.text.piece(token))
                text += piece
                if on_text is not None and piece:
                    on_text(piece)
                if plan is not None:
                    plan.after_token(text, options.max_tokens - generated, sampler)
                if _finished(text, sampler, self.text.eos):
                    break
                if prompt.n_tokens + generated >= context.n_ctx:
                    raise ModelError(f"the answer ran out of context ({context.n_ctx} tokens)")
                context.decode([token], n_past, logits_last=True)
                n_past += 1
        finally:
            self.last_grammar = sampler.stats if sampler.grammar is not None else None
            sampler.close()
        text += decoder.decode(b"", final=True)
        if sampler.grammar is None and STOP in text:
            text = text[: text.index(STOP) + len(STOP)]
        return text, generated

    def _action_grammar(self, options: SamplingOptions, rendered: Rendered,
                        ) -> _ActionGrammar | None:
        """The action grammar, on by default when the model answers for a surface."""
        if not self.settings.grammar or self.surface is None:
            return None
        return _ActionGrammar(self.surface, self.text, options, rendered.think_opened)

    def _completion(self, raw: str, rendered: Rendered, prompt: Prompt, reused: int,
                    generated: int, marks: tuple[float, float, float]) -> Completion:
        started, prefilled, finished = marks
        text = raw
        if rendered.think_opened and "<think>" not in raw:
            text = "<think>" + raw  # the template opened the thought inside the prompt
        reasoning = None
        if "</think>" in text:
            thought, body = split_answer(text)
            reasoning = thought or None
            text = f"<think>{thought}</think>\n{body.strip()}"
        return Completion(
            text=text, reasoning=reasoning, prompt_tokens=prompt.n_tokens,
            completion_tokens=generated, reused_tokens=reused,
            image_tokens=prompt.image_tokens, prefill_s=prefilled - started,
            decode_s=finished - prefilled, total_s=finished - started)


class _ActionGrammar:
    """The grammar of one answer, swapped once the thought is closed.

    Until then, any thought (closed for the model in time by `_ThoughtBudget`); from
    `</think>` on, the action is held to the tokens that are left: its grammar admits
    nothing longer in bytes, and every token is at least one byte, so the answer ends
    in a whole action however the model picks (a random-weight one included). Without
    a thought the first grammar already fits the whole budget.
    """

    def __init__(self, surface: Surface, model: TextModel, options: SamplingOptions,
                 think_opened: bool) -> None:
        self.surface, self.model = surface, model
        budget = None if options.thinking else fitting_budget(surface, options.max_tokens)
        self.first = action_grammar(surface, GrammarOptions(
            thinking=options.thinking, think_opened=think_opened, budget=budget))
        self.swapped = False

    def after_token(self, text: str, left: int, sampler: Sampler) -> None:
        if self.swapped:
            return
        closed = _THINK_CLOSE.search(text)
        if closed is None:
            return
        self.swapped = True
        grammar = action_grammar(self.surface, GrammarOptions(
            after_thought=True, budget=fitting_budget(self.surface, left)))
        rest = text[closed.end():]
        sampler.swap_grammar(grammar, self.model.tokenize(rest, special=False) if rest else [])


class _ThoughtBudget:
    """Closes a thought that would leave no room for the action.

    With the grammar on, an answer must end in a valid action; if the thought is
    still open when only `reserve` tokens of `max_tokens` remain, `</think>` is
    written for the model (budget forcing) and the grammar takes it from there.
    """

    def __init__(self, model: TextModel, options: SamplingOptions, rendered: Rendered,
                 active: bool) -> None:
        self.active = active  # with thinking off, a thought the model opens itself
        self.limit = options.max_tokens - min(ACTION_RESERVE, options.max_tokens // 2)
        self.opened = rendered.think_opened
        self.queue: list[int] = []
        self.model = model
        self.done = False

    def forced(self, generated: int, text: str, sampler: Sampler) -> int | None:
        if self.queue:
            return self.queue.pop(0)
        if not self.active or self.done or generated < self.limit:
            return None
        self.done = True
        if "</think>" in text or not (self.opened or "<think>" in text):
            return None
        tokens = self.model.tokenize("\n</think>\n", special=True)
        if not tokens or not sampler.allows(tokens[0]):
            return None
        self.queue = tokens[1:]
        return tokens[0]


def _finished(text: str, sampler: Sampler, eos: int) -> bool:
    """The answer is complete: `</action>` written (and, under a grammar, at its end:
    a string in the action may itself contain that text)."""
    if sampler.grammar is None:
        return STOP in text
    return text.endswith(STOP) and sampler.allows(eos)


def _opens_with_image(messages: list[Message]) -> bool:
    last = messages[-1].parts if messages else ()
    return bool(last) and isinstance(last[0], ImagePart)


def _snapshot_points(units: list[Unit], image_first: bool) -> set[int]:
    """Where the next request will most likely resume (indexes of units to save after).

    - Before the last message: a retry, or the next step when earlier messages stay
      as they are (the current user message changes: its image is dropped or
      relabelled, feedback or a retry note is added).
    - Before the first message holding an image: with history screenshots, the
      oldest one is dropped next step, so everything before it stays.
    - After an image that opens the last message: a new question about the same
      screenshot (grounding) resumes there.
    """
    starts = [i for i, unit in enumerate(units) if unit.message_start]
    if starts and starts[-1] == len(units) - 1:
        starts.pop()  # the generation prompt, not a message
    if not starts:
        return set()
    points: set[int] = set()
    last = starts[-1]
    points.add(last - 1)
    images = [i for i, unit in enumerate(units) if unit.image >= 0]
    if images:
        owner = max((s for s in starts if s <= images[0]), default=0)
        points.add(owner - 1)
        if image_first:
            points.update(i for i in images if last < i <= last + 2)
    return {p for p in points if 0 <= p < len(units) - 1}


def _check_budget(settings: LlamaSettings) -> None:
    fixed = settings.n_ctx
    images = settings.image_max_tokens or 4096
    if fixed is not None and fixed < images + 256:
        raise ModelError(
            f"--n-ctx {fixed} is too small for the image budget of up to {images} tokens; "
            f"use at least {images + 256} plus room for the text and the answer")
    low, high = settings.image_min_tokens, settings.image_max_tokens
    if low is not None and high is not None and low > high:
        raise UsageError(f"--image-min-tokens {low} is above --image-max-tokens {high}")


def _round_up(value: int, step: int) -> int:
    return max(step, -(-value // step) * step)
