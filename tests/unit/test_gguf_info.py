"""The fast GGUF header reader behind `venusctl model info`, checked against gguf's own."""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest

from venusctl.core.errors import UsageError
from venusctl.model.files.gguf_header import ArraySummary, read_info, summary


def text_model(path: Path, tokens: int = 300) -> Path:
    writer = gguf.GGUFWriter(str(path), "qwen35")
    writer.add_name("little venus")
    writer.add_context_length(262144)
    writer.add_embedding_length(64)
    writer.add_block_count(2)
    writer.add_file_type(15)  # Q4_K_M
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list([f"t{i}" for i in range(tokens)])
    writer.add_chat_template("{{ messages }}")
    writer.add_array("qwen35.rope.dimension_sections", [4, 2, 2, 0])
    writer.add_tensor("token_embd.weight", np.zeros((tokens, 64), dtype=np.float16))
    writer.add_tensor("output_norm.weight", np.ones(64, dtype=np.float32))
    _finish(writer)
    return path


def projector(path: Path) -> Path:
    writer = gguf.GGUFWriter(str(path), "clip")
    writer.add_string("clip.projector_type", "qwen3vl_merger")
    writer.add_uint32("clip.vision.image_size", 768)
    writer.add_uint32("clip.vision.patch_size", 16)
    writer.add_tensor("v.patch_embd.weight", np.zeros((32, 48), dtype=np.float16))
    _finish(writer)
    return path


def _finish(writer: gguf.GGUFWriter) -> None:
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def test_text_model_facts(tmp_path):
    info = read_info(text_model(tmp_path / "m.gguf"))
    facts = summary(info)
    assert facts["architecture"] == "qwen35"
    assert facts["kind"] == "text model"
    assert facts["quantization"] == "Q4_K_M"
    assert facts["context_length"] == 262144
    assert facts["chat_template"] is True
    assert facts["vocab_size"] == 300
    assert facts["parameters"] == 300 * 64 + 64
    assert facts["tensor_types"] == {"F16": 1, "F32": 1}
    assert isinstance(info.metadata["tokenizer.ggml.tokens"], ArraySummary)
    assert info.metadata["qwen35.rope.dimension_sections"] == [4, 2, 2, 0]


def test_projector_facts(tmp_path):
    facts = summary(read_info(projector(tmp_path / "mmproj.gguf")))
    assert facts["kind"] == "projector"
    assert facts["projector_type"] == "qwen3vl_merger"
    assert (facts["image_size"], facts["patch_size"]) == (768, 16)
    assert facts["quantization"] == "F16"  # no file type: the dominant tensor type
    assert "chat_template" not in facts


def test_scalars_match_the_reference_reader(tmp_path):
    path = text_model(tmp_path / "m.gguf", tokens=40)
    ours = read_info(path).metadata
    theirs = gguf.GGUFReader(str(path))
    for field in theirs.fields.values():
        if field.name.startswith("GGUF."):
            continue
        assert field.name in ours
        if len(field.types) == 1:  # a scalar or a string
            assert ours[field.name] == field.contents(), field.name


@pytest.mark.parametrize(("content", "message"), [
    (b"", "cannot read"),
    (b"PK\x03\x04 a zip file", "not a GGUF file"),
    (b"GGUF\x07\x00\x00\x00", "version 7"),
])
def test_not_gguf_is_a_one_line_error(tmp_path, content, message):
    path = tmp_path / "bad.gguf"
    path.write_bytes(content)
    with pytest.raises(UsageError, match=message):
        read_info(path)


def test_truncated_file_is_reported_as_corrupt(tmp_path):
    whole = text_model(tmp_path / "m.gguf").read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole[:200])
    with pytest.raises(UsageError, match="truncated or corrupt"):
        read_info(cut)


def test_missing_file(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        read_info(tmp_path / "absent.gguf")
