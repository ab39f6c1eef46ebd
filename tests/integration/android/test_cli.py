"""`venusctl do`, `devices` and `device` on the simulated phone, as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from venusctl.cli import run_cli
from venusctl.sim.phone import PhoneConfig
from venusctl.sim.phone.env import PhoneEnv

VENUSCTL = str(Path(sys.executable).with_name("venusctl"))


def answers(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def steps_of(runs: Path) -> tuple[dict, list[dict]]:
    (run,) = [p for p in runs.iterdir() if (p / "run.json").exists()]
    info = json.loads((run / "run.json").read_text(encoding="utf-8"))
    steps = [json.loads(line) for line in (run / "steps.jsonl").read_text().splitlines()]
    return info, steps


def test_do_completes_a_multi_step_task_on_the_only_phone(phone_env: PhoneEnv, tmp_path: Path):
    phone = phone_env.phone
    field = phone.grid_on("notes", rid="note_field")
    wifi = phone.grid_on("settings", rid="switch_widget")
    script = answers(tmp_path / "answers.jsonl", [
        "<think>Open the notes app.</think><action>LaunchApp(app='Notes')</action>",
        f"<action>Click(point={field})</action>",
        "<action>Type(content='Grüße 你好 🎉')</action>",
        "<action>PressEnter()</action>",
        "<action>LaunchApp(app='settings')</action>",
        f"<action>Click(point={wifi})</action>",
        "<action>Finished(content='Saved the note and turned Wi-Fi on.')</action>",
    ])
    runs = tmp_path / "runs"
    done = subprocess.run(
        [VENUSCTL, "do", "write a note and turn on wi-fi", "--model-file", str(script),
         "--confirm", "never", "--yes", "--runs-dir", str(runs)],
        capture_output=True, text=True, timeout=120, env=dict(os.environ), stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Saved the note and turned Wi-Fi on."
    assert f"using the android phone {phone_env.serial} (the only one attached)" in done.stderr
    assert phone_env.state.notes == ["Grüße 你好 🎉"] and phone_env.state.wifi is True

    info, steps = steps_of(runs)
    assert (info["driver"], info["surface"], info["outcome"]["status"]) == (
        "android", "mobile", "finished")
    assert info["settings"]["device"] == phone_env.serial
    assert [s["action_kind"] for s in steps] == [
        "LaunchApp", "Click", "Type", "PressEnter", "LaunchApp", "Click", "Finished"]
    assert steps[0]["result"]["launched"] == "Notes (com.example.notes)"
    assert steps[1]["context"]["app"] == "com.example.notes"
    assert steps[1]["element"]["resource_id"] == "com.example.notes:id/note_field"
    assert steps[2]["result"]["typed_with"] == "adb_keyboard"
    assert steps[5]["element"]["role"] == "switch" and steps[5]["element"]["name"] == "Wi-Fi"
    assert steps[5]["element"]["extra"]["checked"] is False
    assert steps[6]["context"]["app"] == "com.android.settings"
    assert all(s["image"] for s in steps)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_phone_disconnected_mid_step(phone_env: PhoneEnv, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]):
    phone_env.phone.disconnect_when = lambda service: "input tap" in service
    script = answers(tmp_path / "a.jsonl", ["<action>Click(point=(500, 500))</action>",
                                            "<action>Finished(content='no')</action>"])
    runs = tmp_path / "runs"
    code, _out, err = run(["do", "tap", "--driver", "android", "--model-file", str(script),
                           "--confirm", "never", "--yes", "--runs-dir", str(runs)], capsys)
    assert code == 5
    assert f"the phone {phone_env.serial}" in err and len(err.strip().splitlines()) >= 1
    info, steps = steps_of(runs)
    assert info["outcome"]["status"] == "device_error" and info["outcome"]["exit_code"] == 5
    assert "disconnected" in info["outcome"]["message"] or "offline" in info["outcome"]["message"]
    assert steps[-1]["step"] == 1 and steps[-1]["error"]


def test_unknown_app_name_is_fed_back_with_close_matches(phone_env: PhoneEnv, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]):
    script = answers(tmp_path / "a.jsonl", ["<action>LaunchApp(app='Shopping Mall')</action>",
                                            "<action>LaunchApp(app='Shop')</action>",
                                            "<action>Finished(content='ok')</action>"])
    runs = tmp_path / "runs"
    code, out, _err = run(["do", "open the shop", "--driver", "android", "--model-file",
                           str(script), "--confirm", "never", "--yes", "--runs-dir", str(runs)],
                          capsys)
    assert code == 0 and out.strip() == "ok"
    _info, steps = steps_of(runs)
    assert "no app called 'Shopping Mall'" in steps[0]["error"]
    assert "close matches: Shop" in steps[1]["feedback"]
    assert phone_env.state.screen == "shop"


@pytest.mark.parametrize("phone_config", [PhoneConfig(adb_keyboard=False)], indirect=True)
def test_non_ascii_without_an_ime_is_explained(phone_env: PhoneEnv, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]):
    script = answers(tmp_path / "a.jsonl", ["<action>Type(content='Grüße')</action>",
                                            "<action>Finished(content='ok')</action>"])
    runs = tmp_path / "runs"
    code, _out, _err = run(["do", "type", "--driver", "android", "--model-file", str(script),
                            "--confirm", "never", "--yes", "--runs-dir", str(runs)], capsys)
    assert code == 0
    _info, steps = steps_of(runs)
    assert "install ADB Keyboard" in steps[0]["error"]
    assert steps[1]["feedback"].startswith("The last action failed: cannot type non-ASCII")


@pytest.mark.parametrize("phone_config", [PhoneConfig(refuse_auth=True)], indirect=True)
def test_unauthorised_phone(phone_env: PhoneEnv, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]):
    script = answers(tmp_path / "a.jsonl", ["<action>Finished(content='x')</action>"])
    code, _out, err = run(["do", "x", "--driver", "android", "--model-file", str(script),
                           "--confirm", "never", "--yes"], capsys)
    assert code == 5
    assert err.strip() == (f"venusctl: the phone {phone_env.serial} has not authorised this "
                           "computer: unlock it and accept the 'Allow USB debugging?' prompt "
                           "(tick 'Always allow from this computer')")


def test_several_phones_need_a_choice(phone_env: PhoneEnv, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]):
    second = phone_env.add_phone()
    try:
        script = answers(tmp_path / "a.jsonl", ["<action>Finished(content='x')</action>"])
        code, _out, err = run(["do", "x", "--driver", "android", "--model-file", str(script)],
                              capsys)
        assert code == 2
        assert "several phones are attached" in err and phone_env.serial in err
        assert second.serial in err and "--device" in err and len(err.splitlines()) == 1
        code, _out, err = run(["do", "x", "--model-file", str(script)], capsys)
        assert code == 2 and "choose a surface with --driver" in err and second.serial in err
        code, out, _err = run(["device", "info", "--device", second.serial], capsys)
        assert code == 0 and json.loads(out)["serial"] == second.serial
        os.environ["ANDROID_SERIAL"] = second.serial
        try:
            code, out, _err = run(["device", "info"], capsys)
        finally:
            del os.environ["ANDROID_SERIAL"]
        assert code == 0 and json.loads(out)["serial"] == second.serial
    finally:
        phone_env.server.detach(second)
        second.stop()


def test_missing_adb(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                     capsys: pytest.CaptureFixture[str]):
    from venusctl.sim.phone.env import free_port

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(free_port()))
    script = answers(tmp_path / "a.jsonl", ["<action>Finished(content='x')</action>"])
    code, _out, err = run(["do", "x", "--driver", "android", "--model-file", str(script)], capsys)
    assert code == 5
    assert err.startswith("venusctl: adb is not installed") and "apt install adb" in err


def test_devices_lists_the_phone(phone_env: PhoneEnv, capsys: pytest.CaptureFixture[str]):
    code, out, _err = run(["devices", "--json"], capsys)
    assert code == 0
    listing = json.loads(out)
    assert listing["phones"] == [{
        "serial": phone_env.serial, "state": "device", "model": "Venus Phone", "android": "14",
        "sdk": 34, "screen": "540x960", "density": 240}]
    assert "browser" in listing and "desktop" in listing
    code, out, _err = run(["devices"], capsys)
    assert code == 0 and phone_env.serial in out and "Android 14 (API 34)" in out


def test_raw_device_verbs(phone_env: PhoneEnv, capsys: pytest.CaptureFixture[str]):
    code, out, _err = run(["device", "launch", "gallery"], capsys)
    assert code == 0 and "Gallery (com.example.gallery)" in out
    left, top, right, bottom = phone_env.phone.find(rid="photo").box
    x, y = (left + right) // 2, (top + bottom) // 2
    code, out, _err = run(["device", "describe", str(x), str(y)], capsys)
    assert code == 0 and json.loads(out)["name"] == "Photo of a lake, 100%"
    code, out, _err = run(["device", "key", "back"], capsys)
    assert code == 0 and phone_env.state.screen == "home"
    code, _out, err = run(["device", "key", "volume"], capsys)
    assert code == 2 and "unknown key 'volume'" in err


def test_screenshot_command_saves_what_the_model_sees(phone_env: PhoneEnv, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]):
    from PIL import Image

    out = tmp_path / "phone.png"
    code, printed, _err = run(["screenshot", str(out), "--driver", "android"], capsys)
    assert code == 0 and "540x960" in printed
    with Image.open(out) as image:
        assert image.format == "PNG" and image.size == (540, 960)
