"""The documentation site: it builds with `mkdocs build --strict`, its generated reference
lists every command and option of the real command line, and its front page shows the
quick start when opened in Chromium."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tesserocr
from PIL import Image

from tests.support.cli_tree import cli_commands
from tests.support.tools import chromium
from venusctl.safety.ocr import tessdata_dir

ROOT = Path(__file__).resolve().parents[2]
HEADING = re.compile(r"<h[1-6][^>]*>")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from this tree as CI builds it: strict, so a broken link fails."""
    out = tmp_path_factory.mktemp("site")
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                            "-d", str(out)], cwd=ROOT, capture_output=True, text=True,
                           env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=240)
    assert built.returncode == 0, built.stderr
    return out


def reference_sections(site: Path) -> dict[str, str]:
    """Each command heading's id on the built pages, and the text up to the next heading."""
    sections: dict[str, str] = {}
    for page in (site / "commands").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        for found in re.finditer(r'<h3 id="(venusctl-[\w-]+)"', text):
            start = found.end()
            end = next((m.start() for m in HEADING.finditer(text, start)), len(text))
            assert found.group(1) not in sections, f"{found.group(1)} is on two pages"
            sections[found.group(1)] = html.unescape(re.sub(r"<[^>]+>", " ", text[start:end]))
    return sections


def test_the_reference_lists_every_command_and_option_of_the_app(site: Path):
    sections = reference_sections(site)
    expected = {"-".join(["venusctl", *path]) for path, _ in cli_commands()}
    assert set(sections) == expected
    for path, command in cli_commands():
        text = sections["-".join(["venusctl", *path])]
        assert f"venusctl {' '.join(path)}" in text
        for param in command.params:
            if param.param_type_name == "option" and not param.hidden:
                for name in (*param.opts, *param.secondary_opts):
                    assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), (path, name)
            elif param.param_type_name == "argument":
                assert (param.metavar or param.name) in text, (path, param.name)


def test_every_command_is_linked_from_the_commands_page(site: Path):
    text = (site / "commands" / "index.html").read_text(encoding="utf-8")
    links = set(re.findall(r'href="([\w.]+\.html)#(venusctl-[\w-]+)"', text))
    for path, _ in cli_commands():
        target = "-".join(["venusctl", *path])
        (page,) = [p for p, anchor in links if anchor == target]
        assert f'id="{target}"' in (site / "commands" / page).read_text(encoding="utf-8")


def test_the_front_page_shows_the_quick_start_in_chromium(site: Path, tmp_path: Path):
    from playwright.sync_api import sync_playwright

    index = site / "index.html"
    shot = tmp_path / "index.png"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium())
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            outside: list[str] = []
            page.on("request", lambda r: None if r.url.startswith("file:") else
                    outside.append(r.url))
            page.goto(index.as_uri())
            heading = page.get_by_role("heading", name="Quick start")
            box = heading.bounding_box()
            assert box is not None and 0 < box["y"] < 800 - box["height"]  # on the first screen
            assert page.get_by_text("scripts/install.sh").first.is_visible()
            page.screenshot(path=str(shot))
            assert outside == []  # the site reads offline: no fonts or scripts from the net
        finally:
            browser.close()
    # what the pixels say, not what the DOM says: the heading is drawn on the screen
    with tesserocr.PyTessBaseAPI(path=str(tessdata_dir()), lang="eng") as ocr:
        ocr.SetImage(Image.open(shot).convert("L"))
        seen = " ".join(ocr.GetUTF8Text().split())
    assert "Quick start" in seen, seen
    assert "venusctl do" in seen, seen
