"""The projector ("mmproj") side: image budget, prompt chunking, image evaluation.

A prompt is rendered as text with a media marker where each image goes; libmtmd
splits it into text and image chunks. We turn those into `Unit`s, cut text further
at message starts, and give every unit a rolling key (a hash of everything up to
and including it): two prompts that agree up to a unit boundary have equal keys
there, which is what the prefix cache looks up.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from venusctl.core.errors import ModelError
from venusctl.model.base import ImagePart
from venusctl.model.llama import logs as llama_logs
from venusctl.model.llama.native import Context, TextModel, _llama


@dataclass(frozen=True)
class Unit:
    """A stretch of the prompt evaluated in one go: text tokens or one image."""

    key: bytes  # rolling hash of the prompt up to and including this unit
    tokens: tuple[int, ...] = ()
    image: int = -1  # index of the image chunk in the prompt, or -1 for text
    n_tokens: int = 0  # KV cells it occupies
    n_pos: int = 0  # positions it advances (an image counts as few, M-RoPE)
    message_start: bool = False  # begins with a message's first token


@dataclass
class Prompt:
    """A tokenised prompt; holds libmtmd's chunks until closed."""

    units: list[Unit]
    chunks: object = field(repr=False)
    image_chunks: list[object] = field(repr=False, default_factory=list)

    @property
    def n_tokens(self) -> int:
        return sum(unit.n_tokens for unit in self.units)

    @property
    def image_tokens(self) -> int:
        return sum(unit.n_tokens for unit in self.units if unit.image >= 0)

    def close(self) -> None:
        if self.chunks is not None:
            import llama_cpp.mtmd_cpp as mtmd

            mtmd.mtmd_input_chunks_free(self.chunks)
            self.chunks = None


@dataclass(frozen=True)
class VisionParams:
    threads: int
    flash_attn: bool
    use_gpu: bool
    min_tokens: int | None
    max_tokens: int | None


class Vision:
    """An mtmd context bound to a text model."""

    def __init__(self, path: Path, model: TextModel, params: VisionParams) -> None:
        llama_cpp = _llama()
        import llama_cpp.mtmd_cpp as mtmd

        if not path.is_file():
            raise ModelError(f"projector (mmproj) file not found: {path}")
        cparams = mtmd.mtmd_context_params_default()
        cparams.use_gpu = params.use_gpu
        cparams.print_timings = False
        cparams.n_threads = params.threads
        cparams.flash_attn_type = (llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED if params.flash_attn
                                   else llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED)
        cparams.warmup = False
        if params.min_tokens is not None:
            cparams.image_min_tokens = params.min_tokens
        if params.max_tokens is not None:
            cparams.image_max_tokens = params.max_tokens
        bookmark = llama_logs.mark()
        handle = mtmd.mtmd_init_from_file(os.fsencode(path), model.handle, cparams)
        if not handle:
            reason = llama_logs.last_problem(bookmark, "unknown error")
            if "mismatch" in reason.lower() or "n_embd" in reason.lower():
                raise ModelError(
                    f"the projector {path.name} does not match the model {model.path.name}: "
                    f"{reason}")
            raise ModelError(f"cannot load projector {path}: {reason}")
        if not mtmd.mtmd_support_vision(handle):
            mtmd.mtmd_free(handle)
            raise ModelError(f"the projector {path.name} has no vision encoder")
        self.mtmd = mtmd
        self.handle = handle
        self.model = model
        self.marker = mtmd.mtmd_default_marker().decode()
        self._message_token = _single_token(model, "<|im_start|>")

    def tokenize(self, text: str, images: list[ImagePart]) -> Prompt:
        """Split the rendered prompt (one marker per image) into keyed units."""
        mtmd = self.mtmd
        bitmaps = [self._bitmap(image) for image in images]
        chunks = mtmd.mtmd_input_chunks_init()
        try:
            data = text.encode("utf-8")
            text_input = mtmd.mtmd_input_text()
            text_input.text = data
            text_input.text_len = len(data)
            text_input.add_special = False
            text_input.parse_special = True
            array = (mtmd.mtmd_bitmap_p_ctypes * max(1, len(bitmaps)))(*bitmaps)
            code = mtmd.mtmd_tokenize(self.handle, chunks, ctypes.byref(text_input), array,
                                      len(bitmaps))
            if code != 0:
                raise ModelError(f"the prompt could not be tokenised with its images (code {code})")
            return self._units(chunks, images)
        except BaseException:
            mtmd.mtmd_input_chunks_free(chunks)
            raise
        finally:
            for bitmap in bitmaps:
                mtmd.mtmd_bitmap_free(bitmap)

    def _bitmap(self, image: ImagePart) -> object:
        buffer = (ctypes.c_uint8 * len(image.data)).from_buffer_copy(image.data)
        bitmap = self.mtmd.mtmd_helper_bitmap_init_from_buf(self.handle, buffer, len(image.data),
                                                            False)
        if not bitmap:
            raise ModelError(f"cannot decode a {image.mime} screenshot of {len(image.data)} bytes")
        return bitmap

    def _units(self, chunks: object, images: list[ImagePart]) -> Prompt:
        mtmd = self.mtmd
        rolling = hashlib.sha1()
        units: list[Unit] = []
        image_chunks: list[object] = []
        for index in range(mtmd.mtmd_input_chunks_size(chunks)):
            chunk = mtmd.mtmd_input_chunks_get(chunks, index)
            kind = mtmd.mtmd_input_chunk_get_type(chunk)
            if kind == mtmd.MTMD_INPUT_CHUNK_TYPE_TEXT:
                count = ctypes.c_size_t()
                pointer = mtmd.mtmd_input_chunk_get_tokens_text(chunk, ctypes.byref(count))
                tokens = np.ctypeslib.as_array(pointer, shape=(count.value,)).tolist() \
                    if count.value else []
                for piece, starts in self._split(tokens):
                    rolling.update(np.asarray(piece, dtype=np.int32).tobytes())
                    units.append(Unit(rolling.digest(), tuple(piece), n_tokens=len(piece),
                                      n_pos=len(piece), message_start=starts))
            else:
                position = len(image_chunks)
                image_chunks.append(chunk)
                n_tokens = int(mtmd.mtmd_input_chunk_get_n_tokens(chunk))
                n_pos = int(mtmd.mtmd_input_chunk_get_n_pos(chunk))
                rolling.update(b"\0image:" + images[position].key.encode() + str(n_tokens).encode())
                units.append(Unit(rolling.digest(), image=position, n_tokens=n_tokens,
                                  n_pos=n_pos))
        return Prompt(units, chunks, image_chunks)

    def _split(self, tokens: list[int]) -> list[tuple[list[int], bool]]:
        """Cut a text chunk before each message-start token."""
        pieces: list[tuple[list[int], bool]] = []
        current: list[int] = []
        starts = False
        for token in tokens:
            if token == self._message_token and current:
                pieces.append((current, starts))
                current = []
            if not current:
                starts = token == self._message_token
            current.append(token)
        if current:
            pieces.append((current, starts))
        return pieces

    def eval_image(self, context: Context, prompt: Prompt, unit: Unit, n_past: int,
                   logits_last: bool) -> int:
        """Encode one image and decode its embeddings; returns the new position."""
        llama_cpp = _llama()
        new_past = llama_cpp.llama_pos(0)
        bookmark = llama_logs.mark()
        with context.watching():
            code = self.mtmd.mtmd_helper_eval_chunk_single(
                self.handle, context.handle, prompt.image_chunks[unit.image],
                llama_cpp.llama_pos(n_past), llama_cpp.llama_seq_id(0),
                context.params.n_batch, logits_last, ctypes.byref(new_past))
        context.raise_interrupt()
        if code != 0:
            reason = llama_logs.last_problem(bookmark, f"code {code}")
            raise ModelError(f"evaluating the screenshot failed: {reason}")
        return int(new_past.value)

    def close(self) -> None:
        if self.handle:
            self.mtmd.mtmd_free(self.handle)
            self.handle = None


def _single_token(model: TextModel, text: str) -> int:
    tokens = model.tokenize(text, special=True)
    return tokens[0] if len(tokens) == 1 else -1
