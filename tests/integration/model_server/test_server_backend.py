"""`venusctl do` and `venusctl ground` against a real OpenAI-compatible server on 127.0.0.1.

The server is llama-cpp-python's, serving the tiny random `qwen35` model with its
projector; `[server] grammar` (here VENUSCTL_SERVER_GRAMMAR=1) makes it decode under
the surface's action grammar, so even random weights give actions the loop runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from PIL import Image, ImageDraw

from tests.integration.model_server.conftest import API_KEY, free_port
from tests.support.cli import only_run, venusctl
from tests.support.keyring_env import file_keyring_backend
from tests.support.tools import chromium
from venusctl.sim.web import ShopServer


def screenshot(path: Path) -> Path:
    image = Image.new("RGB", (800, 600), "white")
    ImageDraw.Draw(image).rectangle((300, 250, 500, 320), fill="blue")
    image.save(path)
    return path


def no_key_anywhere(folder: Path, *texts: str) -> None:
    for text in texts:
        assert API_KEY not in text
    for path in folder.rglob("*"):
        if path.is_file():
            assert API_KEY.encode() not in path.read_bytes(), path


def test_ground_through_the_server(llama_server, tmp_path):
    shot = screenshot(tmp_path / "shot.png")
    out = tmp_path / "found.png"
    result = venusctl("ground", "the blue button", str(shot), "--server", llama_server,
                      "--json", "--annotate", str(out),
                      env={"VENUSCTL_API_KEY": API_KEY, "VENUSCTL_SERVER_GRAMMAR": "1"})
    assert result.returncode in (0, 1), result.stderr
    answer = json.loads(result.stdout)
    assert answer["size"] == [800, 600]
    assert answer["model"].startswith("server:") and answer["model"].endswith("/v1")
    if answer["found"]:
        assert result.returncode == 0
        assert all(0 <= v <= 999 for v in answer["grid"])
        assert 0 <= answer["pixels"][0] < 800 and 0 <= answer["pixels"][1] < 600
    else:
        assert result.returncode == 1 and answer["raw"].endswith("[-1,-1]")
    with Image.open(out) as drawn:
        assert drawn.size == (800, 600)
    no_key_anywhere(tmp_path, result.stdout, result.stderr)


def test_do_runs_steps_through_the_server_on_the_web_driver(grammatical_server, tmp_path):
    runs = tmp_path / "runs"
    with ShopServer() as shop:
        result = venusctl(
            "do", "order a green one for Ada", "--driver", "web", "--url", shop.url + "/",
            "--browser-path", chromium(), "--server", grammatical_server,
            "--api-key-env", "SHOP_MODEL_KEY", "--max-steps", "2", "--max-tokens", "300",
            "--confirm", "never", "--yes", "--runs-dir", str(runs), "-v",
            env={"SHOP_MODEL_KEY": API_KEY, "VENUSCTL_SERVER_GRAMMAR": "1"}, timeout=240)
    assert result.returncode in (0, 1, 3), result.stderr[-2000:]  # finished, budget, question
    run = only_run(runs)
    info = json.loads((run / "run.json").read_text())
    assert info["model"].startswith("server:") and info["driver"] == "web"
    steps = [json.loads(line) for line in (run / "steps.jsonl").read_text().splitlines()]
    assert steps and all(step["action"] for step in steps), steps
    assert all(step["model"]["completion_tokens"] > 0 for step in steps)
    # the browser's interface answers without thinking, as the authors' browser harness
    assert info["settings"]["thinking"] is False
    assert all(step["raw"].lstrip().startswith("<action>") for step in steps)
    no_key_anywhere(tmp_path, result.stdout, result.stderr)


def test_a_wrong_key_is_one_line_and_exit_5(llama_server, tmp_path):
    shot = screenshot(tmp_path / "shot.png")
    result = venusctl("ground", "the blue button", str(shot), "--server", llama_server,
                      env={"VENUSCTL_API_KEY": "not-the-key"})
    assert result.returncode == 5
    assert result.stderr.count("\n") == 1 and "refused the API key" in result.stderr
    assert "not-the-key" not in result.stderr


def test_an_unreachable_server_is_one_line_and_exit_5(tmp_path):
    shot = screenshot(tmp_path / "shot.png")
    result = venusctl("ground", "x", str(shot), "--server", f"http://127.0.0.1:{free_port()}",
                      env={"VENUSCTL_SERVER_RETRIES": "0"})
    assert result.returncode == 5
    assert result.stderr.count("\n") == 1 and "cannot reach the model server" in result.stderr


def test_ground_on_a_live_web_page(llama_server, tmp_path):
    out = tmp_path / "page.png"
    with ShopServer() as shop:
        result = venusctl("ground", "the Submit order button", "--driver", "web",
                          "--url", shop.url + "/", "--browser-path", chromium(),
                          "--viewport", "1000x700", "--server", llama_server,
                          "--annotate", str(out), "--json",
                          env={"VENUSCTL_API_KEY": API_KEY, "VENUSCTL_SERVER_GRAMMAR": "1"})
    assert result.returncode in (0, 1), result.stderr
    answer = json.loads(result.stdout)
    assert answer["size"] == [1000, 700]  # CSS pixels of the viewport: what `act` clicks
    if answer["found"]:
        assert 0 <= answer["pixels"][0] < 1000 and 0 <= answer["pixels"][1] < 700
    with Image.open(out) as drawn:
        assert drawn.width >= 1000


@pytest.fixture
def file_keyring() -> Iterator[Path]:
    yield from file_keyring_backend()


def test_the_key_can_come_from_the_keyring(llama_server, file_keyring, tmp_path):
    keyring.set_password("venusctl", llama_server + "/v1", API_KEY)
    shot = screenshot(tmp_path / "shot.png")
    result = venusctl("ground", "the blue button", str(shot), "--server", llama_server,
                      "--json", "-v", env={"VENUSCTL_SERVER_GRAMMAR": "1"})
    assert result.returncode in (0, 1), result.stderr  # not 5: the server took the key
    assert json.loads(result.stdout)["size"] == [800, 600]
    assert API_KEY not in result.stdout + result.stderr
