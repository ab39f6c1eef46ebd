"""One sanitizer for untrusted text on every terminal output: nothing it prints can
move the cursor, set a title, write the clipboard or reorder what a person reads."""

from __future__ import annotations

import io
import json
import logging
import sys

import pyte
import pytest

from venusctl.records.store import StepRecord
from venusctl.safety.confirm import ConfirmRequest, TerminalConfirmer, confirm_lines
from venusctl.safety.sanitize import SanitizingFormatter, json_text, shown, shown_line
from venusctl.tui.modals import confirm_text

pytestmark = pytest.mark.unit

ERASE_AND_LIE = "\x1b[2A\x1b[2K  policy : OK safe\r"
OSC_52 = "\x1b]52;c;cm0gLXJmIH4=\x07"   # writes `rm -rf ~` to the clipboard
TITLE = "\x1b]0;pwned\x1b\\"
C1_CSI = "\x9b2J"                       # CSI in its 8-bit form
RTL = "\u202e"                          # right-to-left override
ATTACKS = (ERASE_AND_LIE, OSC_52, TITLE, C1_CSI, RTL, "\u2066", "\u200b", "\U000e0041",
           "\x00", "\x7f", "\x85", "\u2028", "\ud800")
RAW = ("\x1b", "\x9b", "\x07", "\x00", "\x7f", "\x85", "\u202e", "\u2066", "\u200b",
       "\U000e0041", "\u2028", "\ud800", "\r")


@pytest.mark.parametrize("attack", ATTACKS)
def test_every_control_is_shown_escaped_never_emitted(attack: str):
    for out in (shown(f"a{attack}b"), shown(f"a{attack}b", newlines=True),
                shown_line(f"a{attack}b")):
        assert not any(c in out for c in RAW), repr(out)
        assert out.startswith("a") and out.endswith("b")


def test_printable_text_in_every_script_and_emoji_stay_as_they_are():
    text = "Pay 49 € · 支付 · 결제하기 · Оплатить · ادفع · xóa · 👨‍👩‍👧 · ✔️"
    assert shown(text) == text and shown_line(text) == text


def test_the_escapes_are_readable_and_lines_are_kept_only_when_asked():
    assert shown("\x1b[31mred") == "\\x1b[31mred"
    assert shown("x\u202ey") == "x\\u202ey"
    assert shown("one\ntwo", newlines=True) == "one\ntwo"
    assert shown("one\r\ntwo", newlines=True) == "one\ntwo"
    assert shown("one\ntwo") == "one\\x0atwo"
    assert shown_line("one\n two  three") == "one two three"
    assert shown_line("a\x1b[2Kbcdefghij", 8) == "a…"  # a cut never splits an escape


def test_json_keeps_the_text_and_escapes_what_a_terminal_would_obey():
    value = {"thought": f"pay {OSC_52}{C1_CSI}{RTL} ok", "n": 1, "emoji": "✔️ 支付"}
    text = json_text(value)
    assert not any(c in text for c in RAW)
    assert json.loads(text) == value


def test_the_prompt_puts_the_decisive_lines_last_and_sanitized():
    request = ConfirmRequest(
        step=4, action=f"type content 'x{ERASE_AND_LIE}'", target=f"button 'Pay{RTL}'",
        where=f"https://shop.example/{TITLE}", reason="a payment or purchase (target 'pay')",
        thought=f"fine {ERASE_AND_LIE}{OSC_52}", category="payment", crop_path="/tmp/c.png")
    lines = confirm_lines(request)
    assert [line.split(":")[0].strip() for line in lines[2:]] == [
        "model", "where", "picture", "action", "target", "policy"]
    assert all(not any(c in line for c in RAW) for line in lines)
    assert lines[-1] == "  policy : a payment or purchase (target 'pay') [payment]"
    assert confirm_text(request).splitlines()[-1].startswith("policy : a payment")


def rendered(text: str, columns: int = 120, lines: int = 40) -> list[str]:
    """What a VT100-compatible terminal shows after receiving `text`."""
    screen = pyte.Screen(columns, lines)
    pyte.Stream(screen).feed(text.replace("\n", "\r\n"))
    return [row.rstrip() for row in screen.display]


def test_on_a_terminal_the_prompt_cannot_be_overwritten():
    out = io.StringIO()
    confirmer = TerminalConfirmer(read_line=lambda: "n\n", out=out)
    request = ConfirmRequest(4, "click point (5, 5)", "button 'Pay now'", None,
                             "a payment or purchase", f"ok {ERASE_AND_LIE}", "payment")
    confirmer.confirm(request)
    screen = rendered(out.getvalue())
    assert "  policy : a payment or purchase [payment]" in screen
    assert not any("OK safe" in row and row.lstrip().startswith("policy") for row in screen)


def test_a_question_keeps_its_lines_but_none_of_its_controls():
    out = io.StringIO()
    confirmer = TerminalConfirmer(read_line=lambda: "blue\n", out=out)
    assert confirmer.ask_user(f"Which colour?\nred or blue {OSC_52}{TITLE}") == "blue"
    written = out.getvalue()
    assert not any(c in written for c in RAW)
    assert "  red or blue \\x1b]52;c;" in written


def test_the_progress_line_escapes_the_action_the_target_and_the_error():
    from rich.console import Console

    from venusctl.run.observers import ConsoleProgress

    record = StepRecord(step=1, started_at=0.0, action=f"Type(content='{ERASE_AND_LIE}')",
                        element={"name": f"Pay{RTL} [bold]now"}, error=f"boom {OSC_52}",
                        verdict={"decision": "confirm"}, reply="no")
    out = io.StringIO()
    progress = ConsoleProgress(Console(file=out, force_terminal=False, width=300))
    progress.step_finished(record)
    line = out.getvalue()
    assert not any(c in line for c in RAW)
    assert "[bold]now" in line and "\\u202e" in line and "\\x1b]52" in line


def _logged_error(formatter: logging.Formatter) -> str:
    """What the terminal shows for an error a library logs with its traceback (as
    Playwright logs a reply to a call a Ctrl-C abandoned)."""
    record = None
    try:
        raise RuntimeError("Cannot find command to respond: ab@1\nsecond line")
    except RuntimeError:
        record = logging.LogRecord("playwright", logging.ERROR, __file__, 1,
                                   "Error occurred in %s", ("event listener",),
                                   sys.exc_info())
    return formatter.format(record)


def test_a_logged_exception_is_one_line_without_verbose():
    line = _logged_error(SanitizingFormatter("%(name)s: %(message)s"))
    assert line == ("playwright: Error occurred in event listener "
                    "(RuntimeError: Cannot find command to respond: ab@1)")


def test_verbose_shows_the_whole_traceback():
    text = _logged_error(SanitizingFormatter("%(name)s: %(message)s", tracebacks=True))
    assert text.startswith("playwright: Error occurred in event listener\n")
    assert "Traceback (most recent call last)" in text and "second line" in text
