"""Nameless targets are read with OCR (real Tesseract) and judged by what they say."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from tests.support.button_crops import BUTTONS, POINT, SCREEN, screenshot
from tests.support.cli import VENUSCTL, only_run, write_answers
from venusctl.core.actions import Click
from venusctl.drivers.base import Element, ScreenContext
from venusctl.safety.guard import Decision, GuardRequest, Target
from venusctl.safety.ocr import TesseractReader, crop_box, tessdata_dir
from venusctl.safety.policy import load_policy
from venusctl.safety.policy_guard import PolicyGuard

LANGUAGES = tuple(BUTTONS)  # every language of the default policy


@pytest.fixture(scope="module")
def reader():
    assert tessdata_dir() is not None, "Tesseract language files are missing: scripts/test.sh " \
                                       "installs tesseract-ocr-eng and the other languages"
    found = TesseractReader()
    assert found.available(), "tesserocr cannot load Tesseract"
    yield found
    found.close()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_drawn_button_is_read_and_gated_in_its_language(reader, lang):
    label, category, title = BUTTONS[lang]
    context = ScreenContext(app="canvas-app", title=title)
    for theme in (0, 1):  # light text on a dark button, dark text on a light one
        image = screenshot(label, lang, 20, theme)
        text = reader.read(image, crop_box(POINT, SCREEN, image.size), context)
        element = Element(role="canvas", extra={"nameless": True, "ocr": text})
        click = Click(point=POINT)
        verdict = PolicyGuard(load_policy("default")).check(GuardRequest(
            1, click, click, element, context, "", (Target(POINT, element),)))
        assert verdict.decision is Decision.CONFIRM, (lang, theme, text)
        assert verdict.category == category, (lang, theme, text, verdict)


def test_a_canvas_pay_button_in_chromium_is_read_and_confirmed(site, browser_path, tmp_path):
    from tests.integration.safety.test_terminal_injection import grid_of

    page = site.url + "/canvas.html"
    buy = grid_of(page, browser_path, "#c1")
    script = write_answers(tmp_path / "answers.jsonl", [
        f"<think>Click the blue button.</think><action>Click(point={buy})</action>",
        "<think>Done.</think><action>Finished(content='ok')</action>"])
    runs = tmp_path / "runs"
    done = subprocess.run(
        [VENUSCTL, "do", "get the gold pack", "--driver", "web", "--url", page,
         "--browser-path", browser_path, "--model-file", str(script), "--runs-dir", str(runs)],
        capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL,
        env=dict(os.environ))
    assert done.returncode == 3, done.stderr
    assert site.posts == []
    step = json.loads((only_run(runs) / "steps.jsonl").read_text().splitlines()[0])
    assert step["verdict"]["category"] == "payment"
    assert "Pay" in step["targets"][0]["element"]["extra"]["ocr"]
    assert step["timings"]["ocr"] > 0
