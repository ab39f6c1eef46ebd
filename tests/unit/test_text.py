"""The one-line helpers every message goes through."""

from __future__ import annotations

from venusctl.core.text import first_line, one_line


def test_one_line_flattens_and_clips():
    assert one_line("  Pay\n  now\t", 20) == "Pay now"
    assert one_line("abcdefghij", 5) == "abcd…"
    assert one_line("abcde", 5) == "abcde"


def test_first_line_of_an_exception_or_output():
    assert first_line(ValueError("boom\nCall log:\n  - step")) == "boom"
    assert first_line(RuntimeError("")) == "RuntimeError"
    assert first_line("x" * 400) == "x" * 300
    assert first_line("out\nmore", limit=2) == "ou"
