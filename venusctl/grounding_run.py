"""`venusctl ground` without the command line: an image or a live screen, a model, a point.

The screen comes from an image file (its pixels are the screen units) or from a
driver's screenshot (the driver's units: CSS pixels in a browser), so the point
printed is the one `venusctl act` would click. `--annotate` draws it on the image.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from venusctl.actions import Surface
from venusctl.errors import UsageError
from venusctl.grid import ScreenSize
from venusctl.grounding import GroundResult, ground
from venusctl.model.base import ImagePart
from venusctl.session import ModelOptions, open_model
from venusctl.surfaces import DriverOptions, open_driver, surface_of

_MIME = {"PNG": "image/png", "JPEG": "image/jpeg"}


@dataclass
class GroundRequest:
    instruction: str
    image: Path | None = None
    driver: DriverOptions = field(default_factory=DriverOptions)
    model: ModelOptions = field(default_factory=ModelOptions)
    surface: str = "mobile"
    annotate: Path | None = None
    max_tokens: int | None = None  # None: the grounding profile's (1024)


@dataclass(frozen=True)
class _Shot:
    part: ImagePart
    size: ScreenSize
    picture: Image.Image
    surface: Surface


def run_ground(request: GroundRequest) -> GroundResult:
    """Find the element; draw it when asked. The caller decides what 'not found' means."""
    if request.annotate is not None:
        _image_kind(request.annotate)
    shot = _screen(request)
    model = open_model(request.model, shot.surface)
    try:
        result = ground(model, shot.part, shot.size, request.instruction, shot.surface,
                        request.max_tokens)
    finally:
        model.close()
    if request.annotate is not None:
        annotate(shot.picture, result, request.annotate)
    return result


def _screen(request: GroundRequest) -> _Shot:
    if request.image is not None and request.driver.driver:
        raise UsageError("give either an IMAGE or --driver, not both")
    if request.image is not None:
        return _from_file(request.image, _surface(request.surface))
    if not request.driver.driver:
        raise UsageError("give an IMAGE file, or --driver web|desktop|android for a live screen")
    driver = open_driver(request.driver)
    try:
        screen = driver.screenshot()
        picture = screen.image.copy()
    finally:
        driver.close()
    return _Shot(ImagePart(screen.data, screen.mime), screen.size, picture,
                 surface_of(request.driver.driver))


def _surface(name: str) -> Surface:
    try:
        return Surface(name)
    except ValueError:
        choices = ", ".join(s.value for s in Surface)
        raise UsageError(f"--surface must be one of: {choices}") from None


def _from_file(path: Path, surface: Surface) -> _Shot:
    try:
        data = path.read_bytes()
        picture = Image.open(io.BytesIO(data))
        picture.load()
    except FileNotFoundError:
        raise UsageError(f"no such image: {path}") from None
    except (OSError, UnidentifiedImageError) as exc:
        raise UsageError(f"cannot read {path} as an image: {exc}") from None
    mime = _MIME.get(picture.format or "")
    if mime is None:  # WebP, BMP, …: send PNG, which every backend accepts
        buffer = io.BytesIO()
        picture.save(buffer, "PNG")
        data, mime = buffer.getvalue(), "image/png"
    return _Shot(ImagePart(data, mime), ScreenSize(picture.width, picture.height),
                 picture, surface)


def annotate(picture: Image.Image, result: GroundResult, out: Path) -> None:
    """Mark the point (screen units scaled to image pixels) and label it."""
    from venusctl.pictures import mark_label, mark_point

    canvas = picture.convert("RGB")
    if result.pixels is not None:
        scale_x = canvas.width / result.size.width
        scale_y = canvas.height / result.size.height
        xy = (round(result.pixels[0] * scale_x), round(result.pixels[1] * scale_y))
        mark_point(canvas, xy)
        mark_label(canvas, (xy[0] + 16, xy[1] + 16), result.instruction)
    else:
        mark_label(canvas, (8, 8), f"not found: {result.instruction}")
    try:
        canvas.save(out, _image_kind(out))
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None


def _image_kind(out: Path) -> str:
    kind = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}.get(out.suffix.lower())
    if kind is None:
        raise UsageError(f"--annotate {out}: save as .png or .jpg")
    return kind
