"""The HTML report and GIF of a run written by the real recorder."""

from __future__ import annotations

import base64
import io
import re

import pytest
from PIL import Image

from tests.support.fakes import png
from venusctl.core.errors import ExitCode, UsageError
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import Screen
from venusctl.present.report import build_html, write_gif, write_report
from venusctl.records.store import Outcome, Recorder, RunInfo, StepRecord, load_run


def recorded_run(tmp_path, task="order <b>milk</b> & eggs"):
    recorder = Recorder(tmp_path / "runs", task)
    recorder.start(RunInfo(recorder.run_id, task, "browser", "web", "scripted", recorder.run_dir,
                           settings={"max_steps": 5, "url": "http://127.0.0.1/"}))
    first = StepRecord(step=1, started_at=0.0, screen_size=(200, 100),
                       thought="Click the <name> field", action="Click(point=(500, 500))",
                       placed="Click(point=(100, 50))",
                       element={"role": "textbox", "name": "Your name", "bounds": [80, 40, 40, 20]},
                       verdict={"decision": "confirm", "reason": "typing", "category": "state"},
                       reply="yes", timings={"observe": 0.1, "model": 1.5, "act": 0.2},
                       screen=Screen(png(400, 200), "image/png", ScreenSize(200, 100)))
    second = StepRecord(step=2, started_at=0.0, error="the device went away",
                        timings={"observe": 0.05})
    third = StepRecord(step=3, started_at=0.0, screen_size=(200, 100),
                       action="Finished(content='done')", timings={"model": 0.4},
                       screen=Screen(png(400, 200, 90), "image/png", ScreenSize(200, 100)))
    for record in (first, second, third):
        recorder.step(record)
    recorder.finish(Outcome("finished", ExitCode.FINISHED, "done", steps=3))
    return load_run(recorder.run_dir)


def test_html_holds_every_step_with_inline_annotated_images(tmp_path):
    run = recorded_run(tmp_path)
    html = build_html(run)
    assert "<script" not in html and "&lt;b&gt;milk&lt;/b&gt;" in html
    assert re.findall(r'<section class="step" id="step-(\d+)"', html) == ["1", "2", "3"]
    uris = re.findall(r'src="data:image/jpeg;base64,([^"]+)"', html)
    assert len(uris) == 2  # step 2 has no screenshot
    image = Image.open(io.BytesIO(base64.b64decode(uris[0])))
    red, green, _ = image.convert("RGB").getpixel((200, 100))  # the click, at 2x
    assert red > 170 and green < 110
    for text in ("click point (500, 500)", "Click the &lt;name&gt; field",
                 "textbox &#39;Your name&#39;", "confirm", "typing [state]", "model 1500 ms",
                 "the device went away",
                 "(no screenshot for this step)", "<svg", "finished"):
        assert text in html, text
    assert "http://" not in html.replace("http://127.0.0.1/", "").replace(
        "http://www.w3.org/2000/svg", "")  # nothing is loaded from anywhere


def test_report_file_defaults_into_the_run_folder(tmp_path):
    run = recorded_run(tmp_path)
    path = write_report(run)
    assert path == run.path / "report.html" and path.stat().st_size > 1000
    other = write_report(run, tmp_path / "out" / "r.html")
    assert other.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_gif_has_one_frame_per_screenshot(tmp_path):
    run = recorded_run(tmp_path)
    frames = write_gif(run, tmp_path / "run.gif", width=200)
    assert frames == 2
    with Image.open(tmp_path / "run.gif") as gif:
        assert gif.n_frames == 2 and gif.width == 200
        assert gif.info.get("loop") == 0


def test_gif_of_a_run_without_screenshots_is_a_usage_error(tmp_path):
    recorder = Recorder(tmp_path / "runs", "nothing")
    recorder.start(RunInfo(recorder.run_id, "nothing", "browser", "web", "m", recorder.run_dir))
    with pytest.raises(UsageError, match="no screenshots"):
        write_gif(load_run(recorder.run_dir), tmp_path / "x.gif")
