"""The report of a real recorded run, opened in headless Chromium."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from tests.support.tools import chromium
from venusctl.cli import run_cli


def test_report_of_a_real_run_shows_every_step_and_image(recorded_run: Path, tmp_path: Path,
                                                        capsys):
    out = tmp_path / "report.html"
    assert run_cli(["report", str(recorded_run), "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)

    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium())
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            requests: list[str] = []
            page.on("request", lambda request: requests.append(request.url))
            page.goto(out.as_uri())
            sections = page.locator("section.step")
            assert sections.count() == 5
            headings = page.locator("section.step h3").all_inner_texts()
            assert headings[0] == "Step 1: click point (234, 150)"
            assert "type content 'Ada Lovelace'" in headings[1]
            assert headings[4].startswith("Step 5: finished")
            images = page.locator("img.shot")
            assert images.count() == 5
            widths = page.eval_on_selector_all(
                "img.shot", "imgs => imgs.map(i => i.complete && i.naturalWidth)")
            assert all(width and width >= 1000 for width in widths)
            assert page.locator("svg.timeline rect").count() > 5
            assert "finished" in page.locator(".outcome").inner_text()
            assert page.get_by_text("textbox[text] 'Your name'").count() >= 1
            assert requests == [out.as_uri()]  # self-contained: nothing else was fetched
            page.locator("#step-1").screenshot(path=str(tmp_path / "step-1.png"))
        finally:
            browser.close()
    shot = np.asarray(Image.open(tmp_path / "step-1.png").convert("RGB")).astype(int)
    r, g, b = shot[..., 0], shot[..., 1], shot[..., 2]
    reds = int(((r > 200) & (g < 80) & (b > 50) & (b < 130)).sum())
    assert reds > 50  # the click mark is visible in the rendered page


def test_gif_summary_of_a_real_run(recorded_run: Path, tmp_path: Path, capsys):
    gif = tmp_path / "run.gif"
    assert run_cli(["report", str(recorded_run), "--gif", str(gif)]) == 0
    assert "5 frames" in capsys.readouterr().out
    with Image.open(gif) as image:
        assert image.n_frames == 5 and image.is_animated


def test_report_of_an_unknown_run_is_one_line(tmp_path: Path, capsys):
    assert run_cli(["report", "nope", "--runs-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("venusctl: no run 'nope'") and err.count("\n") == 1
