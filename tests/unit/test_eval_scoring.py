"""Grounding scoring and dataset reading: point-in-box, negatives, the two layouts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from venusctl.core.errors import UsageError
from venusctl.core.grid import ScreenSize
from venusctl.evals.dataset import LoadOptions, Sample, load_dataset
from venusctl.evals.scoring import Tally, is_correct

SIZE = ScreenSize(1000, 500)


def sample(box, platform="android", kind="text", app="settings") -> Sample:
    return Sample("s", Path("x.png"), "the button", box, kind, platform, app, "", "split")


def test_point_in_box_is_inclusive_at_every_edge():
    box = (100.0, 50.0, 200.0, 100.0)  # on a 1000x500 image: grid x = px, grid y = 2 * py
    for grid in [(100, 100), (200, 200), (100, 200), (150, 150)]:
        assert is_correct(sample(box), grid, SIZE)
    for grid in [(99, 150), (201, 150), (150, 99), (150, 201)]:
        assert not is_correct(sample(box), grid, SIZE)


def test_negatives_count_only_when_the_model_says_not_found():
    assert is_correct(sample(None), None, SIZE)
    assert not is_correct(sample(None), (10, 10), SIZE)
    assert not is_correct(sample((0.0, 0.0, 10.0, 10.0)), None, SIZE)
    assert not is_correct(sample(None), None, SIZE, found_answer=False)  # unreadable answer


def test_desktop_samples_map_the_grid_with_999():
    box = (1000.0, 0.0, 1000.0, 499.0)  # the right edge: grid 999 reaches it only with /999
    assert is_correct(sample(box, platform="windows"), (999, 500), SIZE)
    assert not is_correct(sample(box, platform="android"), (999, 500), SIZE)


def test_tally_breaks_down_by_kind_platform_and_application():
    tally = Tally()
    tally.add(sample((0, 0, 1, 1), "ios", "text", "mail"), True)
    tally.add(sample((0, 0, 1, 1), "ios", "icon", "mail"), False)
    tally.add(sample((0, 0, 1, 1), "windows", "icon", "excel"), True)
    tally.add(sample(None, "windows", "text", "excel"), True)
    tally.add(sample((0, 0, 1, 1), "windows", "text", "excel"), False, readable=False)
    summary = tally.summary()
    assert summary["overall"] == {"correct": 3, "total": 5, "accuracy": 0.6}
    assert summary["text"] == {"correct": 1, "total": 2, "accuracy": 0.5}
    assert summary["icon"] == {"correct": 1, "total": 2, "accuracy": 0.5}
    assert summary["negative"]["total"] == 1 and summary["unreadable_answers"] == 1
    assert summary["by_platform"]["ios"]["overall"]["accuracy"] == 0.5
    assert summary["by_application"]["excel"]["icon"]["correct"] == 1


def image(path: Path, size=(200, 100)) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, "white").save(path)


def test_screenspot_v2_layout_uses_xywh_boxes(tmp_path):
    image(tmp_path / "screenspotv2_image" / "a.png")
    (tmp_path / "screenspot_mobile_v2.json").write_text(json.dumps([
        {"img_filename": "a.png", "bbox": [10, 20, 30, 40], "instruction": "ok button",
         "data_type": "icon", "data_source": "android"}]))
    (found,) = load_dataset(tmp_path)
    assert found.box == (10.0, 20.0, 40.0, 60.0)
    assert (found.kind, found.platform, found.application) == ("icon", "mobile", "android")
    assert found.image == tmp_path / "screenspotv2_image" / "a.png"


def test_screenspot_pro_layout_uses_corners_and_negatives(tmp_path):
    image(tmp_path / "images" / "excel_windows" / "b.png")
    (tmp_path / "annotations").mkdir()
    (tmp_path / "annotations" / "excel_windows.json").write_text(json.dumps([
        {"img_filename": "excel_windows/b.png", "bbox": [10, 20, 30, 40], "id": "p1",
         "instruction": "sum", "instruction_cn": "求和", "ui_type": "text",
         "platform": "windows", "application": "excel", "group": "Office"},
        {"img_filename": "excel_windows/b.png", "bbox": [0, 0, 0, 0], "id": "p2",
         "instruction": "print", "ui_type": "icon", "platform": "windows",
         "application": "excel", "gt_type": "negative"}]))
    first, second = load_dataset(tmp_path, LoadOptions(language="cn"))
    assert first.box == (10.0, 20.0, 30.0, 40.0) and first.instruction == "求和"
    assert first.desktop and first.group == "Office"
    assert second.negative and second.instruction == "print"  # no cn text: falls back


@pytest.mark.parametrize(("entry", "message"), [
    ({"img_filename": "nope.png", "bbox": [0, 0, 1, 1], "instruction": "x"}, "not found"),
    ({"img_filename": "a.png", "bbox": [0, 0, 1], "instruction": "x"}, "four numbers"),
    ({"img_filename": "a.png", "bbox": [0, 0, 1, 1]}, "no instruction"),
])
def test_bad_annotations_are_usage_errors(tmp_path, entry, message):
    image(tmp_path / "images" / "a.png")
    (tmp_path / "data.json").write_text(json.dumps([entry]))
    with pytest.raises(UsageError, match=message):
        load_dataset(tmp_path)
