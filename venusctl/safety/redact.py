"""Keeping secret values out of everything venusctl writes or prints.

The model and the record only ever hold `{{secret:NAME}}`, but a value once typed
can come back: a page echoes it, a driver error quotes it, a library logs it. The
`Redactor` learns each value the moment it is substituted and replaces it with
`[secret:NAME]` wherever text leaves the run: in run observers (record, JSON
stream, progress line, TUI), in log records, and in error messages from the
driver wrapper.

Pages rarely echo a value verbatim. Each value is also recognised in the forms an
address, a title or a request body gives it (`secret_forms`): percent-encoded
(also twice, `+` for spaces), as HTML entities or JSON `\\u` escapes, with
spaces, dashes, dots or invisible characters between its letters, in any letter
case, and inside base64 at any alignment.
"""

from __future__ import annotations

import base64
import logging
import re
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from venusctl.drivers.base import ScreenContext
from venusctl.records.store import StepRecord

if TYPE_CHECKING:
    from PIL import Image

    from venusctl.safety.ocr import TextReader

MIN_SCRUB_LENGTH = 3  # shorter values would blank out ordinary text and are no secret
MIN_BASE64_CORE = 8  # base64 shorter than this could be anything
# what a page may put between a value's characters: spacing, punctuation, invisible
# characters, and their encoded forms
_SEPARATOR = (r"(?:[\s\-_.·,|/\\:;*•]|\+|%(?:25)?(?:20|2[dDeEfF]|5[fF]|09|0[aAdD])|&nbsp;"
              r"|&#0*(?:32|160|45|46);|[\u00ad\u200b-\u200f\u2060-\u2064\ufeff])")
_NAMED = {"&": ("&amp;",), "<": ("&lt;",), ">": ("&gt;",), '"': ("&quot;",),
          "'": ("&apos;", "&#39;"), " ": ("&nbsp;", "+")}


_OCR_ALIKE = ("0OoQD", "1lI|i!", "5Ss", "8B", "2Zz", "6G", "9gq", "uv")
"""Glyphs OCR mistakes for one another: a value read back from the screen (an echoed
name that `ocr.py` read beside a button) may come back with one of them swapped."""


def _char_forms(char: str) -> str:
    """One character as a page may encode it or OCR may misread it, as a regular
    expression."""
    alike = "".join(group for group in _OCR_ALIKE if char in group)
    forms = [f"[{re.escape(alike)}]" if alike else re.escape(char)]
    encoded = char.encode("utf-8")
    forms.append("".join(f"%(?:25)?{b:02x}" for b in encoded))
    forms.append(f"&#0*{ord(char)};")
    forms.append(f"&#x0*{ord(char):x};")
    forms.append(f"\\\\u{ord(char):04x}" if ord(char) < 0x10000 else re.escape(char))
    forms.extend(re.escape(f) for f in _NAMED.get(char, ()))
    return "(?:" + "|".join(forms) + ")"


def _base64_cores(value: str) -> list[str]:
    """The parts of the value's base64 that do not depend on what surrounds it."""
    raw = value.encode("utf-8")
    cores = []
    for pad in range(3):
        encoded = base64.b64encode(b"\0" * pad + raw).decode()
        whole_groups = (pad + len(raw)) // 3
        core = encoded[(4 if pad else 0): whole_groups * 4]
        if len(core) >= MIN_BASE64_CORE:
            cores += [core, core.replace("+", "-").replace("/", "_")]
    return list(dict.fromkeys(cores))


@dataclass(frozen=True)
class SecretForms:
    """The patterns that find one value, written any way a page may write it."""

    spelled: re.Pattern[str]
    base64: re.Pattern[str] | None

    def search(self, text: str) -> bool:
        return bool(self.spelled.search(text) or (self.base64 and self.base64.search(text)))

    def sub(self, mask: str, text: str) -> str:
        text = self.spelled.sub(mask, text)
        return self.base64.sub(mask, text) if self.base64 else text


def secret_forms(value: str) -> SecretForms:
    chars = [_char_forms(c) for c in value]
    spelled = re.compile(f"{_SEPARATOR}{{0,3}}".join(chars), re.IGNORECASE)
    cores = _base64_cores(value)
    # the whole base64 token goes, so no neighbouring character gives a letter away
    b64 = re.compile("[A-Za-z0-9+/_-]*(?:" + "|".join(re.escape(c) for c in cores)
                     + ")[A-Za-z0-9+/_-]*=*") if cores else None
    return SecretForms(spelled, b64)


class Redactor:
    """The secret values of one run, the text they are replaced by, and where each was
    typed (the hosts of the frames holding the fields)."""

    def __init__(self) -> None:
        self._values: dict[str, str] = {}
        self._forms: dict[str, SecretForms] = {}
        self._typed: dict[str, set[str]] = {}

    def add(self, name: str, value: str) -> None:
        if len(value) >= MIN_SCRUB_LENGTH and value not in self._values:
            self._values[value] = f"[secret:{name}]"
            self._forms[value] = secret_forms(value)

    def known(self, name: str) -> str | None:
        """The value learnt for `name` in this run (kept so the keyring is asked once)."""
        mask = f"[secret:{name}]"
        return next((v for v, m in self._values.items() if m == mask), None)

    def scrub(self, text: str) -> str:
        for value in sorted(self._values, key=len, reverse=True):
            if value in text:
                text = text.replace(value, self._values[value])
            forms = self._forms[value]
            if forms.search(text):
                text = forms.sub(self._values[value], text)
        return text

    def found_in(self, text: str) -> list[str]:
        """The names of the secrets whose values appear in `text`, in any form."""
        return [self._values[v][len("[secret:"):-1] for v, forms in self._forms.items()
                if v in text or forms.search(text)]

    def note_typed(self, name: str, host: str | None) -> None:
        """The secret `name` was typed into a field of a frame from `host`."""
        if host:
            self._typed.setdefault(name, set()).add(host)

    def typed_hosts(self, name: str) -> set[str]:
        return set(self._typed.get(name, ()))

    def scrub_any(self, value: Any) -> Any:
        """Strings inside dicts, lists and tuples scrubbed; other values unchanged."""
        if not self._values:
            return value
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, dict):
            return {k: self.scrub_any(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.scrub_any(v) for v in value)
        return value


class RedactingFilter(logging.Filter):
    """A handler filter that scrubs each log record's message before it is written."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = self.redactor.scrub(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        if record.exc_info and record.exc_info[1] is not None:
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text, record.exc_info = self.redactor.scrub(text), None
        return True


def install_log_filter(redactor: Redactor) -> RedactingFilter:
    """Scrub everything the root logger's handlers write; returns the filter to remove."""
    log_filter = RedactingFilter(redactor)
    for handler in logging.getLogger().handlers:
        handler.addFilter(log_filter)
    return log_filter


def remove_log_filter(log_filter: RedactingFilter) -> None:
    for handler in logging.getLogger().handlers:
        handler.removeFilter(log_filter)


_NOT_TEXT = frozenset({"screen"})  # the screenshot: fields with secrets are painted over


def scrub_step(redactor: Redactor, record: StepRecord) -> None:
    """Scrub, in place, every field of a step record (the model, the page, the driver,
    OCR and the person all put text there; a field added later is scrubbed too)."""
    for item in fields(record):
        if item.name not in _NOT_TEXT:
            setattr(record, item.name, redactor.scrub_any(getattr(record, item.name)))


class ScrubbedReader:
    """A `TextReader` whose readings pass the run's redactor: a page that echoes a
    typed secret ("Thank you, <name>") shows it in pixels no field wrapper paints over,
    and what OCR reads there reaches the guard's label, the record and a confirmation."""

    def __init__(self, inner: TextReader, redactor: Redactor) -> None:
        self.inner = inner
        self.redactor = redactor

    def read(self, image: Image.Image, box: tuple[int, int, int, int],
             context: ScreenContext, centre: tuple[int, int] | None = None) -> str:
        return self.redactor.scrub(self.inner.read(image, box, context, centre=centre))

    def read_window(self, image: Image.Image, box: tuple[int, int, int, int],
                    context: ScreenContext) -> str:
        return self.redactor.scrub(self.inner.read_window(image, box, context))
