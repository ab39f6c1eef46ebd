"""Random-weight models of the UI-Venus-2 family, written with the `gguf` package.

No real weights can be downloaded where the tests run, so the tests make their own:
a `qwen35` text model (hybrid gated-DeltaNet + full-attention blocks, the
architecture UI-Venus-2-9B has in llama.cpp) plus a `qwen3vl_merger` projector
("mmproj"), with a byte-level BPE vocabulary, the special tokens the chat template
and the projector need, and a Qwen3.5-style chat template (thinking on by default,
an empty closed think block with `enable_thinking=false`).

Two shapes:
- `TINY`: a few MB, loads in milliseconds; every model test uses it.
- `UI_VENUS_2_9B`: the real shapes, for benchmarks only (about 5 GB quantised to
  Q4_0 plus a 0.9 GB f16 projector). Its numbers come from the GGUF metadata of the
  published Qwen3.5-9B conversions (llama.cpp `qwen35`: 32 blocks, n_embd 4096,
  n_ff 12288, 16 query / 4 KV heads of 256, full attention every 4th block, rope
  dims 64 of 256 with base 1e7, SSM state 128, conv 4, 32 value heads, 16 groups,
  vocabulary 248,320) and the model's `config.json` `vision_config` (27 blocks,
  width 1152, FFN 4304, 16 heads, patch 16, spatial merge 2, output width 4096);
  see shared/docs/model-interface.md. UI-Venus-2-9B is a fine-tune of Qwen3.5-9B,
  so the shapes are the same.

Files are generated once into `$VENUSCTL_TEST_CACHE` (default
`~/.cache/venusctl-test`), keyed by a hash of everything that shapes them, so the
per-test XDG overrides in tests/conftest.py never force a rebuild.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import pytest

GENERATOR_VERSION = 4

SPECIAL_TOKENS: tuple[tuple[str, int], ...] = (
    # (text, gguf token type: 3 control, 4 user-defined)
    ("<|endoftext|>", 3),
    ("<|im_start|>", 3),
    ("<|im_end|>", 3),
    ("<|vision_start|>", 3),
    ("<|vision_end|>", 3),
    ("<|vision_pad|>", 3),
    ("<|image_pad|>", 3),
    ("<|video_pad|>", 3),
    ("<think>", 4),
    ("</think>", 4),
    ("<tool_call>", 4),
    ("</tool_call>", 4),
)

# A Qwen3.5-style template: earlier assistant turns lose their reasoning, the
# generation prompt opens `<think>\n` unless enable_thinking is false.
CHAT_TEMPLATE = """\
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) -%}
{%- for message in messages[::-1] -%}
{%- set index = (messages|length - 1) - loop.index0 -%}
{%- if ns.multi_step_tool and message.role == "user" -%}
{%- set ns.multi_step_tool = false -%}
{%- set ns.last_query_index = index -%}
{%- endif -%}
{%- endfor -%}
{%- for message in messages -%}
{%- if message.content is string -%}
{%- set content = message.content -%}
{%- else -%}
{%- set parts = namespace(text='') -%}
{%- for item in message.content -%}
{%- if item.type == 'text' -%}{%- set parts.text = parts.text + item.text -%}
{%- else -%}{%- set parts.text = parts.text + '<|vision_start|><|image_pad|><|vision_end|>' -%}
{%- endif -%}
{%- endfor -%}
{%- set content = parts.text -%}
{%- endif -%}
{%- if message.role == "system" or message.role == "user" -%}
{{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>\\n' -}}
{%- elif message.role == "assistant" -%}
{%- set reasoning_content = '' -%}
{%- if '</think>' in content -%}
{%- set before = content.split('</think>')[0].rstrip('\\n') -%}
{%- set reasoning_content = before.split('<think>')[-1].lstrip('\\n') -%}
{%- set content = content.split('</think>')[-1].lstrip('\\n') -%}
{%- endif -%}
{%- if loop.index0 > ns.last_query_index -%}
{{- '<|im_start|>assistant\\n<think>\\n' + reasoning_content.strip('\\n') -}}
{{- '\\n</think>\\n\\n' + content.lstrip('\\n') -}}
{%- else -%}
{{- '<|im_start|>assistant\\n' + content -}}
{%- endif -%}
{{- '<|im_end|>\\n' -}}
{%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
{{- '<|im_start|>assistant\\n' -}}
{%- if enable_thinking is defined and enable_thinking is false -%}
{{- '<think>\\n\\n</think>\\n\\n' -}}
{%- else -%}
{{- '<think>\\n' -}}
{%- endif -%}
{%- endif -%}
"""


@dataclass(frozen=True)
class TextShape:
    """Hyperparameters of a `qwen35` text model, as llama.cpp reads them."""

    n_vocab: int
    n_embd: int
    n_layer: int
    n_ff: int
    n_head: int
    n_head_kv: int
    head_dim: int
    rope_dim: int
    rope_sections: tuple[int, int, int, int]
    full_attention_interval: int
    ssm_state: int
    ssm_groups: int
    ssm_dt_rank: int
    ssm_conv: int = 4
    context_length: int = 262144
    rope_base: float = 1e7
    merges: int = 1500
    quant: str = "F32"  # F32 | F16 | Q4_0 for the 2-D weights


@dataclass(frozen=True)
class VisionShape:
    """Hyperparameters of a `qwen3vl_merger` projector."""

    n_embd: int
    n_layer: int
    n_ff: int
    n_head: int
    patch: int = 16
    merge: int = 2
    image_size: int = 768
    dtype: str = "F32"  # F32 | F16


@dataclass(frozen=True)
class ModelSpec:
    name: str
    text: TextShape
    vision: VisionShape
    seed: int = 1234
    answer: str | None = None
    """Bias the weights so that greedy decoding writes this answer after the chat
    template's `<think>\n` (see `answer_chain`): a stand-in for a trained model,
    whose answers the action grammar mostly accepts."""

    def key(self) -> str:
        fields = asdict(self)
        if fields["answer"] is None:
            del fields["answer"]  # keys of the unbiased models stay what they were
        blob = json.dumps({"v": GENERATOR_VERSION, **fields, "template": CHAT_TEMPLATE},
                          sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:12]


TINY = ModelSpec(
    name="tiny",
    text=TextShape(
        n_vocab=2048, n_embd=64, n_layer=2, n_ff=128, n_head=2, n_head_kv=1, head_dim=32,
        rope_dim=16, rope_sections=(4, 2, 2, 0), full_attention_interval=2,
        ssm_state=16, ssm_groups=2, ssm_dt_rank=4, context_length=32768,
    ),
    vision=VisionShape(n_embd=32, n_layer=2, n_ff=64, n_head=2),
)

TINY_REAL_VOCAB = ModelSpec(
    name="tiny-vocab248k",
    text=replace(TINY.text, n_vocab=248320, merges=6000),
    vision=TINY.vision,
)
"""Tiny layers, the real vocabulary size: for measuring what scales with the vocabulary
(sampling, grammar checks) without a 9B model's compute."""

GRAMMATICAL_ANSWER = ("The order form is open; I tap its empty name field first.</think>\n\n"
                      "<action>Click(point=(234, 150))</action>")
"""No token repeats before `</action>` (the biased model sees only the current token)."""

TINY_GRAMMATICAL = ModelSpec(
    name="tiny-vocab248k-grammatical",
    text=TINY_REAL_VOCAB.text,
    vision=TINY.vision,
    answer=GRAMMATICAL_ANSWER,
)
"""The real vocabulary, weights biased towards one valid answer: greedy decoding writes
it whatever the screenshot (and `<action>…</action>` straight away with thinking off),
so the grammar's lazy check nearly always passes, as with a trained model."""

UI_VENUS_2_9B = ModelSpec(
    name="ui-venus-2-9b-shape",
    text=TextShape(
        n_vocab=248320, n_embd=4096, n_layer=32, n_ff=12288, n_head=16, n_head_kv=4,
        head_dim=256, rope_dim=64, rope_sections=(11, 11, 10, 0), full_attention_interval=4,
        ssm_state=128, ssm_groups=16, ssm_dt_rank=32, merges=6000, quant="Q4_0",
    ),
    vision=VisionShape(n_embd=1152, n_layer=27, n_ff=4304, n_head=16, dtype="F16"),
)


@dataclass(frozen=True)
class ModelFiles:
    """A generated model on disk."""

    model: Path
    mmproj: Path
    spec: ModelSpec = field(repr=False)


def cache_dir() -> Path:
    """Outside the repository and outside the per-test XDG dirs."""
    configured = os.environ.get("VENUSCTL_TEST_CACHE")
    base = Path(configured) if configured else Path.home() / ".cache" / "venusctl-test"
    base.mkdir(parents=True, exist_ok=True)
    return base


def ensure_model(spec: ModelSpec = TINY, directory: Path | None = None) -> ModelFiles:
    """The model's files, generated on first use (a lock keeps parallel runs apart)."""
    folder = (directory or cache_dir()) / f"{spec.name}-{spec.key()}"
    files = ModelFiles(folder / "model.gguf", folder / "mmproj.gguf", spec)
    if files.model.exists() and files.mmproj.exists():
        return files
    folder.mkdir(parents=True, exist_ok=True)
    with _lock(folder / ".lock"):
        if not (files.model.exists() and files.mmproj.exists()):
            rng = np.random.default_rng(spec.seed)
            vocab = build_vocab(spec.text.n_vocab, spec.text.merges, rng)
            bias = answer_chain(folder, spec, vocab) if spec.answer else None
            _atomic(files.model, lambda p: write_text_model(p, spec.text, vocab, rng, bias))
            _atomic(files.mmproj, lambda p: write_projector(p, spec.vision, spec.text.n_embd, rng))
    return files


class _lock:
    """An exclusive lock file; generation takes seconds (tiny) to minutes (9B)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> None:
        import fcntl

        self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR)
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        import fcntl

        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def _atomic(path: Path, write: object) -> None:
    partial = path.with_suffix(".partial")
    write(partial)  # type: ignore[operator]
    partial.replace(path)


# --------------------------------------------------------------------- vocabulary


@dataclass
class Vocab:
    tokens: list[str]
    types: list[int]
    merges: list[str]
    specials: dict[str, int]


def byte_alphabet() -> dict[int, str]:
    """GPT-2's byte-to-unicode table: every byte as a printable character."""
    printable = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
                 + list(range(ord("®"), ord("ÿ") + 1)))
    table = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def training_text() -> str:
    """Text the merges are learnt from: the shipped prompts, answers in the model's
    syntax and the chat template's framing, so prompts tokenise realistically."""
    prompts = Path(__file__).resolve().parents[2] / "prompts"
    parts = [p.read_text(encoding="utf-8") for p in sorted(prompts.glob("*.md"))]
    parts += [
        "<think> The page shows an order form. I should click the name field first. </think>",
        "<action>Click(point=(120, 340))</action> <action>Type(content='Ada Lovelace')</action>",
        "<action>Scroll(point=(500, 500), direction='down')</action> Finished(content='done')",
        "History Screenshot: Current Screenshot: The last action failed: the user replied:",
        "system user assistant " * 3,
        " ".join(str(n) for n in range(0, 1000, 7)),
    ]
    return "\n".join(parts)


_PRETOKENIZE = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]| ?[^\sA-Za-z0-9]+|\s+""")


def learn_merges(text: str, count: int) -> list[tuple[str, str]]:
    """A plain BPE trainer over word counts (the corpus is small: a second or two)."""
    alphabet = byte_alphabet()
    words = Counter(
        tuple(alphabet[b] for b in piece.encode("utf-8")) for piece in _PRETOKENIZE.findall(text)
    )
    merges: list[tuple[str, str]] = []
    while len(merges) < count:
        pairs: Counter[tuple[str, str]] = Counter()
        for word, freq in words.items():
            for pair in itertools.pairwise(word):
                pairs[pair] += freq
        if not pairs:
            break
        best, freq = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        if freq < 2:
            break
        merges.append(best)
        words = Counter({_merge(word, best): f for word, f in words.items()})
    return merges


def _merge(word: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    out: list[str] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def build_vocab(n_vocab: int, n_merges: int, rng: np.random.Generator) -> Vocab:
    """Bytes, learnt merges, filler pieces up to `n_vocab`, then the special tokens.

    Filler pieces (letters, some with a leading space mark) stand in for the rest of
    a real vocabulary: they are never produced by tokenising, but a random model
    samples them and a grammar has to check them, as with the real 248k vocabulary.
    """
    alphabet = byte_alphabet()
    tokens = [alphabet[b] for b in range(256)]
    seen = set(tokens)
    merges = []
    for left, right in learn_merges(training_text(), n_merges):
        merges.append(f"{left} {right}")
        if left + right not in seen:
            seen.add(left + right)
            tokens.append(left + right)
    room = n_vocab - len(SPECIAL_TOKENS)
    if len(tokens) > room:
        raise ValueError(f"vocabulary of {n_vocab} is too small for {len(tokens)} pieces")
    letters = np.array(list("etaoinshrdlcumwfgypbvkjxqz"))
    while len(tokens) < room:
        size = int(rng.integers(2, 9))
        piece = ("Ġ" if rng.random() < 0.5 else "") + "".join(rng.choice(letters, size))
        if piece not in seen:
            seen.add(piece)
            tokens.append(piece)
    types = [1] * len(tokens)
    specials = {}
    for text, kind in SPECIAL_TOKENS:
        specials[text] = len(tokens)
        tokens.append(text)
        types.append(kind)
    return Vocab(tokens, types, merges, specials)


# ------------------------------------------------------------------ biased answer


def answer_chain(folder: Path, spec: ModelSpec, vocab: Vocab) -> list[tuple[int, int]]:
    """(token, next token) pairs that spell `spec.answer` after the generation prompt.

    The text is tokenised by llama.cpp itself, from a vocabulary-only GGUF of the same
    vocabulary, so the pairs are what the model will really see. A token that comes
    back later in the answer keeps its first successor (the biased model sees only
    the current token), so answers should repeat few tokens.
    """
    from venusctl.model.llama.native import TextModel

    probe = folder / "vocab-only.gguf"
    write_text_model(probe, spec.text, vocab, np.random.default_rng(0), tensors=False)
    model = TextModel(probe, vocab_only=True)
    try:
        prompt = "<|im_start|>assistant\n<think>\n"
        head = model.tokenize(prompt, special=True)
        whole = model.tokenize(prompt + str(spec.answer) + "<|im_end|>", special=True)
    finally:
        model.close()
        probe.unlink()
    if whole[:len(head)] != head:
        raise ValueError("the answer changes how the generation prompt is tokenised")
    chain = whole[len(head) - 1:]
    pairs: dict[int, int] = {}
    for token, following in itertools.pairwise(chain):
        pairs.setdefault(token, following)
    return list(pairs.items())


def _bias_edits(shape: TextShape, pairs: list[tuple[int, int]]) -> dict[str, object]:
    """Weight edits that make each token of `pairs` predict its successor.

    Every block's output projections are nearly muted, so the last hidden state is
    about the current token's embedding; each predecessor gets its own embedding
    axis, and its successor's output row a large weight on that axis."""
    if len(pairs) >= shape.n_embd:
        raise ValueError(f"{len(pairs)} answer tokens need more than n_embd={shape.n_embd} axes")

    def embed(rows: np.ndarray) -> None:
        for axis, (token, _following) in enumerate(pairs, start=1):
            rows[token, :] *= 0.5
            rows[token, axis] = 1.0

    def output(rows: np.ndarray) -> None:
        for axis, (_token, following) in enumerate(pairs, start=1):
            rows[following, axis] = 3.0

    return {"token_embd.weight": embed, "output.weight": output}


# ---------------------------------------------------------------------- tensors


class _Tensors:
    """Declares tensors (name, ggml shape, type) and later streams random data for them,
    so a multi-GB model never sits in memory at once."""

    def __init__(self, rng: np.random.Generator, quant: str,
                 edits: dict[str, object] | None = None) -> None:
        self.rng = rng
        self.quant = quant
        self.items: list[tuple[str, tuple[int, ...], str, float]] = []
        self.edits = edits or {}
        """name -> function editing the tensor in place (numpy shape: ne reversed)."""

    def add(self, name: str, ne: tuple[int, ...], kind: str = "w", scale: float = 0.0) -> None:
        """`ne` in ggml order (ne0 first); `kind` w (quantisable), f32, or const."""
        self.items.append((name, ne, kind, scale))

    def _dtype(self, ne: tuple[int, ...], kind: str) -> str:
        if kind != "w" or len(ne) < 2:
            return "F32"
        if self.quant == "Q4_0" and ne[0] % 32 == 0:
            return "Q4_0"
        return "F16" if self.quant in ("F16", "Q4_0") else "F32"

    def declare(self, writer: object) -> None:
        import gguf

        for name, ne, kind, _scale in self.items:
            dtype = self._dtype(ne, kind)
            shape = tuple(reversed(ne))
            count = int(np.prod(ne))
            if dtype == "Q4_0":
                nbytes = count // 32 * 18
                writer.add_tensor_info(name, shape, np.dtype(np.float32), nbytes,  # type: ignore[attr-defined]
                                       raw_dtype=gguf.GGMLQuantizationType.Q4_0)
            else:
                np_type = np.float16 if dtype == "F16" else np.float32
                writer.add_tensor_info(name, shape, np.dtype(np_type),  # type: ignore[attr-defined]
                                       count * np.dtype(np_type).itemsize)

    def data(self) -> Iterator[np.ndarray]:
        for _name, ne, kind, scale in self.items:
            dtype = self._dtype(ne, kind)
            count = int(np.prod(ne))
            if _name in self.edits and dtype == "Q4_0":
                raise ValueError(f"{_name}: quantised tensors cannot be edited")
            if kind == "const":
                yield np.full(count, scale, dtype=np.float32)
            elif dtype == "Q4_0":
                yield self._q4_0(count, ne[0])
            else:
                std = scale or 1.0 / np.sqrt(ne[0])
                values = self.rng.standard_normal(count, dtype=np.float32) * std
                edit = self.edits.get(_name)
                if edit is not None:
                    edit(values.reshape(tuple(reversed(ne))))  # type: ignore[operator]
                yield values.astype(np.float16 if dtype == "F16" else np.float32)

    def _q4_0(self, count: int, row: int) -> np.ndarray:
        """Random Q4_0 blocks made directly (quantising GBs of floats would take minutes)."""
        blocks = count // 32
        out = np.empty((blocks, 18), dtype=np.uint8)
        scale = np.float16(2.0 / np.sqrt(row) / 8.0)
        out[:, :2] = np.frombuffer(scale.tobytes(), dtype=np.uint8)
        chunk = 1 << 24
        for start in range(0, blocks, chunk):
            stop = min(blocks, start + chunk)
            out[start:stop, 2:] = self.rng.integers(0, 256, (stop - start, 16), dtype=np.uint8)
        return out.reshape(-1)


def _text_tensors(shape: TextShape, rng: np.random.Generator,
                  bias: list[tuple[int, int]] | None = None) -> _Tensors:
    t = _Tensors(rng, shape.quant, _bias_edits(shape, bias) if bias else None)
    e = shape.n_embd
    quiet = 1e-3 if bias else 0.0  # biased: blocks barely touch the residual stream

    def out(ne: tuple[int, int]) -> float:
        return quiet / np.sqrt(ne[0]) if quiet else 0.0
    t.add("token_embd.weight", (e, shape.n_vocab), scale=0.02)
    t.add("output_norm.weight", (e,), "const", 1.0)
    t.add("output.weight", (e, shape.n_vocab))
    key_dim = shape.ssm_state * shape.ssm_groups
    value_dim = shape.ssm_state * shape.ssm_dt_rank
    for i in range(shape.n_layer):
        b = f"blk.{i}."
        t.add(b + "attn_norm.weight", (e,), "const", 1.0)
        t.add(b + "post_attention_norm.weight", (e,), "const", 1.0)
        if (i + 1) % shape.full_attention_interval == 0:
            hd = shape.head_dim
            t.add(b + "attn_q.weight", (e, 2 * shape.n_head * hd))
            t.add(b + "attn_k.weight", (e, shape.n_head_kv * hd))
            t.add(b + "attn_v.weight", (e, shape.n_head_kv * hd))
            t.add(b + "attn_output.weight", (shape.n_head * hd, e),
                  scale=out((shape.n_head * hd, e)))
            t.add(b + "attn_q_norm.weight", (hd,), "const", 1.0)
            t.add(b + "attn_k_norm.weight", (hd,), "const", 1.0)
        else:
            t.add(b + "attn_qkv.weight", (e, 2 * key_dim + value_dim))
            t.add(b + "attn_gate.weight", (e, value_dim))
            t.add(b + "ssm_conv1d.weight", (shape.ssm_conv, 2 * key_dim + value_dim), "f32", 0.5)
            t.add(b + "ssm_dt.bias", (shape.ssm_dt_rank,), "const", 0.0)
            t.add(b + "ssm_a", (shape.ssm_dt_rank,), "const", -1.0)
            t.add(b + "ssm_beta.weight", (e, shape.ssm_dt_rank))
            t.add(b + "ssm_alpha.weight", (e, shape.ssm_dt_rank))
            t.add(b + "ssm_norm.weight", (shape.ssm_state,), "const", 1.0)
            t.add(b + "ssm_out.weight", (value_dim, e), scale=out((value_dim, e)))
        t.add(b + "ffn_gate.weight", (e, shape.n_ff))
        t.add(b + "ffn_up.weight", (e, shape.n_ff))
        t.add(b + "ffn_down.weight", (shape.n_ff, e), scale=out((shape.n_ff, e)))
    return t


def write_text_model(path: Path, shape: TextShape, vocab: Vocab, rng: np.random.Generator,
                     bias: list[tuple[int, int]] | None = None, tensors: bool = True) -> None:
    """The text model; `bias` from `answer_chain`; `tensors=False` writes only the
    metadata and vocabulary (enough for llama.cpp's vocab-only loading)."""
    import gguf

    writer = gguf.GGUFWriter(str(path), "qwen35")
    writer.add_name("venusctl test model (random weights)")
    writer.add_context_length(shape.context_length)
    writer.add_embedding_length(shape.n_embd)
    writer.add_block_count(shape.n_layer)
    writer.add_feed_forward_length(shape.n_ff)
    writer.add_head_count(shape.n_head)
    writer.add_head_count_kv(shape.n_head_kv)
    writer.add_key_length(shape.head_dim)
    writer.add_value_length(shape.head_dim)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_rope_freq_base(shape.rope_base)
    writer.add_rope_dimension_count(shape.rope_dim)
    writer.add_rope_dimension_sections(list(shape.rope_sections))
    writer.add_full_attention_interval(shape.full_attention_interval)
    writer.add_ssm_conv_kernel(shape.ssm_conv)
    writer.add_ssm_state_size(shape.ssm_state)
    writer.add_ssm_group_count(shape.ssm_groups)
    writer.add_ssm_time_step_rank(shape.ssm_dt_rank)
    writer.add_ssm_inner_size(shape.ssm_state * shape.ssm_dt_rank)
    writer.add_file_type(2 if shape.quant == "Q4_0" else (1 if shape.quant == "F16" else 0))
    _add_tokenizer(writer, vocab)
    _write(writer, path, _text_tensors(shape, rng, bias) if tensors else _Tensors(rng, "F32"))


def _add_tokenizer(writer: object, vocab: Vocab) -> None:
    w = writer
    w.add_tokenizer_model("gpt2")  # type: ignore[attr-defined]
    w.add_tokenizer_pre("qwen2")  # type: ignore[attr-defined]
    w.add_token_list(vocab.tokens)  # type: ignore[attr-defined]
    w.add_token_types(vocab.types)  # type: ignore[attr-defined]
    w.add_token_merges(vocab.merges)  # type: ignore[attr-defined]
    w.add_eos_token_id(vocab.specials["<|im_end|>"])  # type: ignore[attr-defined]
    w.add_pad_token_id(vocab.specials["<|endoftext|>"])  # type: ignore[attr-defined]
    w.add_bos_token_id(vocab.specials["<|endoftext|>"])  # type: ignore[attr-defined]
    w.add_add_bos_token(False)  # type: ignore[attr-defined]
    w.add_chat_template(CHAT_TEMPLATE)  # type: ignore[attr-defined]


def _write(writer: object, path: Path, tensors: _Tensors) -> None:
    tensors.declare(writer)
    writer.write_header_to_file(path)  # type: ignore[attr-defined]
    writer.write_kv_data_to_file()  # type: ignore[attr-defined]
    writer.write_ti_data_to_file()  # type: ignore[attr-defined]
    for array in tensors.data():
        writer.write_tensor_data(array)  # type: ignore[attr-defined]
    writer.close()  # type: ignore[attr-defined]


def _vision_tensors(v: VisionShape, text_embd: int, rng: np.random.Generator) -> _Tensors:
    t = _Tensors(rng, v.dtype)
    e = v.n_embd
    n_patches = (v.image_size // v.patch) ** 2
    t.add("v.patch_embd.weight", (v.patch, v.patch, 3, e), scale=0.02)
    t.add("v.patch_embd.weight.1", (v.patch, v.patch, 3, e), scale=0.02)
    t.add("v.patch_embd.bias", (e,), "const", 0.0)
    # kept F32 like the converter does: llama.cpp interpolates it (ggml_interpolate: F32 only)
    t.add("v.position_embd.weight", (e, n_patches), "f32", 0.02)
    for i in range(v.n_layer):
        b = f"v.blk.{i}."
        for norm in ("ln1", "ln2"):
            t.add(b + norm + ".weight", (e,), "const", 1.0)
            t.add(b + norm + ".bias", (e,), "const", 0.0)
        t.add(b + "attn_qkv.weight", (e, 3 * e))
        t.add(b + "attn_qkv.bias", (3 * e,), "const", 0.0)
        t.add(b + "attn_out.weight", (e, e))
        t.add(b + "attn_out.bias", (e,), "const", 0.0)
        t.add(b + "ffn_up.weight", (e, v.n_ff))
        t.add(b + "ffn_up.bias", (v.n_ff,), "const", 0.0)
        t.add(b + "ffn_down.weight", (v.n_ff, e))
        t.add(b + "ffn_down.bias", (e,), "const", 0.0)
    t.add("v.post_ln.weight", (e,), "const", 1.0)
    t.add("v.post_ln.bias", (e,), "const", 0.0)
    merged = e * v.merge * v.merge
    t.add("mm.0.weight", (merged, merged))
    t.add("mm.0.bias", (merged,), "const", 0.0)
    t.add("mm.2.weight", (merged, text_embd))
    t.add("mm.2.bias", (text_embd,), "const", 0.0)
    return t


def write_projector(path: Path, v: VisionShape, text_embd: int, rng: np.random.Generator) -> None:
    import gguf

    writer = gguf.GGUFWriter(str(path), "clip")
    writer.add_name("venusctl test projector (random weights)")
    writer.add_clip_has_vision_encoder(True)
    writer.add_clip_projector_type("qwen3vl_merger")
    writer.add_vision_image_size(v.image_size)
    writer.add_vision_patch_size(v.patch)
    writer.add_vision_embedding_length(v.n_embd)
    writer.add_vision_feed_forward_length(v.n_ff)
    writer.add_vision_block_count(v.n_layer)
    writer.add_vision_head_count(v.n_head)
    writer.add_vision_attention_layernorm_eps(1e-6)
    writer.add_vision_projection_dim(text_embd)
    writer.add_vision_spatial_merge_size(v.merge)
    writer.add_vision_image_mean([0.5, 0.5, 0.5])
    writer.add_vision_image_std([0.5, 0.5, 0.5])
    writer.add_vision_use_gelu(True)
    writer.add_file_type(1 if v.dtype == "F16" else 0)
    _write(writer, path, _vision_tensors(v, text_embd, rng))


@pytest.fixture(scope="session")
def tiny_model() -> ModelFiles:
    """The tiny random `qwen35` model and projector (generated once per cache dir).

    Use it from a conftest.py: `from tests.support.tiny_model import tiny_model`.
    """
    return ensure_model(TINY)


@pytest.fixture(scope="session")
def grammatical_model() -> ModelFiles:
    """`TINY_GRAMMATICAL`: one known, valid answer (a Click) at every step. For runs whose
    length must not hang on what a random model writes: its browser answers may hold a
    `LongPress` for up to 30 seconds, as the authors' harness would."""
    return ensure_model(TINY_GRAMMATICAL)


def main() -> None:
    """`python -m tests.support.tiny_model [tiny|vocab|grammatical|9b]`: generate, print
    the paths."""
    import sys

    specs = {"tiny": TINY, "vocab": TINY_REAL_VOCAB, "grammatical": TINY_GRAMMATICAL,
             "9b": UI_VENUS_2_9B}
    spec = specs[sys.argv[1] if sys.argv[1:] else "tiny"]
    started = time.perf_counter()
    files = ensure_model(spec)
    print(f"{files.model}\n{files.mmproj}\n({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
