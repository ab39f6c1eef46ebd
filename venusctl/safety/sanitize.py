"""Untrusted text made safe to print on a terminal: one sanitizer for every output.

Text that came from a model (thoughts, answers, questions), a page or an app
(labels, titles, URLs, error messages quoting them) or a run record can carry
terminal control sequences: an ESC or CSI sequence moves the cursor and erases
lines (a confirmation prompt's "policy:" line overwritten with "OK safe"), an OSC
sequence sets the window title or writes the clipboard (OSC 52), C1 controls do
the same in 8-bit form, and bidirectional overrides or invisible characters make
text read differently from what it is. Every such character is shown escaped
(`\\x1b`, `\\u202e`), never emitted, so what a person reads is what is there.

Kept as they are: printable text in every script, emoji (with their joiners and
variation selectors), and, where a caller asks for it, line breaks.
"""

from __future__ import annotations

import json
import logging
import re
import unicodedata
from typing import Any

ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp", "Cn"})
KEPT = frozenset({"\u200d"})  # the zero-width joiner inside emoji sequences
_CACHE: dict[str, bool] = {}
_ANY_RISKY = re.compile(r"[^\x20-\x7e\n]")
_ANY_RISKY_OR_NEWLINE = re.compile(r"[^\x20-\x7e]")


def _escaped(char: str) -> bool:
    """Whether a character must be shown escaped (controls, formats, bidi, unassigned)."""
    known = _CACHE.get(char)
    if known is None:
        known = char not in KEPT and unicodedata.category(char) in ESCAPED_CATEGORIES
        if len(_CACHE) < 65536:
            _CACHE[char] = known
    return known


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def shown(text: object, *, newlines: bool = False) -> str:
    """`text` with every control, format and bidi character escaped; `newlines` keeps
    line breaks (as `\\n`; a lone `\\r` never survives: it would return the cursor)."""
    value = text if isinstance(text, str) else str(text)
    if not (_ANY_RISKY if newlines else _ANY_RISKY_OR_NEWLINE).search(value):
        return value
    if newlines:
        value = value.replace("\r\n", "\n")
    return "".join(_escape(c) if (_escaped(c) and not (newlines and c == "\n")) else c
                   for c in value)


def shown_line(text: object, limit: int | None = None) -> str:
    """`text` on one line: whitespace runs become one space, then controls are escaped;
    cut to `limit` characters with '…' (the cut never splits an escape)."""
    flat = shown(" ".join(str(text).split()))
    if limit is None or len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    tail = cut.rfind("\\")
    if tail >= max(0, len(cut) - 10):
        cut = cut[:tail]
    return cut + "…"


def json_text(value: Any, **options: Any) -> str:
    """JSON whose strings cannot drive a terminal: `json.dumps` escapes C0 controls
    itself; this also escapes C1 controls, bidi overrides and invisible characters
    as `\\uXXXX`, which JSON readers turn back into the same text."""
    text = json.dumps(value, ensure_ascii=False, default=str, **options)
    if not _ANY_RISKY.search(text):
        return text
    return "".join(_json_escape(c) if _escaped(c) and c != "\n" else c for c in text)


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def markup(text: object) -> str:
    """Sanitized text that Rich prints literally (its `[style]` markup escaped)."""
    from rich.markup import escape

    return escape(shown(text))


class SanitizingFormatter(logging.Formatter):
    """Log lines on a terminal: a message that quotes a page or a model is escaped.

    Without `tracebacks` (no `-v`) an exception a log record carries is shown as its
    type and first line on the record's own line: a library logging an error it met
    (Playwright answering a call that a Ctrl-C abandoned, for one) must not put a
    traceback in front of a person or a script. `-v` shows the whole traceback."""

    def __init__(self, fmt: str, tracebacks: bool = False) -> None:
        super().__init__(fmt)
        self.tracebacks = tracebacks

    def format(self, record: logging.LogRecord) -> str:
        if record.exc_info and not self.tracebacks:
            error = record.exc_info[1]
            summary = f"{type(error).__name__}: {str(error).strip()}".splitlines()[0]
            record = logging.makeLogRecord({**record.__dict__, "msg": f"{record.getMessage()}"
                                            f" ({summary})", "args": None,
                                            "exc_info": None, "exc_text": None})
        return shown(super().format(record), newlines=True)
