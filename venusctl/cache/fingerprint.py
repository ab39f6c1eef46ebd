"""Screen fingerprints: is this the screen that was there when the task was recorded?

A perceptual hash (imagehash's DCT hash on a 16x16 grid, 256 bits) survives
re-encoding and a blinking caret but moves when content moves, appears or is
retyped; the Hamming distance between two hashes is the number of bits that
differ. The exact digest of the decoded pixels is kept beside it for the one
answer that must not be replayed from a merely similar screen: an `Answer` read
off the screen.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import threading
from dataclasses import dataclass

HASH_SIZE = 16
HEX_LENGTH = HASH_SIZE * HASH_SIZE // 4


@dataclass(frozen=True)
class Prints:
    """Both fingerprints of one screen, from one decoding of its image."""

    perceptual: str
    pixels: str


def prints(image: bytes) -> Prints:
    """The perceptual hash (64 hex digits) and the pixel digest of an encoded image."""
    import imagehash
    from PIL import Image

    with Image.open(io.BytesIO(image)) as picture:
        rgb = picture.convert("RGB")
    header = f"{rgb.width}x{rgb.height}:".encode("ascii")
    return Prints(str(imagehash.phash(rgb, hash_size=HASH_SIZE)),
                  hashlib.sha256(header + rgb.tobytes()).hexdigest())


def fingerprint(image: bytes) -> str:
    """The perceptual hash of an encoded image, as 64 hex digits."""
    return prints(image).perceptual


def pixel_digest(image: bytes) -> str:
    """A SHA-256 of the decoded RGB pixels: equal only for pixel-identical screens."""
    return prints(image).pixels


def distance(first: str, second: str) -> int:
    """How many of the 256 bits differ between two fingerprints."""
    return (int(first, 16) ^ int(second, 16)).bit_count()


def warm_up() -> None:
    """Import the hashing library (and scipy under it, about a second) in the background,
    while the browser or phone connection is being opened."""
    def load() -> None:
        with contextlib.suppress(ImportError):
            import imagehash  # noqa: F401
            import scipy.fftpack  # noqa: F401

    threading.Thread(target=load, name="venusctl-imagehash", daemon=True).start()


def is_fingerprint(text: object) -> bool:
    return isinstance(text, str) and len(text) == HEX_LENGTH and all(
        c in "0123456789abcdef" for c in text)
