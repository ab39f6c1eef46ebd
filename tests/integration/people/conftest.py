"""Fixtures for the people's side: the shop app, a recorded web run, the tiny model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.tiny_model import tiny_model  # noqa: F401 - a fixture
from tests.support.tools import chromium
from venusctl.cli import run_cli
from venusctl.sim.web import ShopServer

ANSWERS = [
    {"text": "<think>I need the name field first.</think>"
             "<action>Click(point=(234, 150))</action>"},
    {"text": "<think>Type the name.</think><action>Type(content='Ada Lovelace')</action>"},
    {"text": "<think>Scroll to look around.</think>"
             "<action>Scroll(point=(500, 500), direction='down')</action>"},
    {"text": "<think>Submit the order.</think><action>Click(point=(156, 405))</action>"},
    {"text": "<think>The order went through.</think>"
             "<action>Finished(content='ordered for Ada')</action>"},
]


def write_answers(folder: Path) -> Path:
    path = folder / "answers.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in ANSWERS), encoding="utf-8")
    return path


@pytest.fixture
def answers_file(tmp_path: Path) -> Path:
    return write_answers(tmp_path)


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A real run: scripted answers, real Chromium, the shop app; returns its folder.

    Recorded once per module: the tests only read it.
    """
    folder = tmp_path_factory.mktemp("recorded")
    with ShopServer() as shop:
        yield _record(shop, write_answers(folder), folder / "runs")


def _record(shop: ShopServer, answers_file: Path, runs: Path) -> Path:
    code = run_cli(["do", "order a red one for Ada", "--driver", "web", "--url", shop.url + "/",
                    "--browser-path", chromium(), "--model-file", str(answers_file),
                    "--confirm", "never", "--yes", "--runs-dir", str(runs), "-q"])
    assert code == 0
    assert shop.state.orders == [{"name": "Ada Lovelace", "colour": "Red"}]
    (folder,) = runs.iterdir()
    return folder
