"""Reading grounding datasets laid out like ScreenSpot-v2 and ScreenSpot-Pro.

A dataset folder holds annotation files (`*.json` lists or `*.jsonl`, at its top or
under `annotations/`) and the screenshots they name. The two public layouts differ
in small ways, all handled here:

- ScreenSpot-v2: `screenspot_{mobile,desktop,web}_v2.json`, entries with
  `img_filename`, `bbox` as [x, y, width, height], `instruction`, `data_type`
  (text|icon) and `data_source` (the app or site); images in `screenspotv2_image/`.
- ScreenSpot-Pro: `annotations/<app>_<platform>.json`, entries with `img_filename`,
  `bbox` as [x1, y1, x2, y2], `instruction` (and `instruction_cn`), `ui_type`,
  `platform`, `application`, `group`, and `gt_type: negative` for targets that are
  not on the screen; images under `images/`.

Boxes end up as (x1, y1, x2, y2) in image pixels; a negative sample has none.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venusctl.core.errors import UsageError

Box = tuple[float, float, float, float]
IMAGE_DIRS = ("images", "screenspotv2_image", "screenspot_imgs", "imgs", ".")
DESKTOP_PLATFORMS = {"desktop", "windows", "macos", "mac", "linux", "ubuntu"}
BBOX_FORMATS = ("auto", "xyxy", "xywh")


@dataclass(frozen=True)
class Sample:
    id: str
    image: Path
    instruction: str
    box: Box | None
    kind: str
    platform: str
    application: str
    group: str
    split: str

    @property
    def negative(self) -> bool:
        return self.box is None

    @property
    def desktop(self) -> bool:
        return self.platform.lower() in DESKTOP_PLATFORMS


@dataclass(frozen=True)
class LoadOptions:
    bbox: str = "auto"
    language: str = "en"
    splits: tuple[str, ...] = ()
    images: Path | None = None
    limit: int | None = None


def load_dataset(root: Path, options: LoadOptions | None = None) -> list[Sample]:
    """Every sample of the dataset (or of the chosen splits), in file order."""
    options = options or LoadOptions()
    if options.bbox not in BBOX_FORMATS:
        raise UsageError(f"--bbox must be one of {', '.join(BBOX_FORMATS)}")
    files = annotation_files(root)
    if options.splits:
        files = [f for f in files if any(s in f.stem for s in options.splits)]
        if not files:
            raise UsageError(f"no annotation file in {root} matches {', '.join(options.splits)}")
    samples: list[Sample] = []
    for path in files:
        samples += _read_file(path, root, options)
        if options.limit is not None and len(samples) >= options.limit:
            return samples[: options.limit]
    if not samples:
        raise UsageError(f"{root}: the annotation files hold no samples")
    return samples


def annotation_files(root: Path) -> list[Path]:
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise UsageError(f"no dataset at {root}")
    found = [p for folder in (root, root / "annotations") if folder.is_dir()
             for p in sorted(folder.iterdir())
             if p.suffix.lower() in (".json", ".jsonl") and p.is_file()]
    if not found:
        raise UsageError(f"{root} holds no annotation files (*.json or *.jsonl, at the top or "
                         "under annotations/)")
    return found


def _read_file(path: Path, root: Path, options: LoadOptions) -> list[Sample]:
    entries = _entries(path)
    fmt = options.bbox if options.bbox != "auto" else _guess_format(entries)
    base = root if root.is_dir() else root.parent
    finder = _ImageFinder(base, path.parent, options.images)
    return [_sample(entry, i, path, fmt, options.language, finder)
            for i, entry in enumerate(entries)]


def _entries(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix.lower() == ".jsonl":
            data: Any = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            data = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"cannot read annotations {path}: {exc}") from None
    if isinstance(data, dict):
        data = data.get("samples") or data.get("data") or []
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        raise UsageError(f"{path}: expected a list of annotation objects")
    return data


def _guess_format(entries: list[dict[str, Any]]) -> str:
    """ScreenSpot(-v2) entries (`data_type`) use x, y, w, h; Pro entries (`ui_type`) and
    anything else use corners, unless a box only makes sense as a size."""
    if any("data_type" in e for e in entries):
        return "xywh"
    for entry in entries:
        box = entry.get("bbox")
        if isinstance(box, list) and len(box) == 4 and (box[2] < box[0] or box[3] < box[1]):
            return "xywh"
    return "xyxy"


def _sample(entry: dict[str, Any], index: int, path: Path, fmt: str, language: str,
            finder: _ImageFinder) -> Sample:
    where = f"{path.name}[{index}]"
    name = entry.get("img_filename") or entry.get("image")
    if not isinstance(name, str):
        raise UsageError(f"{where}: no img_filename")
    instruction = entry.get(f"instruction_{language}") if language != "en" else None
    instruction = instruction or entry.get("instruction") or entry.get("prompt_to_evaluate")
    if not isinstance(instruction, str) or not instruction.strip():
        raise UsageError(f"{where}: no instruction")
    split = path.stem
    return Sample(
        id=str(entry.get("id") or f"{split}-{index}"), image=finder.find(name, where),
        instruction=instruction.strip(), box=_box(entry, fmt, where),
        kind=str(entry.get("data_type") or entry.get("ui_type") or "unknown").lower(),
        platform=str(entry.get("platform") or _platform_of(split)),
        application=str(entry.get("application") or entry.get("data_source") or "unknown"),
        group=str(entry.get("group") or ""), split=split)


def _box(entry: dict[str, Any], fmt: str, where: str) -> Box | None:
    box = entry.get("bbox")
    if entry.get("gt_type") == "negative" or entry.get("negative") is True or box is None:
        return None
    if not (isinstance(box, list) and len(box) == 4
            and all(isinstance(v, (int, float)) for v in box)):
        raise UsageError(f"{where}: bbox must be four numbers")
    if all(v == -1 for v in box):
        return None
    x1, y1, a, b = (float(v) for v in box)
    x2, y2 = (x1 + a, y1 + b) if fmt == "xywh" else (a, b)
    return (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))


def _platform_of(split: str) -> str:
    for name in ("mobile", "desktop", "web"):
        if name in split.lower():
            return name
    return "unknown"


class _ImageFinder:
    """Screenshots are found relative to the dataset's usual image folders."""

    def __init__(self, root: Path, annotations: Path, explicit: Path | None) -> None:
        roots = [explicit] if explicit else []
        roots += [root / d for d in IMAGE_DIRS] + [annotations, annotations.parent / "images"]
        self.roots = [r for r in dict.fromkeys(roots) if r is not None and r.is_dir()]

    def find(self, name: str, where: str) -> Path:
        for folder in self.roots:
            candidate = folder / name
            if candidate.is_file():
                return candidate
        raise UsageError(f"{where}: image {name} not found (looked in "
                         f"{', '.join(str(r) for r in self.roots[:4])}; --images DIR)")
