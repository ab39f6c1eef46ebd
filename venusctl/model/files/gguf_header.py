"""What a GGUF file is, read from its header in milliseconds.

`gguf.GGUFReader` turns every array (a 248k-entry vocabulary, its merges) into numpy
objects and takes 15-20 s on a real model; `venusctl model info` and `model list`
need only the scalars, the sizes of the arrays and the tensor types. This reader
walks the header through a memory map, keeps scalars and short arrays, and only
counts long ones. Names of quantisation types come from the `gguf` package, the
format's reference implementation.
"""

from __future__ import annotations

import mmap
import struct
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venusctl.core.errors import UsageError

MAGIC = b"GGUF"
KEEP_ARRAY = 64  # arrays up to this length are kept; longer ones are only counted

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
            10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9


@dataclass(frozen=True)
class ArraySummary:
    """A long array in the metadata: its element type and length, not its contents."""

    element_type: int
    count: int


@dataclass
class GgufInfo:
    path: Path
    file_size: int
    version: int
    metadata: dict[str, Any] = field(default_factory=dict)
    tensor_types: Counter[str] = field(default_factory=Counter)
    tensor_elements: Counter[str] = field(default_factory=Counter)
    tensor_count: int = 0

    # -- what people ask about
    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture", "unknown"))

    @property
    def is_projector(self) -> bool:
        return self.architecture == "clip" or "clip.projector_type" in self.metadata

    @property
    def projector_type(self) -> str | None:
        value = self.metadata.get("clip.projector_type")
        if value is None and self.is_projector:
            value = self.metadata.get("clip.vision.projector_type")
        return str(value) if value is not None else None

    @property
    def context_length(self) -> int | None:
        value = self.metadata.get(f"{self.architecture}.context_length")
        return int(value) if isinstance(value, int) else None

    @property
    def has_chat_template(self) -> bool:
        return isinstance(self.metadata.get("tokenizer.chat_template"), str)

    @property
    def vocab_size(self) -> int | None:
        tokens = self.metadata.get("tokenizer.ggml.tokens")
        if isinstance(tokens, ArraySummary):
            return tokens.count
        return len(tokens) if isinstance(tokens, list) else None

    @property
    def parameters(self) -> int:
        return sum(self.tensor_elements.values())

    @property
    def quantization(self) -> str:
        """The file type the converter recorded, else the dominant tensor type."""
        file_type = self.metadata.get("general.file_type")
        if isinstance(file_type, int):
            return file_type_name(file_type)
        if not self.tensor_elements:
            return "unknown"
        return self.tensor_elements.most_common(1)[0][0]

    def get(self, key: str, default: Any = None) -> Any:
        return self.metadata.get(key, default)


def file_type_name(value: int) -> str:
    """`general.file_type` as people write it: 15 -> Q4_K_M."""
    from gguf.constants import LlamaFileType

    try:
        name = LlamaFileType(value).name
    except ValueError:
        return f"file type {value}"
    return name.removeprefix("MOSTLY_").removeprefix("ALL_")


def tensor_type_name(value: int) -> str:
    from gguf.constants import GGMLQuantizationType

    try:
        return GGMLQuantizationType(value).name
    except ValueError:
        return f"type{value}"


def read_info(path: Path) -> GgufInfo:
    """Read the header of a GGUF file, or raise a one-line `UsageError`."""
    try:
        with path.open("rb") as handle, mmap.mmap(
            handle.fileno(), 0, access=mmap.ACCESS_READ
        ) as view:
            return _Reader(view, path).read()
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a folder, not a GGUF file") from None
    except (ValueError, OSError) as exc:  # mmap of an empty file, unreadable file
        raise UsageError(f"cannot read {path} as GGUF: {exc}") from None
    except (struct.error, IndexError, UnicodeDecodeError):
        raise UsageError(f"{path} is truncated or corrupt (its GGUF header ends early)") from None


class _Reader:
    """A cursor over the mapped header; every read advances `pos`."""

    def __init__(self, view: mmap.mmap, path: Path) -> None:
        self.view = view
        self.path = path
        self.pos = 0

    def read(self) -> GgufInfo:
        if self.view[:4] != MAGIC:
            raise UsageError(f"{self.path} is not a GGUF file (it does not start with 'GGUF')")
        self.pos = 4
        version = self.unpack("<I")
        if version not in (2, 3):
            raise UsageError(f"{self.path}: GGUF version {version} is not supported (2 or 3)")
        tensors, entries = self.unpack("<Q"), self.unpack("<Q")
        info = GgufInfo(self.path, len(self.view), version, tensor_count=tensors)
        for _ in range(entries):
            key = self.string()
            info.metadata[key] = self.value(self.unpack("<I"))
        for _ in range(tensors):
            self.tensor(info)
        return info

    def unpack(self, fmt: str) -> Any:
        value = struct.unpack_from(fmt, self.view, self.pos)[0]
        self.pos += struct.calcsize(fmt)
        return value

    def string(self) -> str:
        length = self.unpack("<Q")
        if self.pos + length > len(self.view):
            raise IndexError("string runs past the end of the file")
        text = self.view[self.pos:self.pos + length].decode("utf-8", errors="replace")
        self.pos += length
        return text

    def value(self, kind: int) -> Any:
        if kind in _SCALARS:
            return self.unpack(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            return self.array()
        raise UsageError(f"{self.path} is corrupt (unknown metadata type {kind})")

    def array(self) -> list[Any] | ArraySummary:
        kind, count = self.unpack("<I"), self.unpack("<Q")
        if count <= KEEP_ARRAY:
            return [self.value(kind) for _ in range(count)]
        if kind in _SCALARS:
            self.pos += struct.calcsize(_SCALARS[kind]) * count
        else:
            for _ in range(count):
                self.skip(kind)
        if self.pos > len(self.view):
            raise IndexError("array runs past the end of the file")
        return ArraySummary(kind, count)

    def skip(self, kind: int) -> None:
        if kind == _STRING:
            self.pos += 8 + struct.unpack_from("<Q", self.view, self.pos)[0]
        else:
            self.value(kind)

    def tensor(self, info: GgufInfo) -> None:
        self.string()
        dims = self.unpack("<I")
        elements = 1
        for _ in range(dims):
            elements *= self.unpack("<Q")
        kind = tensor_type_name(self.unpack("<I"))
        self.unpack("<Q")  # offset into the data section
        info.tensor_types[kind] += 1
        info.tensor_elements[kind] += elements


def summary(info: GgufInfo) -> dict[str, Any]:
    """The facts `venusctl model info` shows, as plain values (also its --json)."""
    facts: dict[str, Any] = {
        "path": str(info.path),
        "size_bytes": info.file_size,
        "gguf_version": info.version,
        "name": info.get("general.name"),
        "architecture": info.architecture,
        "kind": "projector" if info.is_projector else "text model",
        "quantization": info.quantization,
        "parameters": info.parameters,
        "tensors": info.tensor_count,
        "tensor_types": dict(info.tensor_types.most_common()),
    }
    if info.is_projector:
        facts.update(_projector_facts(info))
    else:
        arch = info.architecture
        facts.update({
            "context_length": info.context_length,
            "embedding_length": info.get(f"{arch}.embedding_length"),
            "block_count": info.get(f"{arch}.block_count"),
            "vocab_size": info.vocab_size,
            "chat_template": info.has_chat_template,
        })
    return facts


def _projector_facts(info: GgufInfo) -> dict[str, Any]:
    return {
        "projector_type": info.projector_type,
        "image_size": info.get("clip.vision.image_size"),
        "patch_size": info.get("clip.vision.patch_size"),
        "spatial_merge_size": info.get("clip.vision.spatial_merge_size"),
        "vision_blocks": info.get("clip.vision.block_count"),
        "projection_dim": info.get("clip.vision.projection_dim"),
    }
