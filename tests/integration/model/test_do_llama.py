"""`venusctl do --driver web` on the tiny local model: the whole real path.

Screenshot from Chromium → llama.cpp (projector + qwen35 text model) → grammar-
constrained answer → parsed, placed, guarded and executed by the web driver, step
after step, with prefix reuse, and recorded.
"""

from __future__ import annotations

import json
import resource
from pathlib import Path

from tests.integration.model.conftest import screenshot
from tests.support.cli import only_run, venusctl
from tests.support.tools import chromium

TASKS = ("order a green one for Ada", "buy a red one", "open the about page")


def model_args(tiny_model) -> list[str]:
    return ["--model", str(tiny_model.model), "--mmproj", str(tiny_model.mmproj)]


def run_do(shop, tiny_model, runs: Path, task: str) -> tuple[int, str, list[dict]]:
    result = venusctl(
        "do", task, "--driver", "web", "--url", shop.url + "/", "--browser-path", chromium(),
        *model_args(tiny_model), "--max-steps", "3", "--max-tokens", "200",
        "--temperature", "1.0",  # a random model at temperature 0 repeats one action
        "--confirm", "never", "--yes", "--runs-dir", str(runs), timeout=300)
    run = only_run(runs)
    steps = [json.loads(line) for line in (run / "steps.jsonl").read_text().splitlines()]
    return result.returncode, result.stderr, steps


def test_a_multi_step_run_on_the_local_model(shop, tiny_model, tmp_path):
    # A random model may still end a run at once (Finished, CallUser); try a few tasks.
    for number, task in enumerate(TASKS):
        code, stderr, steps = run_do(shop, tiny_model, tmp_path / f"runs{number}", task)
        assert code in (0, 1, 3, 4), stderr
        if len(steps) >= 2:
            break
    assert len(steps) >= 2, "every task ended after one step"
    first_line = stderr.splitlines()[0]
    assert f"llama.cpp/CPU:{tiny_model.model.name}" in first_line, "it names the backend"
    for step in steps:
        assert step["parse_errors"] == [], step["rejected"]
        assert step["action_kind"] and step["raw"].rstrip().endswith("</action>")
        stats = step["model"]
        assert stats["image_tokens"] > 0 and stats["prompt_tokens"] > stats["image_tokens"]
        assert stats["prefill_s"] > 0 and stats["decode_s"] > 0
        for grid, pixels in zip(step["grid"], step["pixels"], strict=True):
            assert pixels == [round(grid[0] * 1024 / 1000), round(grid[1] * 768 / 1000)]
    assert steps[0]["model"]["reused_tokens"] == 0
    assert all(step["model"]["reused_tokens"] > 0 for step in steps[1:])
    assert "/" in shop.state.visits


def test_a_cpu_only_local_model_gets_the_lean_interface_and_says_why(shop, tiny_model,
                                                                      tmp_path):
    runs = tmp_path / "runs"
    result = venusctl(
        "do", "open the about page", "--driver", "web", "--url", shop.url + "/",
        "--browser-path", chromium(), *model_args(tiny_model), "--max-steps", "1",
        "--max-tokens", "64", "--confirm", "never", "--yes", "--runs-dir", str(runs),
        timeout=300)
    first = result.stderr.splitlines()[0]
    assert "interface lean (CPU-only local model: screenshots capped at 1280 tokens" in first
    settings = json.loads((only_run(runs) / "run.json").read_text())["settings"]
    assert (settings["interface"], settings["image_max_tokens"]) == ("lean", 1280)
    assert settings["history_images"] == 0 and settings["thinking"] is False
    assert settings["prompts"] == "builtin"


def test_interface_authors_sends_the_screenshot_unresized(tiny_model, tmp_path):
    """A 1080x2400 phone screenshot: 2,550 image tokens as captured, 1,272 under lean."""
    from PIL import Image

    image = tmp_path / "phone.png"
    Image.new("RGB", (1080, 2400), (30, 120, 200)).save(image)
    tokens = {}
    for mode in ("authors", "lean"):
        result = venusctl("ground", "the blue screen", str(image), *model_args(tiny_model),
                          "--interface", mode, "--json", timeout=300)
        assert result.returncode in (0, 1), result.stderr
        tokens[mode] = json.loads(result.stdout)["image_tokens"]
    assert tokens == {"authors": 2550, "lean": 1272}


def test_an_unknown_interface_is_one_line_and_exit_2(tiny_model, tmp_path):
    image = tmp_path / "screen.png"
    image.write_bytes(screenshot(0).data)
    result = venusctl("ground", "x", str(image), *model_args(tiny_model), "--interface", "huge")
    assert result.returncode == 2
    assert result.stderr.strip() == ("venusctl: --interface: 'huge' is not one of: authors, "
                                     "lean")


def test_a_corrupt_model_is_one_line_and_exit_5(tiny_model, tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(tiny_model.model.read_bytes()[:50000])
    image = tmp_path / "screen.png"
    image.write_bytes(screenshot(0).data)
    result = venusctl("ground", "the green box", str(image), "--model", str(broken),
                      "--mmproj", str(tiny_model.mmproj))
    assert result.returncode == 5
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot load model" in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_out_of_memory_is_one_line_and_exit_5(tiny_model, tmp_path):
    """A real allocation failure, made cheap and safe with an address-space limit."""
    image = tmp_path / "screen.png"
    image.write_bytes(screenshot(0).data)
    limit = 3 << 30

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    import os
    import subprocess

    from tests.support.cli import VENUSCTL

    result = subprocess.run(
        [VENUSCTL, "ground", "the green box", str(image), *model_args(tiny_model),
         "--n-ctx", str(1 << 26)],
        capture_output=True, text=True, timeout=120, preexec_fn=cap_memory,
        env={**os.environ, "OMP_NUM_THREADS": "1"}, stdin=subprocess.DEVNULL)
    assert result.returncode == 5, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "out of memory" in lines[0], result.stderr
