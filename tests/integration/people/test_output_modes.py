"""What `venusctl do` prints in each mode, on a real browser run: the contract for scripts."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.tools import chromium
from venusctl.cli import run_cli


def do(shop, answers_file: Path, *extra: str) -> int:
    return run_cli(["do", "order a red one for Ada", "--driver", "web", "--url", shop.url + "/",
                    "--browser-path", chromium(), "--model-file", str(answers_file),
                    "--confirm", "never", "--yes", *extra])


def test_quiet_prints_only_the_answer(shop, answers_file, capsys):
    assert do(shop, answers_file, "-q") == 0
    out, err = capsys.readouterr()
    assert out == "ordered for Ada\n" and err == ""


def test_json_prints_only_json_lines(shop, answers_file, capsys):
    assert do(shop, answers_file, "--json") == 0
    out, err = capsys.readouterr()
    events = [json.loads(line) for line in out.splitlines()]
    assert [e["event"] for e in events] == ["start", *["step"] * 5, "end"]
    assert events[-1]["message"] == "ordered for Ada" and err == ""


def test_normal_prints_one_line_per_step_and_the_answer(shop, answers_file, capsys):
    assert do(shop, answers_file) == 0
    out, err = capsys.readouterr()
    assert out == "ordered for Ada\n"
    lines = err.splitlines()
    steps = [line for line in lines if line.startswith("step ")]
    assert [s.split()[1] for s in steps] == ["1/30", "2/30", "3/30", "4/30", "5/30"]
    assert steps[0].startswith("step 1/30  Click(point=(234, 150))  Your name")
    assert lines[-1] == "finished after 5 step(s): ordered for Ada"
    assert "thinking" not in err  # no spinner when stderr is not a terminal


def test_tui_needs_a_terminal(shop, answers_file, capsys):
    assert do(shop, answers_file, "--tui") == 2
    err = capsys.readouterr().err
    assert err == "venusctl: --tui needs an interactive terminal; drop --tui in scripts and pipes\n"
