"""What makes two runs "the same task": the key a trajectory is stored under.

A key is the task text normalised (Unicode NFKC, case folded, whitespace collapsed,
closing punctuation dropped), the surface, the app or site the run started in (the
web page's host, without port: a local app restarted on another port is still the
same site; the phone's or desktop's foreground app) and the screen size. The key is
taken from the run's first screen, so it needs no option and no guess.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from venusctl.drivers.base import Screen

_CLOSING = re.compile(r"[\s.!?。！？…]+$")


def normalise_task(task: str) -> str:
    """`"  Order a GREEN one.\n"` and `"order a green one"` are the same task."""
    text = unicodedata.normalize("NFKC", task).casefold()
    text = " ".join(text.split())
    return _CLOSING.sub("", text)


def place_of(screen: Screen) -> str:
    """The site (web) or app (phone, desktop) a screen belongs to; '' when unknown."""
    context = screen.context
    if context.url:
        host = urlsplit(context.url).hostname
        if host:
            return host.lower()
        return urlsplit(context.url).scheme.lower()
    return (context.app or "").strip()


@dataclass(frozen=True)
class TrajectoryKey:
    task: str
    surface: str
    place: str
    width: int
    height: int

    @classmethod
    def of(cls, task: str, surface: str, screen: Screen) -> TrajectoryKey:
        return cls(normalise_task(task), str(surface), place_of(screen),
                   screen.size.width, screen.size.height)

    @property
    def id(self) -> str:
        """The entry's file name: a hash of the key (16 hex digits)."""
        text = json.dumps(self.as_dict(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    @property
    def screen(self) -> str:
        return f"{self.width}x{self.height}"

    def as_dict(self) -> dict[str, Any]:
        return {"task": self.task, "surface": self.surface, "place": self.place,
                "screen": [self.width, self.height]}

    @classmethod
    def from_dict(cls, data: Any) -> TrajectoryKey:
        """Read a stored key; `ValueError` when it is not one."""
        if not isinstance(data, dict):
            raise ValueError("the key is not an object")
        screen = data.get("screen")
        texts = [data.get(name) for name in ("task", "surface", "place")]
        if not all(isinstance(t, str) for t in texts) or not (
                isinstance(screen, list) and len(screen) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in screen)):
            raise ValueError("the key's fields have the wrong types")
        return cls(str(texts[0]), str(texts[1]), str(texts[2]), screen[0], screen[1])
