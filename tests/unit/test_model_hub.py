"""Finding a model's files in a hub repo listing (no network) and checking downloads."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from venusctl.core.errors import ModelError, UsageError
from venusctl.model.files.hub import (
    HubFile,
    available_quants,
    cached_models,
    find_cached,
    parse_reference,
    quant_of,
    select_files,
    verify,
)

COMMIT = "c" * 40


def listing(*names: str) -> list[HubFile]:
    return [HubFile(name, 100 + i, f"{i:064x}") for i, name in enumerate(names)]


@pytest.mark.parametrize(("name", "quant"), [
    ("UI-Venus-2-9B-Q4_K_M.gguf", "Q4_K_M"),
    ("inclusionAI_UI-Venus-2-9B-IQ4_XS.gguf", "IQ4_XS"),
    ("UI-Venus-2-9B.Q8_0.gguf", "Q8_0"),
    ("mmproj-UI-Venus-2-9B-f16.gguf", "F16"),
    ("mmproj-model-BF16.gguf", "BF16"),
    ("UI-Venus-2-27B-Q4_K_M-00002-of-00003.gguf", "Q4_K_M"),
    ("Q5_K_S/UI-Venus-2-9B-00001-of-00002.gguf", "Q5_K_S"),
    ("Qwen3.5-9B-UD-Q4_K_XL.gguf", "Q4_K_XL"),
    ("README.md", None),
    ("UI-Venus-2-9B.gguf", None),
])
def test_quantisation_is_read_from_the_name(name, quant):
    assert quant_of(name) == quant


def test_references():
    assert parse_reference("bartowski/UI-Venus-2-9B-GGUF") == ("bartowski/UI-Venus-2-9B-GGUF", None)
    assert parse_reference("a/b:q8_0") == ("a/b", "Q8_0")
    assert parse_reference("/models/x.gguf") is None
    assert parse_reference("models/x.gguf") is None
    assert parse_reference("x.gguf") is None


def test_picks_the_quant_and_the_f16_projector():
    files = listing("README.md", "UI-Venus-2-9B-Q4_K_M.gguf", "UI-Venus-2-9B-Q8_0.gguf",
                    "mmproj-UI-Venus-2-9B-bf16.gguf", "mmproj-UI-Venus-2-9B-f16.gguf",
                    "mmproj-UI-Venus-2-9B-f32.gguf")
    chosen = select_files(files, "a/b", COMMIT, "q4_k_m")
    assert [f.path for f in chosen.model_files] == ["UI-Venus-2-9B-Q4_K_M.gguf"]
    assert chosen.projector.path == "mmproj-UI-Venus-2-9B-f16.gguf"
    assert chosen.quant == "Q4_K_M" and chosen.revision == COMMIT
    assert chosen.total_bytes == sum(f.size for f in chosen.files)


def test_split_models_come_in_order():
    files = listing("m-Q8_0-00002-of-00002.gguf", "m-Q8_0-00001-of-00002.gguf",
                    "m-Q4_K_M.gguf", "mmproj-m-f16.gguf")
    chosen = select_files(files, "a/b", COMMIT, "Q8_0")
    assert [f.path for f in chosen.model_files] == [
        "m-Q8_0-00001-of-00002.gguf", "m-Q8_0-00002-of-00002.gguf"]


def test_missing_quant_lists_what_there_is():
    files = listing("m-Q4_K_M.gguf", "m-Q6_K.gguf", "mmproj-m-f16.gguf")
    assert available_quants(files) == ["Q4_K_M", "Q6_K"]
    with pytest.raises(UsageError, match=r"no Q2_K GGUF \(quantisations there: Q4_K_M, Q6_K\)"):
        select_files(files, "a/b", COMMIT, "Q2_K")


def test_a_repo_without_projector_is_refused():
    with pytest.raises(UsageError, match="no projector"):
        select_files(listing("m-Q4_K_M.gguf"), "a/b", COMMIT, "Q4_K_M")


def test_two_models_with_the_same_quant_are_not_guessed():
    files = listing("m-9B-Q4_K_M.gguf", "m-27B-Q4_K_M.gguf", "mmproj-f16.gguf")
    with pytest.raises(UsageError, match="several Q4_K_M"):
        select_files(files, "a/b", COMMIT, "Q4_K_M")


def test_verify_accepts_the_right_sha256_and_rejects_a_wrong_one(tmp_path):
    path = tmp_path / "blob"
    path.write_bytes(b"GGUF" + b"\0" * 1000)
    good = HubFile("m.gguf", 1004, hashlib.sha256(path.read_bytes()).hexdigest())
    verify(path, good)
    with pytest.raises(ModelError, match="checksum mismatch"):
        verify(path, HubFile("m.gguf", 1004, "0" * 64))


def test_verify_uses_the_git_blob_id_for_small_files(tmp_path):
    path = tmp_path / "README.md"
    path.write_bytes(b"hello\n")
    blob = hashlib.sha1(b"blob 6\0hello\n").hexdigest()
    verify(path, HubFile("README.md", 6, None, blob))


def _cache_entry(cache: Path, repo: str, files: dict[str, bytes]) -> Path:
    """The hub cache layout huggingface_hub writes: blobs, snapshot links, refs."""
    folder = cache / ("models--" + repo.replace("/", "--"))
    snapshot = folder / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    (folder / "blobs").mkdir()
    (folder / "refs").mkdir()
    (folder / "refs" / "main").write_text(COMMIT)
    for name, data in files.items():
        blob = folder / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        os.symlink(os.path.relpath(blob, snapshot), snapshot / name)
    return snapshot


def test_cached_models_pair_each_model_with_its_projector(tmp_path):
    snapshot = _cache_entry(tmp_path, "acme/venus", {
        "venus-Q4_K_M.gguf": b"GGUF1", "venus-Q8_0.gguf": b"GGUF22",
        "mmproj-venus-f16.gguf": b"GGUF333", "README.md": b"hi"})
    models = cached_models(tmp_path)
    assert sorted(m.reference for m in models) == ["acme/venus:Q4_K_M", "acme/venus:Q8_0"]
    found = find_cached("acme/venus", "q8_0", tmp_path)
    assert found is not None
    assert found.model_path == snapshot / "venus-Q8_0.gguf"
    assert found.mmproj_path == snapshot / "mmproj-venus-f16.gguf"
    assert found.size_bytes == 6 + 7
    assert find_cached("acme/venus", "Q6_K", tmp_path) is None
    assert cached_models(tmp_path / "nothing-here") == []
