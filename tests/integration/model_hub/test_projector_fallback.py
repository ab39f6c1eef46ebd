"""The default model: bartowski's Q4_K_M, with prithivMLmods' projector when bartowski has none.

Both repos are served by the fake hub on 127.0.0.1 under their real names (the tiny
random model and projector stand in for the weights), so the default settings,
discovery, the fallback, the message saying so and the llama.cpp load of the pair are
all exercised.
"""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from tests.support.cli import venusctl
from tests.support.fake_hub import FakeHub, FakeRepo
from tests.support.tiny_model import ModelFiles, tiny_model  # noqa: F401 - a fixture
from venusctl.model.files.hub import PROJECTOR_FALLBACKS
from venusctl.model.settings import DEFAULT_QUANT, DEFAULT_REPO

FALLBACK = "prithivMLmods/inclusionAI-UI-Venus-2-9B-GGUF"
MODEL = "UI-Venus-2-9B-Q4_K_M.gguf"
PROJECTOR = "UI-Venus-2-9B.mmproj-f16.gguf"


def test_the_default_model_and_its_fallback_are_the_ones_the_issue_names():
    assert (DEFAULT_REPO, DEFAULT_QUANT) == ("bartowski/UI-Venus-2-9B-GGUF", "Q4_K_M")
    assert PROJECTOR_FALLBACKS[DEFAULT_REPO] == FALLBACK


def test_a_repo_without_projector_borrows_the_fallbacks_and_says_so(
        tiny_model: ModelFiles, tmp_path: Path):  # noqa: F811
    model = tiny_model.model.read_bytes()
    projector = tiny_model.mmproj.read_bytes()
    repos = [
        FakeRepo(DEFAULT_REPO, {"README.md": b"# quants\n", MODEL: model,
                                "UI-Venus-2-9B-Q8_0.gguf": b"GGUF decoy"}),
        FakeRepo(FALLBACK, {"UI-Venus-2-9B.Q4_K_M.gguf": b"GGUF decoy", PROJECTOR: projector,
                            "UI-Venus-2-9B.mmproj-bf16.gguf": b"GGUF decoy projector"}),
    ]
    with FakeHub(repos) as hub:
        env = {"HF_ENDPOINT": hub.url, "HF_HUB_DISABLE_TELEMETRY": "1"}
        pulled = venusctl("model", "pull", env=env)
        assert pulled.returncode == 0, pulled.stderr
        assert (f"{DEFAULT_REPO} has no projector (mmproj); using {PROJECTOR} from "
                f"{FALLBACK}") in pulled.stderr
        assert len(hub.downloads(MODEL)) == 1 and len(hub.downloads(PROJECTOR)) == 1
        assert not hub.downloads("UI-Venus-2-9B.Q4_K_M.gguf")  # only the projector is taken

        shot = tmp_path / "screen.png"
        Image.new("RGB", (640, 400), "white").save(shot)
        grounded = venusctl("ground", "the title", str(shot), "--json", env=env)
        assert grounded.returncode in (0, 1), grounded.stderr  # random weights
        assert json.loads(grounded.stdout)["size"] == [640, 400]
        assert len(hub.downloads(MODEL)) == 1, "the cached pair is used, nothing fetched again"
