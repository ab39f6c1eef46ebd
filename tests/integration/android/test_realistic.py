"""The loop against a phone with a real one's timings (`PhoneConfig.realistic`).

`input` takes 0.3-1 s, `uiautomator dump` 1-3 s and fails while the screen
animates, and there is no ADB Keyboard. The driver dumps the screen in the
background from the moment it is observed, retries a failed dump once, and says
"unidentified" rather than guess when both fail. A few tests only: each step here
costs seconds.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.integration.android.conftest import centre
from tests.integration.android.test_cli import VENUSCTL, answers, steps_of
from venusctl.core.actions import Click, LaunchApp, Type
from venusctl.drivers.android.driver import AndroidDriver
from venusctl.sim.phone import PhoneConfig
from venusctl.sim.phone.env import PhoneEnv

REALISTIC = PhoneConfig.realistic(seed=7)
QUICK_DUMPS = PhoneConfig.realistic(seed=7, dump_s=(0.3, 0.5))
"""Real-phone behaviour with shorter dumps, where a test needs several of them."""


def dumps_in(phone_env: PhoneEnv) -> int:
    return sum(line.startswith("uiautomator dump") for line in phone_env.log)


def wait_for(condition, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


@pytest.mark.parametrize("phone_config", [REALISTIC], indirect=True)
def test_do_completes_a_task_on_a_realistic_phone(phone_env: PhoneEnv, tmp_path: Path):
    phone = phone_env.phone
    field = phone.grid_on("notes", rid="note_field")
    script = answers(tmp_path / "answers.jsonl", [
        "<think>Open the notes app.</think><action>LaunchApp(app='Notes')</action>",
        f"<action>Click(point={field})</action>",
        "<action>Type(content='milk and tea')</action>",
        "<action>PressEnter()</action>",
        "<action>Finished(content='Saved the note.')</action>",
    ])
    runs = tmp_path / "runs"
    done = subprocess.run(
        [VENUSCTL, "do", "write a note", "--driver", "android", "--model-file", str(script),
         "--runs-dir", str(runs), "--yes"],
        capture_output=True, text=True, timeout=240, env=dict(os.environ),
        stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert phone_env.state.notes == ["milk and tea"]
    _info, steps = steps_of(runs)
    assert [s["action_kind"] for s in steps] == [
        "LaunchApp", "Click", "Type", "PressEnter", "Finished"]
    assert steps[1]["element"]["resource_id"] == "com.example.notes:id/note_field"
    assert steps[2]["result"]["typed_with"] == "input"  # no ADB Keyboard here
    assert steps[2]["element"]["resource_id"] == "com.example.notes:id/note_field"
    for step in steps[1:4]:  # the simulator's contract, not a speed: `input` waits 0.3 s+
        assert step["timings"]["act"] >= 0.3


@pytest.mark.parametrize("phone_config", [REALISTIC], indirect=True)
def test_the_dump_starts_when_the_screen_is_observed(phone_env: PhoneEnv,
                                                    driver: AndroidDriver):
    driver.screenshot()
    assert wait_for(lambda: dumps_in(phone_env) == 1), "no dump after the observation"
    note = driver.describe(*centre(phone_env.phone.find(text="Notes")))
    assert note is not None and note.text == "Notes"
    assert dumps_in(phone_env) == 1 and driver.dumps.attempts == 1


@pytest.mark.parametrize("phone_config", [REALISTIC], indirect=True)
def test_an_action_makes_the_pending_dump_stale(phone_env: PhoneEnv, driver: AndroidDriver):
    """Acting before the dump ends: the old screen's nodes are never used."""
    driver.screenshot()  # home; its dump is still running when the action starts
    driver.perform(LaunchApp(app="Notes"))
    driver.settle(3.0)
    driver.screenshot()
    field = driver.describe(*centre(phone_env.phone.find(rid="note_field")))
    assert field is not None and field.resource_id == "com.example.notes:id/note_field"


@pytest.mark.parametrize("phone_config", [QUICK_DUMPS], indirect=True)
def test_a_failed_dump_is_tried_again(phone_env: PhoneEnv, driver: AndroidDriver):
    phone = phone_env.phone
    phone.animate(0.35)  # still moving during the first dump, still by the second
    driver.screenshot()
    element = driver.describe(*centre(phone.find(text="Settings")))
    assert element is not None and element.text == "Settings"
    assert driver.dumps.attempts == 2 and dumps_in(phone_env) == 2


@pytest.mark.parametrize("phone_config", [QUICK_DUMPS], indirect=True)
def test_a_screen_that_never_settles_is_unidentified(phone_env: PhoneEnv,
                                                    driver: AndroidDriver):
    phone = phone_env.phone
    phone.animate(30)  # a video, a spinner
    driver.screenshot()
    element = driver.describe(*centre(phone.find(text="Settings")))
    assert element is not None and element.extra == {"unidentified": True}
    assert element.text is None and element.clickable is None
    assert driver.dumps.attempts == 2
    assert driver.focused_element().extra == {"unidentified": True}


@pytest.mark.parametrize("phone_config", [REALISTIC], indirect=True)
def test_password_fields_are_blurred_after_typing(phone_env: PhoneEnv, driver: AndroidDriver):
    """Only typing shows a password's character: then the dump is waited for."""
    phone = phone_env.phone
    driver.perform(LaunchApp(app="Shop"))
    driver.settle(3.0)
    driver.screenshot()
    assert driver.sensitive_regions() == [], "nothing typed: the model is not held up"
    pin = phone.find(rid="pin")
    driver.perform(Click(point=centre(pin)))
    driver.perform(Type(content="1234"))
    driver.settle(3.0)
    driver.screenshot()
    left, top, right, bottom = pin.box
    assert driver.sensitive_regions() == [(left, top, right - left, bottom - top)]
