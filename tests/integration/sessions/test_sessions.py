"""`venusctl session` and `--session`: a browser kept between separate commands."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests.support.cli import venusctl, write_answers
from venusctl import Agent, DriverOptions, ModelOptions

TYPE_DOG = "Type(content='Walk the dog')"


def our_processes(sessions: Path) -> list[str]:
    """Command lines that still mention this test's sessions folder (daemons, Chromium)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            args = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().split(") ")[-1][:1]
        except OSError:
            continue
        if state != "Z" and (str(sessions) in args or ("venusctl.drivers.sessions.daemon" in args
                             and _env_has(entry, str(sessions)))):
            found.append(args[:200])
    return found


def _env_has(entry: Path, text: str) -> bool:
    try:
        return text.encode() in (entry / "environ").read_bytes()
    except OSError:
        return False


def wait_until(check, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return check()


@pytest.fixture
def sessions(tmp_path) -> Path:
    return Path(os.environ["VENUSCTL_SESSIONS_DIR"])


@pytest.fixture
def stop_all():
    yield
    venusctl("session", "stop", "--all")


def todos(sessions: Path, name: str) -> list[str]:
    """The todo list as the kept page shows it (read over the session's own endpoint)."""
    record = json.loads((sessions / f"{name}.json").read_text())
    with sync_playwright() as pw:
        browser = pw.chromium.connect_over_cdp(record["endpoint"])
        page = browser.contexts[0].pages[0]
        items = page.eval_on_selector_all("#todo-list li", "els => els.map(e => e.innerText)")
    return [i.strip() for i in items]


def test_typing_then_a_separate_enter_adds_the_todo(todomvc, browser_path, sessions,
                                                    stop_all, tmp_path):
    started = venusctl("session", "start", "--driver", "web", "--url", todomvc,
                       "--browser-path", browser_path, "--name", "todo")
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "todo"
    listed = venusctl("session", "list")
    assert "todo  web  running  " + todomvc in listed.stdout
    typed = venusctl("act", TYPE_DOG, "--session", "todo")
    assert typed.returncode == 0, typed.stderr
    assert "no session" not in typed.stderr
    assert "textbox[text] 'What needs to be done?'" in typed.stdout
    entered = venusctl("act", "PressEnter()", "--session", "todo",
                       "--screenshot", str(tmp_path / "after.png"))
    assert entered.returncode == 0, entered.stderr
    assert todos(sessions, "todo") == ["Walk the dog"]
    shot = venusctl("screenshot", str(tmp_path / "page.png"), "--session", "todo")
    assert shot.returncode == 0 and "1280x800 screen" in shot.stdout, shot.stderr
    stopped = venusctl("session", "stop", "todo")
    assert stopped.returncode == 0 and stopped.stdout.strip() == "stopped todo"
    assert wait_until(lambda: not our_processes(sessions)), our_processes(sessions)
    assert not any(sessions.iterdir()), list(sessions.iterdir())


def test_without_a_session_act_says_the_browser_is_new_and_nothing_is_kept(todomvc,
                                                                           browser_path):
    args = ["--driver", "web", "--url", todomvc, "--browser-path", browser_path]
    typed = venusctl("act", TYPE_DOG, *args)
    assert typed.returncode == 0, typed.stderr
    assert ("venusctl: no session: a new browser was started and will close"
            in typed.stderr)


def test_do_and_ground_work_in_the_kept_page(shop, browser_path, sessions, stop_all, tmp_path):
    assert venusctl("session", "start", "--driver", "web", "--url", shop.url + "/",
                    "--browser-path", browser_path, "--name", "shop").returncode == 0
    answers = write_answers(tmp_path / "a.jsonl", [
        "<action>Click(point=(234, 150))</action>",
        "<action>Type(content='Ada Lovelace')</action>",
        "<action>Finished(content='typed')</action>"])
    done = venusctl("do", "type the name", "--session", "shop", "--model-file", str(answers),
                    "-q")
    assert done.returncode == 0 and done.stdout.strip() == "typed", done.stderr
    point = write_answers(tmp_path / "p.jsonl", ["[234,150]"])
    with Agent(DriverOptions(session="shop"), ModelOptions(answers=point)) as agent:
        found = agent.ground("the name field", annotate_to=tmp_path / "found.png")
        typed_so_far = agent.driver.page.eval_on_selector("input", "e => e.value")
    assert found.pixels == (300, 120) and found.size.width == 1280
    assert typed_so_far == "Ada Lovelace"  # the page `do` left, not a fresh one
    value = venusctl("act", "Click(point=(161, 414))", "--session", "shop")
    assert value.returncode == 3, value.stderr  # submitting the order needs a person
    assert "needs confirmation" in value.stderr
    assert shop.state.orders == []


@pytest.mark.parametrize("case", ["unknown", "died", "same name"])
def test_bad_sessions_are_one_line_and_leave_nothing_running(case, todomvc, browser_path,
                                                             sessions, stop_all):
    if case != "unknown":
        assert venusctl("session", "start", "--driver", "web", "--url", todomvc,
                        "--browser-path", browser_path, "--name", "s1").returncode == 0
    if case == "died":
        record = json.loads((sessions / "s1.json").read_text())
        os.killpg(record["browser_pid"], signal.SIGKILL)
        assert wait_until(lambda: json.loads((sessions / "s1.json").read_text())["state"]
                          == "dead")
        result = venusctl("act", "PressEnter()", "--session", "s1")
        expected = (5, "session 's1' has ended: the browser exited")
    elif case == "same name":
        result = venusctl("session", "start", "--driver", "web", "--url", todomvc,
                          "--browser-path", browser_path, "--name", "s1")
        expected = (2, "a session named 's1' already exists")
        venusctl("session", "stop", "s1")
    else:
        result = venusctl("act", "PressEnter()", "--session", "nope")
        expected = (2, "no session named 'nope'")
    lines = result.stderr.strip().splitlines()
    assert result.returncode == expected[0], result.stderr
    assert len(lines) == 1 and expected[1] in lines[0], result.stderr
    assert wait_until(lambda: not our_processes(sessions)), our_processes(sessions)
    assert not list(sessions.glob("*.json"))


def test_an_idle_session_stops_itself(todomvc, browser_path, sessions):
    assert venusctl("session", "start", "--driver", "web", "--url", todomvc, "--browser-path",
                    browser_path, "--name", "idle", "--idle-timeout", "3").returncode == 0
    assert our_processes(sessions)
    assert wait_until(lambda: not (sessions / "idle.json").exists(), 60)
    assert wait_until(lambda: not our_processes(sessions)), our_processes(sessions)
    gone = venusctl("act", "PressEnter()", "--session", "idle")
    assert gone.returncode == 2 and "no session named 'idle'" in gone.stderr


def test_settings_sessions_for_the_desktop_expire_when_idle(sessions):
    started = venusctl("session", "start", "--driver", "desktop", "--monitor", "1",
                       "--name", "desk", "--idle-timeout", "4")
    assert started.returncode == 0, started.stderr
    listed = json.loads(venusctl("session", "list", "--json").stdout)
    assert listed[0]["name"] == "desk" and listed[0]["state"] == "settings"
    assert "endpoint" not in listed[0]
    time.sleep(4.5)
    gone = venusctl("screenshot", "x.png", "--session", "desk")
    assert gone.returncode == 2 and "stopped itself after 4 s" in gone.stderr, gone.stderr
