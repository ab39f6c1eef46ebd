"""Labels in other languages for the mutation engine, taken from GTK's own translations.

GTK's translators wrote "_Delete", "_Remove", "_Open" or "_Save" in every language the
desktop speaks (libgtk-3-common's /usr/share/locale/<code>/LC_MESSAGES/gtk30.mo), and
never saw our keyword files: a label taken from there measures the guard on words
nobody on the project chose. Deleting is the one consequential act GTK's strings name;
the benign words are the everyday buttons of every dialog.
"""

from __future__ import annotations

import gettext
import re
import zlib
from pathlib import Path

LOCALES = Path("/usr/share/locale")
DOMAIN = "gtk30"

SHIPPED = ("en", "zh", "es", "ar", "pt", "id", "fr", "ja", "ru", "de", "ko", "it", "tr",
           "vi", "nl", "pl", "uk", "cs", "sv", "el", "hi", "he", "fa", "ro", "hu", "da",
           "fi", "nb", "sk", "bg")
"""The languages of the default policy's keyword files (policies/default.yaml)."""
UNKNOWN_SCRIPTS = ("th", "ka", "ta", "te")
"""Thai, Georgian, Tamil and Telugu: scripts no keyword file of the default policy uses."""

DELETING = ("_Delete", "_Remove")
BENIGN = ("_Open", "_Print", "_Help", "_Save", "_Cancel")

_MNEMONIC = re.compile(r"\s*\(_.\)|_")
MISTRANSLATED = {("uk", "_Remove")}
"""GTK 3's Ukrainian "_Remove" reads "В_лучити" ("to hit a target"), a letter short of
"Вилучити", its "_Delete": no person reads it as removing, so no axis takes it."""


class MissingTranslations(RuntimeError):
    """GTK's translations are not installed (apt install libgtk-3-common)."""


def translated(code: str, msgids: tuple[str, ...]) -> tuple[str, ...]:
    """GTK's words for `msgids` in the language `code`, mnemonics removed; a string GTK
    left untranslated is left out (English is GTK's own language: its msgids)."""
    if code == "en":
        return tuple(_MNEMONIC.sub("", m) for m in msgids)
    try:
        catalog = gettext.translation(DOMAIN, LOCALES, [code])
    except OSError as exc:
        raise MissingTranslations(f"no {DOMAIN}.mo for {code} under {LOCALES}") from exc
    kept = [m for m in msgids if (code, m) not in MISTRANSLATED]
    words = (catalog.gettext(m) for m in kept)
    return tuple(_MNEMONIC.sub("", w).strip() for w, m in zip(words, kept, strict=True)
                 if w != m)


def pick(words: tuple[str, ...], case_name: str) -> str:
    """One of `words` for a case, the same one every run (a case's name chooses)."""
    return words[zlib.crc32(case_name.encode()) % len(words)]
