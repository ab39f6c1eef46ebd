"""`venusctl do --driver desktop` end to end on Xvfb, and held input released however a
run ends: finished, Ctrl-C, a closed terminal (SIGHUP), a crash of the loop."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.support.cli import only_run, start, venusctl, write_answers
from tests.support.x11 import input_state
from venusctl.core.actions import Surface
from venusctl.core.grid import ScreenSize, to_grid
from venusctl.drivers.desktop.driver import DesktopDriver
from venusctl.drivers.factory import DriverOptions
from venusctl.loop.agent import AgentSettings
from venusctl.model.base import Completion
from venusctl.run.build import RunRequest, run_task
from venusctl.sim.tkapp import CLASS
from venusctl.sim.xserver import TkApp, XServer

SCREEN = ScreenSize(1920, 1080)


def box(app: TkApp, name: str) -> str:
    x, y = to_grid(app.centre(name), SCREEN, Surface.DESKTOP)
    return f"box=({x}, {y})"


def do_args(tmp_path: Path, answers: list[str], *extra: str) -> list[str]:
    answers_file = write_answers(tmp_path / "answers.jsonl", answers)
    return ["do", "save the name Ada Lovelace in the test app", "--driver", "desktop",
            "--model-file", str(answers_file), "--runs-dir", str(tmp_path / "runs"),
            "--confirm", "never", "--yes", *extra]


def steps_of(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "steps.jsonl").read_text().splitlines()]


def test_do_completes_a_multi_step_task_in_the_test_app(tkapp, tmp_path):
    answers = [
        f"<think>The name field.</think><action>Click({box(tkapp, 'name')})</action>",
        "<think>Type it.</think><action>Type(content='Ada Lovelace')</action>",
        f"<think>Notes, then save.</think><action>Sequence(actions=[Click({box(tkapp, 'notes')}),"
        f" Type(content='née Byron\\nfirst programmer'), Click({box(tkapp, 'save')})])</action>",
        "<think>Saved.</think><action>Finished(content='Saved Ada Lovelace')</action>",
    ]
    result = venusctl(*do_args(tmp_path, answers))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Saved Ada Lovelace"
    saved = tkapp.wait_for(lambda e: e["event"] == "saved")
    assert (saved["name"], saved["notes"]) == ("Ada Lovelace", "née Byron\nfirst programmer")
    run = only_run(tmp_path / "runs")
    info = json.loads((run / "run.json").read_text())
    assert info["outcome"]["status"] == "finished" and info["driver"] == "desktop"
    steps = steps_of(run)
    assert [s["action_kind"] for s in steps] == ["Click", "Type", "Sequence", "Finished"]
    (px, py), (x, y) = steps[0]["pixels"][0], tkapp.centre("name")
    assert abs(px - x) <= 1 and abs(py - y) <= 1  # one grid step is 1.92 px wide
    assert steps[0]["element"]["app"] == CLASS
    assert steps[3]["context"]["app"] == CLASS  # after the clicks the app has the focus


HOLD = ["<action>KeyDown(keys=['shift'])</action>"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=["ctrl-c", "term", "hangup"])
def test_held_keys_and_buttons_are_released_when_the_run_is_interrupted(
        xserver: XServer, tkapp, tmp_path, sig):
    answers = [*HOLD, f"<action>MouseDown({box(tkapp, 'pad')})</action>",
               *["<action>Wait()</action>"] * 5]
    process = start(*do_args(tmp_path, answers, "--max-steps", "10"))
    tkapp.wait_for(lambda e: e["event"] == "ButtonPress" and e["widget"] == "pad", timeout=60)
    assert input_state(xserver) == ({"Shift_L"}, 0x100)  # Shift and button 1 held
    process.send_signal(sig)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert input_state(xserver) == (set(), 0)
    tkapp.wait_for(lambda e: e["event"] == "ButtonRelease" and e["widget"] == "pad")
    tkapp.wait_for(lambda e: e["event"] == "KeyRelease" and e["keysym"] == "Shift_L")
    outcome = json.loads((only_run(tmp_path / "runs") / "run.json").read_text())["outcome"]
    assert outcome["status"] == "interrupted"


def test_held_keys_are_released_when_the_run_finishes(xserver, tkapp, tmp_path):
    answers = [*HOLD, f"<action>Click({box(tkapp, 'name')})</action>",
               "<action>Type(content='loud')</action>", "<action>Finished()</action>"]
    result = venusctl(*do_args(tmp_path, answers))
    assert result.returncode == 0, result.stderr
    assert input_state(xserver) == (set(), 0)
    typed = [e["char"] for e in tkapp.events() if e["event"] == "KeyPress" and e["char"]]
    assert "".join(typed) == "LOUD"  # Shift was held through the steps, as asked


class CrashingModel:
    """Holds Shift through the first answer, then fails the way a bug would."""

    name = "crashing"
    supports_grammar = False

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, messages, options, on_text=None) -> Completion:
        self.calls += 1
        if self.calls == 1:
            return Completion(text="<action>KeyDown(keys=['shift', 'ctrl'])</action>")
        raise RuntimeError("the model backend fell over")

    def close(self) -> None:
        return None


def test_held_keys_are_released_when_the_loop_crashes(xserver, tkapp, tmp_path):
    request = RunRequest(task="hold and crash", driver=DriverOptions(driver="desktop"),
                         settings=AgentSettings(max_steps=3, settle_cap_s=0.2),
                         confirm="never", assume_yes=True, runs_dir=tmp_path / "runs",
                         output="quiet")
    driver = DesktopDriver()
    outcome = run_task(request, model=CrashingModel(), driver=driver)
    assert outcome.status == "crashed"
    assert driver.input.held_keys == []
    assert input_state(xserver) == (set(), 0)


def test_devices_lists_the_monitors_and_screenshot_and_act_use_them(xserver, tkapp, tmp_path):
    listed = venusctl("devices", "--json")
    assert listed.returncode == 0, listed.stderr
    desktop = json.loads(listed.stdout)["desktop"]
    assert desktop["display"] == xserver.display
    assert desktop["monitors"] == [{"index": 1, "left": 0, "top": 0, "width": 1920,
                                    "height": 1080, "primary": False, "name": "screen"}]
    assert "--monitor 1: 1920x1080 at 0,0" in venusctl("devices").stdout

    shot = tmp_path / "desk.png"
    taken = venusctl("screenshot", str(shot), "--driver", "desktop", "--monitor", "1")
    assert taken.returncode == 0, taken.stderr
    assert shot.read_bytes().startswith(b"\x89PNG") and "1920x1080" in taken.stdout

    acted = venusctl("act", f"Click({box(tkapp, 'beta')})", "--driver", "desktop",
                     "--confirm", "never", "--yes")
    assert acted.returncode == 0, acted.stderr
    tkapp.wait_for(lambda e: e["event"] == "command" and e["widget"] == "beta")


def test_a_missing_monitor_or_display_is_one_line_with_its_exit_code(tmp_path):
    wrong = venusctl("screenshot", str(tmp_path / "x.png"), "--driver", "desktop",
                     "--monitor", "7")
    assert wrong.returncode == 2
    assert wrong.stderr.strip() == "venusctl: --monitor: there is no monitor 7; monitors: 1"
    gone = venusctl("screenshot", str(tmp_path / "x.png"), "--driver", "desktop",
                    env={"DISPLAY": ""})
    assert gone.returncode == 5
    assert len(gone.stderr.strip().splitlines()) == 1 and "DISPLAY" in gone.stderr
