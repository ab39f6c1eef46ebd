"""Upload, Download and SelectOption by value or text, in real Chromium.

A small page of our own (served from 127.0.0.1) has a file input that shows what was
chosen, a download link and a native select. The attacker's cases come first: paths
that leave the upload folder, a link inside it pointing out, an upload with no folder
allowed, a download that would overwrite a file.
"""

from __future__ import annotations

import contextlib
import functools
import json
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.support.cli import only_run, venusctl, write_answers
from venusctl.core.actions import Click, Download, SelectOption, Upload
from venusctl.core.errors import ActionFailed
from venusctl.drivers.web.driver import WebDriver, WebOptions

PAGE = """<!doctype html><html><head><title>Files</title><style>
body { margin: 0; font: 16px sans-serif; }
#pick { position: absolute; left: 20px; top: 20px; width: 300px; height: 40px; }
#get { position: absolute; left: 20px; top: 100px; width: 300px; height: 40px;
       display: block; background: #ddf; }
#colour { position: absolute; left: 20px; top: 180px; width: 300px; height: 40px; }
</style></head><body>
<input id="pick" type="file">
<a id="get" href="/report.csv" download="report.csv">Download the report</a>
<select id="colour"><option value="r">Red</option><option value="g">Green</option>
<option value="b" disabled>Blue</option><option value="y">  Yellow  </option></select>
<p id="chosen" style="position:absolute; top: 260px"></p>
<script>
document.getElementById('pick').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  document.getElementById('chosen').textContent = file.name + ':' + (await file.text());
});
</script></body></html>"""
REPORT = b"quarter,total\nQ3,42\n"
PICK, GET, COLOUR = (170, 40), (170, 120), (170, 200)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text(PAGE)
    (root / "report.csv").write_bytes(REPORT)
    handler = functools.partial(_Quiet, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def uploads(tmp_path: Path) -> Path:
    folder = tmp_path / "uploads"
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "Joe's CV.txt").write_text("cv of Joe")
    (folder / "notes.txt").write_text("notes")
    (tmp_path / "secret.txt").write_text("do not send")
    (folder / "escape.txt").symlink_to(tmp_path / "secret.txt")
    return folder


def open_driver(site: str, browser_path: str, upload_dir: Path | None) -> WebDriver:
    return WebDriver(WebOptions(url=site, browser_path=browser_path, upload_dir=upload_dir))


def chosen(driver: WebDriver, expected: str = "") -> str:
    """What the page says was chosen, once it says `expected` (it reads the file in the
    background) or after at most 10 s; an upload that was refused never changes it."""
    with contextlib.suppress(PlaywrightTimeout):  # the assertion says what was there
        driver.page.wait_for_function(
            "(want) => document.getElementById('chosen').textContent === want",
            arg=expected, timeout=10_000)
    return driver.page.evaluate("() => document.getElementById('chosen').textContent")


def test_uploads_leave_the_allowed_folder_never(site, browser_path, uploads, tmp_path):
    driver = open_driver(site, browser_path, uploads)
    try:
        with pytest.raises(ActionFailed, match="click the page's upload control first"):
            driver.perform(Upload(file="notes.txt"))
        driver.perform(Click(PICK))
        driver.settle(1.0)
        notice = driver.screenshot().notice or ""
        assert "status: awaiting_selection" in notice
        assert "- docs/Joe's CV.txt" in notice and "- notes.txt" in notice
        assert "escape.txt" not in notice and "secret" not in notice
        for bad in ("../secret.txt", "escape.txt", "docs/../../secret.txt", "missing.txt",
                    str(tmp_path / "secret.txt")):
            with pytest.raises(ActionFailed, match="not one of the files you may upload"):
                driver.perform(Upload(file=bad))
        assert chosen(driver) == ""
        result = driver.perform(Upload(file="docs/Joe's CV.txt"))
        assert result.details == {"uploaded": "docs/Joe's CV.txt", "bytes": 9}
        assert "status: completed" in (result.feedback or "")
        assert chosen(driver, "Joe's CV.txt:cv of Joe") == "Joe's CV.txt:cv of Joe"
    finally:
        driver.close()


def test_without_an_upload_folder_every_upload_is_refused(site, browser_path, uploads):
    driver = open_driver(site, browser_path, None)
    try:
        driver.perform(Click(PICK))
        driver.settle(1.0)
        assert "Upload is refused" in (driver.screenshot().notice or "")
        with pytest.raises(ActionFailed, match="uploading is not allowed"):
            driver.perform(Upload(file="notes.txt"))
        assert chosen(driver) == ""
    finally:
        driver.close()


def test_downloads_are_named_by_the_model_and_never_overwrite(site, browser_path, tmp_path):
    driver = open_driver(site, browser_path, None)
    folder = tmp_path / "run" / "downloads"
    try:
        with pytest.raises(ActionFailed, match="click the page's download control first"):
            driver.perform(Download(filename="x.csv"))
        driver.perform(Click(GET))
        driver.settle(1.0)
        notice = driver.screenshot().notice or ""
        assert "status: awaiting_filename" in notice and "'report.csv'" in notice
        with pytest.raises(ActionFailed, match="only during a run"):
            driver.perform(Download(filename="q3.csv"))
        driver.perform(Click(GET))
        driver.settle(1.0)
        driver.keep_files_in(folder)
        first = driver.perform(Download(filename="q3.csv"))
        driver.perform(Click(GET))
        driver.settle(1.0)
        second = driver.perform(Download(filename="q3.csv"))
        assert (folder / "q3.csv").read_bytes() == REPORT
        assert (folder / "q3 (2).csv").read_bytes() == REPORT
        assert first.details["download"]["file"] == "downloads/q3.csv"
        assert second.details["download"]["file"] == "downloads/q3 (2).csv"
        assert "status: completed" in (first.feedback or "")
    finally:
        driver.close()


def test_select_option_by_value_or_text(site, browser_path):
    driver = open_driver(site, browser_path, None)
    value = "() => document.getElementById('colour').value"
    try:
        with pytest.raises(ActionFailed, match="click one first"):
            driver.perform(SelectOption(value="g"))
        driver.perform(Click(COLOUR))
        assert driver.perform(SelectOption(value="g")).details["selected"] == "Green"
        assert driver.page.evaluate(value) == "g"
        driver.perform(Click(COLOUR))
        assert driver.perform(SelectOption(text="yellow")).details["value"] == "y"
        driver.perform(Click(COLOUR))
        with pytest.raises(ActionFailed, match="is disabled"):
            driver.perform(SelectOption(text="Blue"))
        with pytest.raises(ActionFailed, match=r"no option 'Purple'.*'Red'"):
            driver.perform(SelectOption(text="Purple"))
        assert driver.page.evaluate(value) == "y"
    finally:
        driver.close()


def test_a_run_uploads_and_downloads_and_records_both(site, browser_path, uploads, tmp_path):
    answers = write_answers(tmp_path / "answers.jsonl", [
        "<think>Open the file chooser.</think><action>Click(point=(166, 52))</action>",
        "<think>The CV is listed.</think><action>Upload(file='docs/Joe's CV.txt')</action>",
        "<think>Get the report.</think><action>Click(point=(166, 156))</action>",
        "<think>Name it.</think><action>Download(filename='q3-report.csv')</action>",
        "<think>Done.</think><action>Finished(content='uploaded and downloaded')</action>",
    ])
    result = venusctl("do", "upload my CV and fetch the report", "--driver", "web", "--url",
                      site, "--browser-path", browser_path, "--model-file", str(answers),
                      "--runs-dir", str(tmp_path / "runs"), "--upload-dir", str(uploads),
                      "--confirm", "never", "--yes")
    assert result.returncode == 0, result.stderr
    run = only_run(tmp_path / "runs")
    steps = [json.loads(line) for line in (run / "steps.jsonl").read_text().splitlines()]
    assert "awaiting_selection" in steps[1]["feedback"]
    assert steps[1]["result"]["uploaded"] == "docs/Joe's CV.txt"
    assert "awaiting_filename" in steps[3]["feedback"]
    assert steps[3]["result"]["download"]["file"] == "downloads/q3-report.csv"
    assert (run / "downloads" / "q3-report.csv").read_bytes() == REPORT
