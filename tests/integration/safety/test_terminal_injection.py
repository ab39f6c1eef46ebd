"""Escape sequences from a model or a page never reach the terminal (issue 12).

`venusctl do` on a real page in Chromium, with a scripted model whose thought,
question, typed text and final answer carry terminal control sequences: cursor
moves that would erase the confirmation's "policy:" line and write "OK safe" in
its place, OSC 52 (writes `rm -rf ~` to the clipboard), a window title, C1 CSI,
and a right-to-left override. Through a real pseudo-terminal, the prompt and the
question are rendered by a terminal emulator (pyte) to check what a person sees;
without a terminal, the progress line, the answer, `runs show`, `policy check`,
their JSON and the HTML report are checked byte by byte.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import termios
import time
from pathlib import Path

import pyte

from tests.support.cli import VENUSCTL, only_run, write_answers
from venusctl.drivers.web.driver import WebDriver, WebOptions

ERASE = "\x1b[2A\x1b[2K  policy : OK safe, nothing to confirm\r"
OSC_52 = "\x1b]52;c;cm0gLXJmIH4=\x07"
TITLE = "\x1b]0;pwned\x07"
C1 = "\x9b2J"
RTL = "\u202e"
ATTACK = ERASE + OSC_52 + TITLE + C1 + RTL
RAW = ("\x1b]52", "\x1b]0;", "\x9b", RTL, "\x07")
COLUMNS, ROWS = 160, 60


def grid_of(page: str, browser_path: str, selector: str) -> tuple[int, int]:
    driver = WebDriver(WebOptions(url=page, browser_path=browser_path))
    try:
        box = driver.page.locator(selector).bounding_box()
        size = driver.page.viewport_size
    finally:
        driver.close()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    return (round(x * 1000 / size["width"]), round(y * 1000 / size["height"]))


class Terminal:
    """`venusctl` on a pseudo-terminal, its output fed to a VT100 emulator."""

    def __init__(self, args: list[str]) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        env = {**os.environ, "TERM": "xterm", "COLUMNS": str(COLUMNS), "LINES": str(ROWS)}
        self.process = subprocess.Popen([VENUSCTL, *args], stdin=slave, stdout=slave,
                                        stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.master = master
        self.raw = b""
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.stream = pyte.ByteStream(self.screen)

    def read_until(self, marker: str, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.raw.decode("utf-8", "replace")
            if marker in text:
                return text
            ready, _, _ = select.select([self.master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    break
                self.raw += chunk
                self.stream.feed(chunk)
        raise AssertionError(f"no {marker!r} in: {self.raw.decode('utf-8', 'replace')[-3000:]}")

    def type(self, line: str) -> None:
        os.write(self.master, (line + "\r").encode())

    def rows(self) -> list[str]:
        return [row.rstrip() for row in self.screen.display]

    def close(self) -> int:
        try:
            code = self.process.wait(timeout=120)
        finally:
            os.close(self.master)
        return code


def test_prompt_and_question_on_a_real_terminal(site, browser_path, tmp_path: Path):
    page = site.url + "/checkout.html"
    pay = grid_of(page, browser_path, "#pay")
    script = write_answers(tmp_path / "answers.jsonl", [
        f"<think>The total is right.{ATTACK}</think><action>Click(point={pay})</action>",
        f"<think>Ask.</think><action>CallUser(content='Which card?{ATTACK} the blue one')"
        "</action>",
        f"<think>ok</think><action>Finished(content='done{TITLE}{RTL}')</action>"])
    term = Terminal(["do", "pay", "--driver", "web", "--url", page, "--browser-path",
                     browser_path, "--model-file", str(script), "--runs-dir",
                     str(tmp_path / "runs")])
    try:
        term.read_until("[q] abort:")
        rows = term.rows()
        assert any(r.startswith("  policy : a payment or purchase") and "[payment]" in r
                   for r in rows), rows
        assert any(r.startswith("  action : click") for r in rows)
        assert any(r.startswith("  target : ") and "Pay now" in r for r in rows)
        assert not any("OK safe" in r and not r.lstrip().startswith("model") for r in rows)
        term.type("n")
        term.read_until("your reply:")
        rows = term.rows()
        assert any("Which card?" in r for r in rows)
        term.type("the blue one")
        term.read_until("done")
    finally:
        code = term.close()
    assert code == 0
    assert site.posts == []  # declined: nothing paid
    shown = term.raw.decode("utf-8", "replace")
    for raw in RAW:
        assert raw not in shown, raw
    assert "\\x1b]52;c;" in shown and "\\u202e" in shown  # shown escaped, readable


def test_progress_answer_records_and_reports_without_a_terminal(site, browser_path,
                                                                  tmp_path: Path):
    page = site.url + "/checkout.html"
    coupon = grid_of(page, browser_path, "#coupon")
    script = write_answers(tmp_path / "answers.jsonl", [
        f"<think>Coupon.{ATTACK}</think><action>Click(point={coupon})</action>",
        f"<think>Type it.{ATTACK}</think><action>Type(content='SAVE10{OSC_52}')</action>",
        f"<think>Done.{ATTACK}</think><action>Finished(content='saved{ATTACK} ok')</action>"])
    runs = tmp_path / "runs"
    env = {**os.environ, "VENUSCTL_RUNS_DIR": str(runs)}

    def run(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([VENUSCTL, *args], capture_output=True, timeout=180, env=env,
                              stdin=subprocess.DEVNULL)

    done = run("do", "use the coupon", "--driver", "web", "--url", page, "--browser-path",
               browser_path, "--model-file", str(script))
    assert done.returncode == 0, done.stderr
    outputs = {"answer": done.stdout, "progress": done.stderr}
    assert b"saved\\x1b[2A" in done.stdout
    for name, args in (("runs show", ["runs", "show", "last"]),
                       ("runs show --json", ["runs", "show", "last", "--json"]),
                       ("runs list", ["runs", "list"]),
                       ("policy check", ["policy", "check", "last"]),
                       ("policy check --json", ["policy", "check", "last", "--json"]),
                       ("report", ["report", "last"])):
        result = run(*args)
        assert result.returncode == 0, (name, result.stderr)
        outputs[name] = result.stdout + result.stderr
    outputs["report.html"] = (only_run(runs) / "report.html").read_bytes()
    json.loads(outputs["runs show --json"])  # still JSON, with the text intact
    for name, data in outputs.items():
        text = data.decode("utf-8")
        assert "\x1b" not in text and "\x9b" not in text and RTL not in text, name
        assert "\x07" not in text, name
