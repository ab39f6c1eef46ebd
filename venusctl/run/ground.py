"""What grounding looks at and what it draws: an image file or a live screen, a point.

The screen comes from an image file (its pixels are the screen units) or from a
driver's screenshot (the driver's units: CSS pixels in a browser), so the point
found is the one `venusctl act` would click. `annotate` draws it on the image.
`venusctl.api.Agent.ground` puts these together with a model.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from venusctl.core.actions import Surface
from venusctl.core.errors import UsageError
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import Screen
from venusctl.model.base import ImagePart
from venusctl.model.grounding import GroundResult

_MIME = {"PNG": "image/png", "JPEG": "image/jpeg"}


@dataclass(frozen=True)
class Shot:
    """A screen to ground on: the image part sent, its size in screen units, the picture."""

    part: ImagePart
    size: ScreenSize
    picture: Image.Image
    surface: Surface


def shot_of(screen: Screen, surface: Surface) -> Shot:
    """A driver's screenshot as a grounding input (screen units: the driver's)."""
    return Shot(ImagePart(screen.data, screen.mime), screen.size, screen.image.copy(), surface)


def surface_named(name: str | Surface) -> Surface:
    """`mobile`, `desktop` or `browser`, with a one-line error for anything else."""
    if isinstance(name, Surface):
        return name
    return _surface(name.lower())


def _surface(name: str) -> Surface:
    try:
        return Surface(name)
    except ValueError:
        choices = ", ".join(s.value for s in Surface)
        raise UsageError(f"--surface must be one of: {choices}") from None


def shot_from_file(path: Path, surface: Surface) -> Shot:
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
    return Shot(ImagePart(data, mime), ScreenSize(picture.width, picture.height),
                 picture, surface)


def annotate(picture: Image.Image, result: GroundResult, out: Path) -> None:
    """Mark the point (screen units scaled to image pixels) and label it."""
    from venusctl.core.pictures import mark_label, mark_point

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
        canvas.save(out, image_kind(out))
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None


def image_kind(out: Path) -> str:
    kind = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG"}.get(out.suffix.lower())
    if kind is None:
        raise UsageError(f"--annotate {out}: save as .png or .jpg")
    return kind
