"""The HTML report shows a hostile record as text: no markup from a model, a page or an
edited record ever becomes part of the page (the attacker's cases)."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

from tests.support.fakes import png
from venusctl.core.errors import ExitCode
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import Screen
from venusctl.present.report import build_html
from venusctl.records.store import Outcome, Recorder, RunInfo, StepRecord, load_run

SCRIPT = "<script>alert('xss')</script>"
ATTRIBUTE = '"><img src=x onerror=alert(1)>'
TEXTAREA = "</textarea><b>escaped the box</b>"
SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(2)"><script>alert(3)</script></svg>'
PAYLOADS = (SCRIPT, ATTRIBUTE, TEXTAREA, SVG)
ALL = " ".join(PAYLOADS)

# every tag and attribute the report's own template writes, and nothing else
OWN_TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "div",
            "main", "table", "tr", "td", "span", "code", "nav", "a", "section", "img", "p",
            "svg", "text", "rect"}
OWN_ATTRIBUTES = {"lang", "charset", "name", "content", "class", "id", "href", "alt", "src",
                  "xmlns", "role", "viewbox", "width", "height", "font-family", "font-size",
                  "x", "y", "text-anchor", "font-weight", "fill"}


class Tags(HTMLParser):
    """Every element a browser would build from the page, with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))


def hostile_run(tmp_path):
    task = f"buy milk {ALL}"
    recorder = Recorder(tmp_path / "runs", task)
    recorder.start(RunInfo(recorder.run_id, task, "browser", f"web{ATTRIBUTE}", f"m{SVG}",
                           recorder.run_dir, settings={"url": f"http://shop.test/?q={ALL}",
                                                       f"key{SCRIPT}": ATTRIBUTE}))
    recorder.step(StepRecord(
        step=1, started_at=0.0, screen_size=(200, 100), thought=f"I will click {ALL}",
        action=f"Type(content='{SCRIPT} {TEXTAREA}')", placed=f"Click(point=(1, 2)) {ATTRIBUTE}",
        element={"role": f"button{ATTRIBUTE}", "name": f"Pay {SVG}", "href": ALL},
        verdict={"decision": f'confirm{ATTRIBUTE}', "reason": ALL, "category": SCRIPT},
        reply=ALL, feedback=TEXTAREA, parse_errors=[SVG], error=SCRIPT,
        timings={"model": 0.5, f"{SVG}": 0.2}, model={"prompt_tokens": ATTRIBUTE},
        screen=Screen(png(400, 200), "image/png", ScreenSize(200, 100))))
    recorder.step(StepRecord(step=2, started_at=0.0, action=f"Nonsense({ALL})", error=ATTRIBUTE))
    recorder.finish(Outcome("finished", ExitCode.FINISHED, f"done {ALL}", steps=2))
    return load_run(recorder.run_dir)


def test_no_record_text_becomes_markup(tmp_path):
    page = build_html(hostile_run(tmp_path))
    parser = Tags()
    parser.feed(page)
    tags = {tag for tag, _ in parser.found}
    assert tags <= OWN_TAGS, tags - OWN_TAGS
    for tag, attrs in parser.found:
        assert set(attrs) <= OWN_ATTRIBUTES, (tag, attrs)
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
    assert [t for t, a in parser.found if t == "img"] == ["img"]  # the one screenshot
    assert len([t for t, _ in parser.found if t == "svg"]) == 1  # the timeline, ours
    assert all(a.get("src", "").startswith("data:image/jpeg;base64,")
               for t, a in parser.found if t == "img")
    assert all(a.get("class", "").startswith(("verdict-", "outcome", "error", "dim", "step",
                                              "shot", "thought", "kv", "meta", "timeline"))
               for _, a in parser.found if "class" in a)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_each_payload_is_shown_escaped_and_never_raw(tmp_path, payload):
    page = build_html(hostile_run(tmp_path))
    assert payload not in page
    for raw in ("<script", "</textarea", "<img src=x", "<b>", "<svg xmlns"):
        assert raw not in page, raw
    escaped = payload.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace(
        '"', "&#34;").replace("'", "&#39;")
    assert escaped in page  # still readable as text


def test_a_hand_edited_record_is_read_as_text_too(tmp_path):
    run = hostile_run(tmp_path)
    steps = run.path / "steps.jsonl"
    line = json.loads(steps.read_text().splitlines()[0])
    line.update(step=f"1{ATTRIBUTE}", image=f"../{SCRIPT}.png", thought=["not", "text"])
    steps.write_text(json.dumps(line) + "\n")
    page = build_html(load_run(run.path))
    parser = Tags()
    parser.feed(page)
    assert {tag for tag, _ in parser.found} <= OWN_TAGS
    assert SCRIPT not in page and ATTRIBUTE not in page
