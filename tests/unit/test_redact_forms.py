"""A secret is recognised and replaced in every form a page may echo it in."""

from __future__ import annotations

import base64
import html
import json
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venusctl.safety.redact import Redactor

SECRET = "Cnry-7Qx2 secret&Vz91"


@pytest.fixture
def redactor() -> Redactor:
    found = Redactor()
    found.add("canary", SECRET)
    return found


@pytest.mark.parametrize("echo", [
    SECRET,
    quote(SECRET, safe=""),
    quote_plus(SECRET),
    quote(quote(SECRET, safe=""), safe=""),
    html.escape(SECRET),
    "".join(f"&#{ord(c)};" for c in SECRET),
    "".join(f"&#x{ord(c):x};" for c in SECRET),
    json.dumps(SECRET, ensure_ascii=True)[1:-1].replace("C", "\\u0043"),
    " ".join(SECRET),
    "-".join(SECRET),
    ". ".join(SECRET),
    "\u200b".join(SECRET),
    SECRET.upper(),
    "Cnry-7Qx2 secret&Vz9l",  # as OCR may read it back: 1 as l
    "CnrY-7QxZ 5ecret&Vz9I",  # 2 as Z, s as 5, 1 as I
    "Cnry-7Qx2 secret&Vz9|",
    base64.b64encode(SECRET.encode()).decode(),
    base64.b64encode(b"user:" + SECRET.encode()).decode(),
    base64.urlsafe_b64encode(b"ab" + SECRET.encode()).decode().rstrip("="),
])
def test_every_form_is_replaced(redactor, echo):
    text = f"title: {echo} (page 2)"
    cleaned = redactor.scrub(text)
    assert cleaned.startswith("title: ") and cleaned.endswith(" (page 2)")
    assert "[secret:canary]" in cleaned
    assert redactor.found_in(text) == ["canary"]
    for letters in ("Cnry", "Vz91", "7Qx2"):
        assert letters.lower() not in cleaned.lower()


def test_ordinary_text_is_left_alone(redactor):
    text = "Cnry is not the secret, nor is Vz91 on its own; secret & co."
    assert redactor.scrub(text) == text
    assert redactor.found_in(text) == []


def test_short_values_are_not_secrets():
    redactor = Redactor()
    redactor.add("pin", "12")
    assert redactor.scrub("a 12 b") == "a 12 b"


def test_where_secrets_were_typed():
    redactor = Redactor()
    redactor.add("pin", "Cnry-7Qx2")
    redactor.note_typed("pin", "bank.example")
    redactor.note_typed("pin", None)
    assert redactor.typed_hosts("pin") == {"bank.example"}
    assert redactor.typed_hosts("other") == set()


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
               min_size=6, max_size=24).filter(lambda v: len(set(v)) > 3 and v.strip() == v))
def test_any_value_is_found_spelled_out_and_encoded(value):
    redactor = Redactor()
    redactor.add("s", value)
    for echo in (value, quote(value, safe=""), " ".join(value), html.escape(value)):
        assert value not in redactor.scrub(f"<{echo}>"), echo
        assert redactor.found_in(f"<{echo}>") == ["s"]


def test_what_ocr_reads_on_the_screen_passes_the_redactor(redactor):
    from PIL import Image

    from venusctl.drivers.base import ScreenContext
    from venusctl.safety.redact import ScrubbedReader

    class Echo:
        """A page that echoes the secret, read back by OCR with a 1 taken for an l."""

        def read(self, image, box, context, centre=None) -> str:
            return "Thank you, Cnry-7Qx2 secret&Vz9l"

        def read_window(self, image, box, context) -> str:
            return "Order placed | Cnry-7Qx2 secret&Vz91"

    reader = ScrubbedReader(Echo(), redactor)
    image, context = Image.new("RGB", (10, 10)), ScreenContext()
    assert reader.read(image, (0, 0, 10, 10), context) == "Thank you, [secret:canary]"
    assert reader.read_window(image, (0, 0, 10, 10), context) == \
        "Order placed | [secret:canary]"


def test_every_field_of_a_step_record_is_scrubbed(redactor):
    from venusctl.records.store import StepRecord
    from venusctl.safety.redact import scrub_step

    record = StepRecord(step=1, started_at=0.0, targets=[
        {"where": [48, 88], "element": {"text": "Thank you", "extra": {"ocr": SECRET}}}],
        model={"note": SECRET}, thought=f"typed {SECRET}")
    scrub_step(redactor, record)
    assert SECRET not in repr(record)
    assert record.targets[0]["element"]["extra"]["ocr"] == "[secret:canary]"
