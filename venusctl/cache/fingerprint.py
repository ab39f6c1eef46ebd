"""Screen fingerprints: is this the screen that was there when the task was recorded?

A perceptual hash (imagehash's DCT hash on a 16x16 grid, 256 bits) survives
re-encoding and a blinking caret but moves when content moves, appears or is
retyped; the Hamming distance between two hashes is the number of bits that
differ. The exact digest of the decoded pixels is kept beside it for the one
answer that must not be replayed from a merely similar screen: an `Answer` read
off the screen.
"""

from __future__ import annotations

import hashlib
import io

HASH_SIZE = 16
HEX_LENGTH = HASH_SIZE * HASH_SIZE // 4


def fingerprint(image: bytes) -> str:
    """The perceptual hash of an encoded image, as 64 hex digits."""
    import imagehash
    from PIL import Image

    with Image.open(io.BytesIO(image)) as picture:
        return str(imagehash.phash(picture, hash_size=HASH_SIZE))


def distance(first: str, second: str) -> int:
    """How many of the 256 bits differ between two fingerprints."""
    return (int(first, 16) ^ int(second, 16)).bit_count()


def pixel_digest(image: bytes) -> str:
    """A SHA-256 of the decoded RGB pixels: equal only for pixel-identical screens."""
    from PIL import Image

    with Image.open(io.BytesIO(image)) as picture:
        rgb = picture.convert("RGB")
        header = f"{rgb.width}x{rgb.height}:".encode("ascii")
        return hashlib.sha256(header + rgb.tobytes()).hexdigest()


def is_fingerprint(text: object) -> bool:
    return isinstance(text, str) and len(text) == HEX_LENGTH and all(
        c in "0123456789abcdef" for c in text)
