"""Recognising sensitive text about to be typed: card numbers, one-time codes, secrets.

Keywords cannot say "a card number", so these detectors do: a run of 13 to 19
digits (spaces or dashes allowed between groups) that passes the Luhn check, which
payment cards carry and phone numbers or order ids almost never do; and a one-time
code, a lone group of 4 to 8 digits. The guard combines the code detector with the
field's label, since a lone number is also a quantity or a postcode.
"""

from __future__ import annotations

import re

from venusctl.safety.secrets import names_in

_CARD_CANDIDATE = re.compile(r"(?<![\d])(?:\d[ -]?){12,18}\d(?![\d])")
_OTP = re.compile(r"\s*(?:\d[ -]?){3,7}\d\s*")

DETECTORS = ("card_number", "one_time_code", "secret")


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum every payment card number satisfies."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def has_card_number(text: str) -> bool:
    for match in _CARD_CANDIDATE.finditer(text):
        digits = re.sub(r"\D", "", match.group(0))
        if 13 <= len(digits) <= 19 and luhn_ok(digits) and len(set(digits)) > 1:
            return True
    return False


def is_one_time_code(text: str) -> bool:
    return bool(_OTP.fullmatch(text)) if text else False


def detected(typed: list[str]) -> frozenset[str]:
    """Which detectors fire on the texts an action types."""
    found: set[str] = set()
    for text in typed:
        if has_card_number(text):
            found.add("card_number")
        if is_one_time_code(text):
            found.add("one_time_code")
        if names_in(text):
            found.add("secret")
    return frozenset(found)
