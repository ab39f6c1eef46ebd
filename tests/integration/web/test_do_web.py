"""`venusctl do --driver web` end to end: the console script, real Chromium, the shop app."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.cli import only_run, start, venusctl, write_answers

ORDER = [
    "<think>The name field is first.</think><action>Click(point=(234, 150))</action>",
    "<think>Type the name.</think><action>Type(content='Ada Lovelace')</action>",
    "<think>Open the colour list.</think><action>Click(point=(156, 275))</action>",
    "<think>Green is option 1.</think><action>SelectOption(index=1)</action>",
    "<think>Submit.</think><action>Click(point=(161, 414))</action>",
    "<think>Check where we are.</think><action>GetUrl()</action>",
    "<think>Done.</think><action>Finished(content='Ordered a green one for Ada')</action>",
]


def web_args(shop, browser_path, tmp_path: Path, answers: list[str], *extra: str) -> list[str]:
    answers_file = write_answers(tmp_path / "answers.jsonl", answers)
    # the scripted answers point at the shop as laid out in a 1280x800 viewport
    return ["do", "order a green one for Ada Lovelace", "--driver", "web", "--viewport",
            "1280x800", "--url", shop.url + "/", "--browser-path", browser_path,
            "--model-file", str(answers_file), "--runs-dir", str(tmp_path / "runs"), *extra]


def steps_of(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "steps.jsonl").read_text().splitlines()]


def test_a_multi_step_task_changes_the_server_state(shop, browser_path, tmp_path):
    result = venusctl(*web_args(shop, browser_path, tmp_path, ORDER, "--confirm", "never",
                                "--yes"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Ordered a green one for Ada"
    assert shop.state.orders == [{"name": "Ada Lovelace", "colour": "Green"}]
    run = only_run(tmp_path / "runs")
    info = json.loads((run / "run.json").read_text())
    assert info["outcome"]["status"] == "finished" and info["outcome"]["steps"] == 7
    assert info["driver"] == "web" and info["surface"] == "browser"
    steps = steps_of(run)
    assert [s["action_kind"] for s in steps] == [
        "Click", "Type", "Click", "SelectOption", "Click", "GetUrl", "Finished"]
    assert "1: Green" in steps[3]["feedback"]
    assert steps[6]["feedback"] == f"The current URL is {shop.url}/order"
    assert steps[4]["element"]["name"] == "Submit order"
    assert steps[0]["pixels"] == [[300, 120]] and steps[0]["grid"] == [[234, 150]]
    assert all((run / s["image"]).exists() for s in steps)


def test_new_tab_links_are_followed_in_a_run(shop, browser_path, tmp_path):
    answers = ["<action>Click(point=(125, 588))</action>",
               "<action>Click(point=(273, 300))</action>",
               "<action>Finished(content='claimed')</action>"]
    result = venusctl(*web_args(shop, browser_path, tmp_path, answers, "--confirm", "never",
                                "--yes", "--json"))
    assert result.returncode == 0, result.stderr
    assert shop.state.claims == 1
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["event"] for e in events] == ["start", "step", "step", "step", "end"]
    assert "A new tab opened" in events[2]["feedback"]
    assert events[2]["context"]["url"] == shop.url + "/offers"


def test_without_a_terminal_a_gated_action_fails_closed(shop, browser_path, tmp_path):
    """The default policy lets the form be filled but gates submitting the order."""
    result = venusctl(*web_args(shop, browser_path, tmp_path, ORDER))
    assert result.returncode == 3, result.stderr
    assert "needs confirmation" in result.stderr and "Traceback" not in result.stderr
    assert shop.state.orders == []
    run = only_run(tmp_path / "runs")
    steps = steps_of(run)
    assert [s["verdict"]["decision"] for s in steps] == ["allow"] * 4 + ["confirm"]
    assert steps[-1]["action"] == "Click(point=(161, 414))"
    assert json.loads((run / "run.json").read_text())["outcome"]["status"] == "needs_user"


def test_confirm_all_gates_the_first_state_change(shop, browser_path, tmp_path):
    result = venusctl(*web_args(shop, browser_path, tmp_path, ORDER, "--confirm", "all"))
    assert result.returncode == 3, result.stderr
    pending = steps_of(only_run(tmp_path / "runs"))[-1]
    assert pending["action"] == "Click(point=(234, 150))"
    assert pending["verdict"]["decision"] == "confirm"


def test_replay_dry_run_performs_nothing(shop, browser_path, tmp_path):
    assert venusctl(*web_args(shop, browser_path, tmp_path, ORDER, "--confirm", "never",
                              "--yes")).returncode == 0
    shop.state.orders.clear()
    result = venusctl("replay", "last", "--dry-run", "--browser-path", browser_path,
                      "--runs-dir", str(tmp_path / "runs"))
    assert result.returncode == 0, result.stderr
    assert "(dry run) would" not in result.stdout
    assert shop.state.orders == []
    assert result.stdout.strip().endswith("Ordered a green one for Ada")


@pytest.mark.parametrize(("case", "code", "message"), [
    ("missing answers", 2, "answers file not found"),
    ("malformed answers", 2, "not valid JSON"),
    ("unreachable url", 5, "could not open http://127.0.0.1:9/"),
    ("confirm never without yes", 2, "add --yes"),
    ("unknown driver", 2, "unknown driver 'tablet'"),
    ("bad viewport", 2, "--viewport must look like"),
])
def test_bad_input_is_one_clear_line(shop, browser_path, tmp_path, case, code, message):
    args = web_args(shop, browser_path, tmp_path, ORDER)
    if case == "missing answers":
        args[args.index("--model-file") + 1] = str(tmp_path / "nope.jsonl")
    elif case == "malformed answers":
        (tmp_path / "answers.jsonl").write_text('"ok"\n{not json\n')
    elif case == "unreachable url":
        args[args.index("--url") + 1] = "http://127.0.0.1:9/"
    elif case == "confirm never without yes":
        args += ["--confirm", "never"]
    elif case == "unknown driver":
        args[args.index("--driver") + 1] = "tablet"
    elif case == "bad viewport":
        args += ["--viewport", "big"]
    result = venusctl(*args)
    assert result.returncode == code, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr


LONG_RUN = ["<action>Wait()</action>", "<action>GetUrl()</action>"] * 15


def _start_long_run(shop, browser_path, tmp_path) -> tuple[subprocess.Popen, Path]:
    args = web_args(shop, browser_path, tmp_path, LONG_RUN, "--confirm", "never", "--yes",
                    "--profile", str(tmp_path / "profile"), "--max-steps", "30")
    process = start(*args)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        runs = list((tmp_path / "runs").glob("*/steps.jsonl"))
        if runs and runs[0].read_text().count("\n") >= 1:
            return process, runs[0].parent
        assert process.poll() is None, process.communicate()
        time.sleep(0.1)
    process.kill()
    raise AssertionError("the run never recorded a step")


def test_a_browser_that_dies_mid_run_closes_the_record_with_code_5(shop, browser_path,
                                                                    tmp_path):
    process, run = _start_long_run(shop, browser_path, tmp_path)
    pattern = f"--user-data-dir={tmp_path / 'profile'}"
    killed = subprocess.run(["pkill", "-9", "-f", "--", pattern], check=False)
    assert killed.returncode == 0, "no chromium process was found to kill"
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 5, stderr
    assert "browser" in stderr and "Traceback" not in stderr
    outcome = json.loads((run / "run.json").read_text())["outcome"]
    assert outcome["status"] == "device_error"


def test_ctrl_c_closes_the_record_with_code_130(shop, browser_path, tmp_path):
    process, run = _start_long_run(shop, browser_path, tmp_path)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    outcome = json.loads((run / "run.json").read_text())["outcome"]
    assert outcome["status"] == "interrupted"
    assert steps_of(run)


def test_act_and_screenshot_commands(shop, browser_path, tmp_path):
    shot = tmp_path / "page.png"
    result = venusctl("screenshot", str(shot), "--driver", "web", "--url", shop.url + "/",
                      "--browser-path", browser_path)
    assert result.returncode == 0, result.stderr
    assert shot.read_bytes().startswith(b"\x89PNG") and "1024x768" in result.stdout
    result = venusctl("act", "Click(point=(125, 588))", "--driver", "web", "--url",
                      shop.url + "/", "--browser-path", browser_path, "--confirm", "never",
                      "--yes", "--viewport", "1280x800")
    assert result.returncode == 0, result.stderr
    assert "Click(point=(160, 470))" in result.stdout
    assert "link 'Offers (new tab)'" in result.stdout
    assert "/offers" in shop.state.visits
    blank = ("act", "Click(point=(5, 5))", "--driver", "web", "--url", shop.url + "/",
             "--browser-path", browser_path)
    result = venusctl(*blank)  # the default policy: a click on empty space is harmless
    assert result.returncode == 0 and "target: html" in result.stdout, result.stderr
    result = venusctl(*blank, "--confirm", "all")
    assert result.returncode == 3 and "needs confirmation" in result.stderr
    result = venusctl("act", "Tap(point=(5, 5))", "--driver", "web", "--url", shop.url + "/",
                      "--browser-path", browser_path)
    assert result.returncode == 2 and "Unknown action 'Tap'" in result.stderr
