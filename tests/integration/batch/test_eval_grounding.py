"""`venusctl eval grounding` on datasets the test renders: screenshots with known boxes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from tests.integration.model_server.conftest import API_KEY, llama_server  # noqa: F401
from tests.support.cli import venusctl, write_answers
from tests.support.tiny_model import tiny_model  # noqa: F401
from venusctl.evals.dataset import load_dataset
from venusctl.evals.grounding import GroundingEvalOptions, run_grounding_eval
from venusctl.model.base import Completion

MOBILE = [  # ScreenSpot-v2 style: bbox is [x, y, width, height]
    ("the Wi-Fi switch", [300, 200, 120, 60], "icon", "settings"),
    ("the Save button", [40, 700, 200, 80], "text", "notes"),
    ("the search field", [20, 60, 440, 50], "text", "browser"),
]
DESKTOP = [  # ScreenSpot-Pro style: bbox is [x1, y1, x2, y2]; one negative
    ("the Bold toolbar button", [610, 12, 650, 40], "icon", "writer", "positive"),
    ("the File menu", [8, 8, 60, 30], "text", "writer", "positive"),
    ("the Sum formula button", [900, 300, 1000, 340], "icon", "calc", "positive"),
    ("the Print preview tab", [0, 0, 0, 0], "icon", "calc", "negative"),
]


def render(path: Path, size: tuple[int, int], boxes: list[tuple[str, list[float]]]) -> None:
    """A screenshot with a labelled rectangle where each target is."""
    picture = Image.new("RGB", size, (245, 245, 245))
    draw = ImageDraw.Draw(picture)
    for label, (x1, y1, x2, y2) in boxes:
        draw.rectangle((x1, y1, x2, y2), fill=(60, 120, 200), outline=(0, 0, 0))
        draw.text((x1 + 4, y1 + 4), label[4:16], fill=(255, 255, 255))
    path.parent.mkdir(parents=True, exist_ok=True)
    picture.save(path)


def make_dataset(root: Path) -> Path:
    """Both public layouts in one folder: a v2 file at the top, a Pro file in annotations/."""
    corners = [(name, [x, y, x + w, y + h]) for name, (x, y, w, h), *_ in MOBILE]
    render(root / "screenspotv2_image" / "phone.png", (480, 960), corners)
    (root / "screenspot_mobile_v2.json").write_text(json.dumps([
        {"img_filename": "phone.png", "bbox": box, "instruction": name, "data_type": kind,
         "data_source": app} for name, box, kind, app in MOBILE]))
    render(root / "images" / "office" / "desk.png", (1280, 720),
           [(name, box) for name, box, *_, gt in DESKTOP if gt == "positive"])
    (root / "annotations").mkdir()
    (root / "annotations" / "office_windows.json").write_text(json.dumps([
        {"id": f"d{i}", "img_filename": "office/desk.png", "bbox": box, "instruction": name,
         "ui_type": kind, "platform": "windows", "application": app, "group": "Office",
         "gt_type": gt} for i, (name, box, kind, app, gt) in enumerate(DESKTOP)]))
    return root


class Predictor:
    """A grounding model that answers from the ground truth: box centres, or one point."""

    supports_grammar = False

    def __init__(self, root: Path, constant: str | None = None) -> None:
        self.samples = load_dataset(root)
        self.constant = constant
        self.name = "centres" if constant is None else f"constant {constant}"

    def complete(self, messages, options, on_text=None) -> Completion:
        assert options.thinking is False and options.temperature == 0.0
        text = messages[-1].text
        sample = next(s for s in self.samples  # the instruction on its own line
                      if f"\n{s.instruction.rstrip('.')}. \n" in text)
        if self.constant is not None:
            return Completion(text=self.constant)
        return Completion(text=centre_answer(sample))

    def close(self) -> None:
        return None


def centre_answer(sample) -> str:
    if sample.box is None:
        return "[-1,-1]"
    with Image.open(sample.image) as picture:
        width, height = picture.size
    divisor = 999 if sample.desktop else 1000
    x1, y1, x2, y2 = sample.box
    return f"[{round((x1 + x2) / 2 * divisor / width)},{round((y1 + y2) / 2 * divisor / height)}]"


def test_box_centres_score_100_and_a_far_point_scores_0(tmp_path):
    root = make_dataset(tmp_path / "data")
    options = GroundingEvalOptions(dataset=root, runs_dir=tmp_path / "runs")
    seen = []
    report = run_grounding_eval(options, lambda done, total, tally: seen.append(done),
                                model=Predictor(root))
    assert seen == list(range(1, 8))
    summary = report.summary
    assert summary["overall"] == {"correct": 7, "total": 7, "accuracy": 1.0}
    assert summary["text"]["total"] == 3 and summary["icon"]["total"] == 3
    assert summary["negative"] == {"correct": 1, "total": 1, "accuracy": 1.0}
    assert set(summary["by_platform"]) == {"mobile", "windows"}
    assert set(summary["by_application"]) == {"settings", "notes", "browser", "writer", "calc"}

    far = run_grounding_eval(options, model=Predictor(root, constant="[999,999]")).summary
    assert far["overall"]["accuracy"] == 0.0 and far["negative"]["correct"] == 0
    for split in far["by_platform"].values():
        assert split["overall"]["correct"] == 0

    # the record: every answer as it came, then the summary
    record = report.record_dir
    info = json.loads((record / "eval.json").read_text())
    assert info["status"] == "finished" and info["summary"]["overall"]["accuracy"] == 1.0
    answers = [json.loads(line) for line in (record / "samples.jsonl").read_text().splitlines()]
    assert len(answers) == 7 and all(a["correct"] for a in answers)
    assert json.loads(report.out.read_text())["results"] == answers


def test_the_command_scores_scripted_answers_and_writes_results(tmp_path):
    root = make_dataset(tmp_path / "data")
    samples = load_dataset(root)
    answers = [centre_answer(s) for s in samples]
    answers[0] = "I cannot tell"  # unreadable: wrong, and counted as such
    answers[1] = "[-1,-1]"  # a positive answered as absent: wrong
    script = write_answers(tmp_path / "answers.jsonl", answers)
    out = tmp_path / "results.json"
    result = venusctl("eval", "grounding", str(root), "--model-file", str(script), "--out",
                      str(out), "--runs-dir", str(tmp_path / "runs"), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["overall"] == {"correct": 5, "total": 7, "accuracy": round(5 / 7, 4)}
    assert summary["unreadable_answers"] == 1
    assert summary["by_platform"]["mobile"]["overall"]["correct"] == 1
    saved = json.loads(out.read_text())
    assert [r["correct"] for r in saved["results"]][:2] == [False, False]
    assert saved["results"][0]["error"].startswith("the model's answer holds no point")
    assert re.search(r"overall\s+│\s+71\.4%", result.stderr)


@pytest.mark.parametrize("bad", ["--bbox corners", "missing"])
def test_bad_arguments_are_one_line(tmp_path, bad):
    root = make_dataset(tmp_path / "data")
    args = ["eval", "grounding", str(root if bad != "missing" else tmp_path / "none"),
            "--model-file", str(write_answers(tmp_path / "a.jsonl", ["[1,1]"]))]
    if bad.startswith("--bbox"):
        args += bad.split()
    result = venusctl(*args, "--runs-dir", str(tmp_path / "runs"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr


def test_through_the_tiny_model_on_a_real_server(llama_server, tmp_path):  # noqa: F811
    """The random tiny model cannot find anything; the point is the whole path: images
    to a real OpenAI-compatible server, answers parsed, scored and recorded."""
    root = make_dataset(tmp_path / "data")
    result = venusctl("eval", "grounding", str(root), "--split", "mobile", "--server",
                      llama_server, "--api-key-env", "TINY_KEY", "--max-tokens", "12",
                      "--runs-dir", str(tmp_path / "runs"), "--json",
                      env={"TINY_KEY": API_KEY}, timeout=600)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["samples"] == 3 and summary["overall"]["total"] == 3
    assert summary["model"].startswith("server:")
    record = Path(summary["record"])
    answers = [json.loads(line) for line in (record / "samples.jsonl").read_text().splitlines()]
    assert len(answers) == 3 and all(a["raw"] or a["error"] for a in answers)
    assert API_KEY not in (record / "eval.json").read_text() + result.stderr
