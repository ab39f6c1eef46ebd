"""Labels in other languages for the mutation engine, taken from GTK's and Chromium's
own translations.

GTK's translators wrote "_Delete", "_Remove", "_Open" or "_Save" in every language the
desktop speaks (libgtk-3-common's /usr/share/locale/<code>/LC_MESSAGES/gtk30.mo), and
Chromium's wrote "Pay", "Send" and "Install" (chromium-l10n's
/usr/lib/chromium/locales/<code>.pak), and "Change password", "Reset password",
"Remove account" and "Restart"; neither saw our keyword files, so a label taken
from there measures the guard on words nobody on the project chose. The benign words
are GTK's everyday buttons of every dialog.
"""

from __future__ import annotations

import functools
import gettext
import re
import struct
import zlib
from pathlib import Path

LOCALES = Path("/usr/share/locale")
DOMAIN = "gtk30"

SHIPPED = ("en", "zh", "es", "ar", "pt", "id", "fr", "ja", "ru", "de", "ko", "it", "tr",
           "vi", "nl", "pl", "uk", "cs", "sv", "el", "hi", "he", "fa", "ro", "hu", "da",
           "fi", "nb", "sk", "bg")
"""The languages of the default policy's keyword files (policies/default.yaml)."""
UNKNOWN_SCRIPTS = ("th", "am", "ta", "te")
"""Thai, Amharic (Ethiopic), Tamil and Telugu: scripts no keyword file of the default policy
uses."""

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


CHROMIUM_LOCALES = Path("/usr/lib/chromium/locales")
CHROMIUM_WORDS: dict[str, tuple[str, ...]] = {
    "payment": ("Pay",), "send": ("Send",), "install": ("Install",),
    "account": ("Change password", "Reset password"),
    "system": ("Restart",)}
"""The consequential categories Chromium's own buttons name, and their English strings
(a case takes one of them, `pick`): paying, sending, installing, changing an account's
password or removing the account, restarting."""
_PAK_NAMES = {"en": "en-US", "zh": "zh-CN", "pt": "pt-BR"}
UNREADABLE = {("vi", "Install"), ("ro", "Restart")}
"""Vietnamese "Cài đặt" is both "Install" and "Settings", Romanian "Reîncepe" (Chromium's
"Restart") is "start over" (a game, a quiz): no word can tell them apart, so the guard
leaves them to the context and no axis takes them."""


def _pak(path: Path) -> dict[int, bytes]:
    """A Chromium .pak resource file (format 5): resource id -> its bytes."""
    data = path.read_bytes()
    version, = struct.unpack_from("<I", data)
    if version != 5:
        raise MissingTranslations(f"{path}: .pak format {version}, not 5")
    count, aliases = struct.unpack_from("<HH", data, 8)
    entries = [struct.unpack_from("<HI", data, 12 + 6 * i) for i in range(count + 1)]
    found = {rid: data[start:entries[i + 1][1]] for i, (rid, start) in enumerate(entries[:-1])}
    for i in range(aliases):
        rid, index = struct.unpack_from("<HH", data, 12 + 6 * (count + 1) + 4 * i)
        found[rid] = found[entries[index][0]]
    return found


@functools.cache
def _chromium(code: str) -> dict[int, bytes]:
    path = CHROMIUM_LOCALES / f"{_PAK_NAMES.get(code, code)}.pak"
    if not path.is_file():
        raise MissingTranslations(f"no {path} (apt install chromium-l10n)")
    return _pak(path)


def chromium_word(code: str, english: str) -> str | None:
    """Chromium's button `english` ("Pay") in the language `code`; the resource is found
    by its English text, so no resource id is written down here."""
    if (code, english) in UNREADABLE:
        return None
    ids = sorted(rid for rid, raw in _chromium("en").items() if raw == english.encode())
    if not ids:
        raise MissingTranslations(f"Chromium has no string {english!r}")
    return _chromium(code)[ids[0]].decode("utf-8")
