"""`venusctl eval grounding`: every sample through the model's grounding mode, scored.

The same `venusctl.model.grounding.ground` call as `venusctl ground` (one image, one
instruction, thinking off, temperature 0, a point grammar where the backend takes
one), so a score measured here is the score of the command people use. Every
answer is recorded as it comes (`RUNS_DIR/evals/<id>/samples.jsonl`, flushed), the
summary at the end (`eval.json`), and the whole result in one JSON file.
"""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError

from venusctl.core.actions import Surface
from venusctl.core.errors import ParseError, UsageError
from venusctl.core.grid import ScreenSize
from venusctl.evals.dataset import LoadOptions, Sample, load_dataset
from venusctl.evals.scoring import Tally, grid_to_image, is_correct
from venusctl.model.base import ImagePart, Model
from venusctl.model.grounding import ground
from venusctl.records.store import new_run_id
from venusctl.run.build import ModelOptions, open_model

Progress = Callable[[int, int, Tally], None]
_MIME = {"PNG": "image/png", "JPEG": "image/jpeg"}


@dataclass
class GroundingEvalOptions:
    dataset: Path
    runs_dir: Path
    model: ModelOptions = field(default_factory=ModelOptions)
    load: LoadOptions = field(default_factory=LoadOptions)
    out: Path | None = None
    surface: str | None = None  # force the grid mapping: mobile, browser or desktop
    max_tokens: int | None = None  # None: the grounding profile's (1024)


@dataclass
class GroundingReport:
    eval_id: str
    record_dir: Path
    out: Path
    model: str
    summary: dict[str, Any]
    samples: int
    seconds: float


def run_grounding_eval(options: GroundingEvalOptions, progress: Progress | None = None,
                       model: Model | None = None) -> GroundingReport:
    """Score every sample; the record is closed whatever happens."""
    samples = load_dataset(options.dataset, options.load)
    own = model is None
    model = model or open_model(options.model, Surface.MOBILE)
    record = _Record(options, model.name, len(samples))
    tally, started, status = Tally(), time.monotonic(), "error"
    try:
        for index, sample in enumerate(samples, start=1):
            result = score_sample(model, sample, options)
            tally.add(sample, result["correct"], result["readable"])
            record.sample(result)
            if progress is not None:
                progress(index, len(samples), tally)
        status = "finished"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        seconds = time.monotonic() - started
        record.finish(status, tally, seconds)
        if own:
            model.close()
    out = options.out or record.folder / "results.json"
    write_results(out, record, tally, seconds)
    return GroundingReport(record.eval_id, record.folder, out, model.name, tally.summary(),
                           len(samples), seconds)


def score_sample(model: Model, sample: Sample, options: GroundingEvalOptions
                 ) -> dict[str, Any]:
    """Ask for one sample's target; the answer, where it lands and whether it is right."""
    image, size = _image(sample.image)
    surface = _surface(sample, options.surface)
    readable, grid, error, raw, seconds = True, None, None, "", 0.0
    try:
        found = ground(model, image, size, sample.instruction, surface, options.max_tokens)
        grid, raw, seconds = found.grid, found.raw, found.seconds
    except ParseError as exc:
        readable, error = False, str(exc)
    correct = is_correct(sample, grid, size, readable)
    point = grid_to_image(grid, size, sample.desktop) if grid else None
    return {
        "id": sample.id, "split": sample.split, "image": str(sample.image),
        "instruction": sample.instruction, "kind": sample.kind, "platform": sample.platform,
        "application": sample.application, "negative": sample.negative,
        "box": list(sample.box) if sample.box else None, "size": [size.width, size.height],
        "grid": list(grid) if grid else None,
        "point": [round(point[0], 1), round(point[1], 1)] if point else None,
        "correct": correct, "readable": readable, "raw": raw, "error": error,
        "seconds": round(seconds, 4),
    }


def _surface(sample: Sample, forced: str | None) -> Surface:
    if forced:
        try:
            return Surface(forced)
        except ValueError:
            raise UsageError(f"--surface must be one of: "
                             f"{', '.join(s.value for s in Surface)}") from None
    return Surface.DESKTOP if sample.desktop else Surface.MOBILE


def _image(path: Path) -> tuple[ImagePart, ScreenSize]:
    try:
        data = path.read_bytes()
        picture = Image.open(io.BytesIO(data))
        picture.load()
    except (OSError, UnidentifiedImageError) as exc:
        raise UsageError(f"cannot read the image {path}: {exc}") from None
    mime = _MIME.get(picture.format or "")
    if mime is None:
        buffer = io.BytesIO()
        picture.convert("RGB").save(buffer, "PNG")
        data, mime = buffer.getvalue(), "image/png"
    return ImagePart(data, mime), ScreenSize(picture.width, picture.height)


class _Record:
    """`RUNS_DIR/evals/<id>/`: eval.json (settings, then the summary) and samples.jsonl."""

    def __init__(self, options: GroundingEvalOptions, model: str, total: int) -> None:
        self.eval_id = "grounding-" + new_run_id(options.dataset.resolve().name)
        self.folder = options.runs_dir / "evals" / self.eval_id
        try:
            self.folder.mkdir(parents=True)
        except OSError as exc:
            raise UsageError(f"cannot create {self.folder}: {exc.strerror or exc}") from None
        self.info: dict[str, Any] = {
            "eval_id": self.eval_id, "kind": "grounding", "dataset": str(options.dataset),
            "model": model, "samples": total, "started_at": time.time(),
            "settings": {"bbox": options.load.bbox, "language": options.load.language,
                         "splits": list(options.load.splits), "limit": options.load.limit,
                         "surface": options.surface, "max_tokens": options.max_tokens},
            "status": "running",
        }
        self._write_info()
        self.lines = self.folder / "samples.jsonl"
        self.lines.touch()
        self.results: list[dict[str, Any]] = []

    def sample(self, result: dict[str, Any]) -> None:
        self.results.append(result)
        with self.lines.open("a", encoding="utf-8") as out:
            out.write(json.dumps(result, ensure_ascii=False) + "\n")
            out.flush()
            os.fsync(out.fileno())

    def finish(self, status: str, tally: Tally, seconds: float) -> None:
        self.info.update(status=status, seconds=round(seconds, 3), scored=len(self.results),
                         summary=tally.summary(), ended_at=time.time())
        self._write_info()

    def _write_info(self) -> None:
        tmp = self.folder / "eval.json.tmp"
        tmp.write_text(json.dumps(self.info, indent=2, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, self.folder / "eval.json")


def write_results(out: Path, record: _Record, tally: Tally, seconds: float) -> None:
    data = {**record.info, "record": str(record.folder), "summary": tally.summary(),
            "seconds": round(seconds, 3), "results": record.results}
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
