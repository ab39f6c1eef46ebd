"""`venusctl model pull|list|info` and first-use downloads, against a fake hub on 127.0.0.1.

The fake hub serves the tiny random model and projector under names like a real
GGUF repo's, next to decoys, so discovery, resume, checksums and the llama.cpp
load of what was downloaded are all exercised for real.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

from tests.support.cli import venusctl
from tests.support.fake_hub import FakeHub, FakeRepo
from tests.support.tiny_model import ModelFiles, tiny_model  # noqa: F401 - a fixture

REPO = "acme/UI-Venus-2-tiny-GGUF"
MODEL = "UI-Venus-2-tiny-F32.gguf"
PROJECTOR = "mmproj-UI-Venus-2-tiny-f16.gguf"


@pytest.fixture
def files(tiny_model: ModelFiles) -> dict[str, bytes]:  # noqa: F811
    return {
        "README.md": b"# tiny\n",
        MODEL: tiny_model.model.read_bytes(),
        "UI-Venus-2-tiny-Q8_0.gguf": b"GGUF decoy",
        PROJECTOR: tiny_model.mmproj.read_bytes(),
        "mmproj-UI-Venus-2-tiny-bf16.gguf": b"GGUF decoy projector",
    }


@pytest.fixture
def hub(files: dict[str, bytes]) -> Iterator[FakeHub]:
    with FakeHub([FakeRepo(REPO, files)]) as server:
        yield server


def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "huggingface" / "hub"  # XDG_CACHE_HOME from tests/conftest.py


def env(hub: FakeHub) -> dict[str, str]:
    return {"HF_ENDPOINT": hub.url, "HF_HUB_DISABLE_TELEMETRY": "1"}


def test_pull_list_info(hub, files, tmp_path):
    pulled = venusctl("model", "pull", REPO, "--quant", "f32", env=env(hub))
    assert pulled.returncode == 0, pulled.stderr
    paths = dict(line.split(":", 1) for line in pulled.stdout.splitlines()[:2])
    model, mmproj = Path(paths["model"].strip()), Path(paths["mmproj"].strip())
    assert model.is_relative_to(cache(tmp_path)) and model.name == MODEL
    assert mmproj.name == PROJECTOR  # f16 preferred over bf16
    assert model.read_bytes() == files[MODEL] and mmproj.read_bytes() == files[PROJECTOR]
    assert f"--model {REPO}:F32" in pulled.stdout

    listed = venusctl("model", "list", "--json", env=env(hub))
    [entry] = [json.loads(line) for line in listed.stdout.splitlines()]
    assert entry["reference"] == f"{REPO}:F32" and entry["mmproj"] == str(mmproj)

    info = venusctl("model", "info", f"{REPO}:F32", "--json")
    assert info.returncode == 0, info.stderr
    text, projector = json.loads(info.stdout)
    assert (text["architecture"], text["chat_template"]) == ("qwen35", True)
    assert projector["projector_type"] == "qwen3vl_merger"

    again = venusctl("model", "pull", f"{REPO}:F32", env=env(hub))
    assert again.returncode == 0 and "in the cache" in again.stderr
    assert len(hub.downloads(MODEL)) == 1  # not fetched twice


def test_an_interrupted_download_resumes_where_it_stopped(hub, files, tmp_path):
    sha = hashlib.sha256(files[MODEL]).hexdigest()
    blobs = cache(tmp_path) / f"models--{REPO.replace('/', '--')}" / "blobs"
    blobs.mkdir(parents=True)
    half = len(files[MODEL]) // 2
    (blobs / f"{sha}.partial").write_bytes(files[MODEL][:half])
    pulled = venusctl("model", "pull", REPO, "--quant", "F32", env=env(hub))
    assert pulled.returncode == 0, pulled.stderr
    assert "resuming" in pulled.stderr
    assert [r.range for r in hub.downloads(MODEL)] == [f"bytes={half}-"]
    assert (blobs / sha).read_bytes() == files[MODEL]
    assert not (blobs / f"{sha}.partial").exists()


def test_a_dropped_connection_is_resumed_in_the_same_pull(files, tmp_path):
    cut = len(files[MODEL]) // 3
    with FakeHub([FakeRepo(REPO, files, cut_after={MODEL: cut})]) as hub:
        pulled = venusctl("model", "pull", REPO, "--quant", "F32", env=env(hub))
        ranges = [r.range for r in hub.downloads(MODEL)]
    assert pulled.returncode == 0, pulled.stderr
    assert ranges == [None, f"bytes={cut}-"]  # the rest only, not the whole file again
    sha = hashlib.sha256(files[MODEL]).hexdigest()
    blobs = cache(tmp_path) / f"models--{REPO.replace('/', '--')}" / "blobs"
    assert (blobs / sha).read_bytes() == files[MODEL]


def test_a_corrupt_download_is_refused_and_removed(files, tmp_path):
    with FakeHub([FakeRepo(REPO, files, corrupt={MODEL})]) as hub:
        pulled = venusctl("model", "pull", REPO, "--quant", "F32", env=env(hub))
    assert pulled.returncode == 5
    assert pulled.stderr.strip().splitlines()[-1].startswith("venusctl: ")
    assert "checksum mismatch" in pulled.stderr
    blobs = cache(tmp_path) / f"models--{REPO.replace('/', '--')}" / "blobs"
    assert not any(p.name.startswith(hashlib.sha256(files[MODEL]).hexdigest())
                   for p in blobs.iterdir())


def test_unknown_quant_lists_the_ones_there(hub):
    pulled = venusctl("model", "pull", REPO, "--quant", "Q2_K", env=env(hub))
    assert pulled.returncode == 2
    assert "quantisations there: F32, Q8_0" in pulled.stderr


def screen(tmp_path: Path) -> Path:
    path = tmp_path / "screen.png"
    Image.new("RGB", (640, 400), "white").save(path)
    return path


def test_first_use_asks_before_downloading_and_yes_agrees(hub, tmp_path):
    config = tmp_path / "config" / "venusctl" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'[model]\nrepo = "{REPO}"\nquant = "F32"\n')
    shot = str(screen(tmp_path))
    refused = venusctl("ground", "the title", shot, env=env(hub))  # no terminal to ask at
    assert refused.returncode == 5
    assert "pass --yes" in refused.stderr and f"venusctl model pull {REPO}" in refused.stderr
    assert not hub.downloads(MODEL)

    agreed = venusctl("ground", "the title", shot, "--yes", "--json", env=env(hub))
    assert agreed.returncode in (0, 1), agreed.stderr  # random weights: found or not
    assert len(hub.downloads(MODEL)) == 1
    answer = json.loads(agreed.stdout)
    assert answer["size"] == [640, 400]
    assert answer["model"] != "scripted"


def test_nothing_local_and_hub_unreachable_says_what_to_do(tmp_path):
    result = venusctl("ground", "the title", str(screen(tmp_path)),
                      env={"HF_ENDPOINT": "http://127.0.0.1:9"})
    assert result.returncode == 5
    assert result.stderr.count("\n") == 1
    assert "unreachable" in result.stderr and "venusctl model pull" in result.stderr
    assert "--model PATH" in result.stderr and "--server URL" in result.stderr
