"""`venusctl sim phone|web|desktop`: usable from other processes, gone after a signal."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.integration.sim.conftest import group_is_gone, port_is_closed, start_sim
from tests.support.cli import venusctl, write_answers
from tests.support.tools import require
from venusctl.sim.phone.env import AdbServer, free_port, probe


def adb(port: int, *args: str) -> str:
    done = subprocess.run([require("adb"), *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "ANDROID_ADB_SERVER_PORT": str(port)})
    return done.stdout + done.stderr


def test_phone_is_driven_by_adb_and_by_venusctl_in_other_processes(sim, tmp_path):
    port = free_port()
    env = {"ANDROID_ADB_SERVER_PORT": str(port)}  # as if it were adb's usual server
    served = start_sim("phone", "--size", "1080x2400", env=env)
    sim.append(served)
    variables = served.wait_ready()
    serial = variables["PHONE_SERIAL"]
    assert variables["ANDROID_ADB_SERVER_PORT"] == str(port)
    assert re.fullmatch(r"127\.0\.0\.1:\d+", serial)

    # the real adb client sees and drives it
    assert f"{serial}\tdevice" in adb(port, "devices")
    assert adb(port, "-s", serial, "shell", "wm", "size").strip() == "Physical size: 1080x2400"
    assert adb(port, "-s", serial, "shell", "getprop", "ro.product.model").strip() == \
        "Venus Phone"
    listed = venusctl("devices", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    (phone,) = json.loads(listed.stdout)["phones"]
    assert (phone["serial"], phone["screen"], phone["state"]) == (serial, "1080x2400", "device")

    # and so does a whole run of the agent
    answers = write_answers(tmp_path / "note.jsonl", [
        "<action>LaunchApp(app='Notes')</action>", "<action>Click(point=(500, 159))</action>",
        "<action>Type(content='buy milk')</action>", "<action>Click(point=(775, 254))</action>",
        "<action>Finished(content='Saved.')</action>"])
    run = venusctl("do", "Write a note saying buy milk", "--driver", "android", "--device",
                   serial, "--model-file", str(answers), env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "Saved."
    adb(port, "-s", serial, "shell", "uiautomator", "dump", "/sdcard/ui.xml")
    assert 'text="buy milk"' in adb(port, "-s", serial, "shell", "cat", "/sdcard/ui.xml")

    code, err = served.stop(signal.SIGINT)  # Ctrl-C reaches the whole process group
    assert code == 0, err
    assert "Traceback" not in err and "stopped the phone environment" in err
    assert group_is_gone(served.process.pid)  # the adb server it started went too
    assert port_is_closed(port) and port_is_closed(int(serial.split(":")[1]))


def test_phone_joins_a_running_adb_server_and_leaves_it_running(sim, adb_server: AdbServer):
    phone_port = free_port()
    served = start_sim("phone", "--adb-port", str(adb_server.port), "--port", str(phone_port),
                       "--size", "540x960")
    sim.append(served)
    variables = served.wait_ready()
    assert variables["PHONE_SERIAL"] == f"127.0.0.1:{phone_port}"
    assert adb_server.devices()[f"127.0.0.1:{phone_port}"] == "device"
    code, err = served.stop(signal.SIGTERM, group=False)  # `kill PID`
    assert code == 0, err
    assert group_is_gone(served.process.pid) and port_is_closed(phone_port)
    assert probe(adb_server.port) == "adb"  # not ours to stop
    assert f"127.0.0.1:{phone_port}" not in adb_server.devices()


def test_web_serves_the_shop_and_frees_its_port(sim):
    served = start_sim("web")
    sim.append(served)
    url = served.wait_ready()["SHOP_URL"]
    with urllib.request.urlopen(url + "/") as page:
        assert "Submit order" in page.read().decode()
    form = b"name=Ada&colour=Green"
    with urllib.request.urlopen(urllib.request.Request(url + "/order", data=form)) as page:
        assert "Thank you, Ada" in page.read().decode()
    with urllib.request.urlopen(url + "/state") as page:
        assert json.load(page)["orders"] == [{"name": "Ada", "colour": "Green"}]
    code, err = served.stop(signal.SIGTERM, group=False)
    assert code == 0, err
    assert port_is_closed(int(url.rsplit(":", 1)[1]))


def test_desktop_runs_the_app_on_its_own_display_and_leaves_nothing(sim, tmp_path):
    served = start_sim("desktop", "--size", "1280x800")
    sim.append(served)
    variables = served.wait_ready()
    display, log = variables["DISPLAY"], Path(variables["TK_LOG"])
    assert variables["XDG_SESSION_TYPE"] == "x11" and re.fullmatch(r":\d+", display)
    assert "ready" in [json.loads(line)["event"] for line in log.read_text().splitlines()]
    answers = write_answers(tmp_path / "save.jsonl", [
        "<action>Click(box=(211, 181))</action>", "<action>Type(content='hello')</action>",
        "<action>Click(box=(367, 181))</action>", "<action>Finished(content='Saved.')</action>"])
    run = venusctl("do", "type hello into the name field and press Save", "--driver",
                   "desktop", "--model-file", str(answers),
                   env={"DISPLAY": display, "XDG_SESSION_TYPE": "x11"}, timeout=300)
    assert run.returncode == 0, run.stderr
    saved = [json.loads(line) for line in log.read_text().splitlines() if '"saved"' in line]
    assert saved and saved[-1]["name"] == "hello"

    code, err = served.stop(signal.SIGINT)
    assert code == 0, err
    assert group_is_gone(served.process.pid)  # Xvfb and the Tk app
    assert not Path(f"/tmp/.X11-unix/X{display[1:]}").exists()
    assert not log.parent.exists()  # the temporary event log


# ------------------------------------------------------------------ bad input


def run_sim(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    process = subprocess.Popen([sys.executable, "-m", "venusctl", "sim", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})},
                               start_new_session=True)
    out, err = process.communicate(timeout=120)
    assert group_is_gone(process.pid), "a helper process was left running"
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def one_line_error(result: subprocess.CompletedProcess[str], code: int) -> str:
    assert result.returncode == code, result.stderr
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("venusctl: ")
    return result.stderr


def test_a_busy_phone_port_is_one_line_and_exit_5():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        result = run_sim("phone", "--port", str(port), "--adb-port", "0")
    err = one_line_error(result, 5)
    assert f"port {port} is busy; the simulated phone needs a free one" in err


def test_a_port_held_by_something_else_than_adb_is_one_line_and_exit_5():
    with socket.socket() as holder:  # accepts connections, never answers
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        result = run_sim("phone", "--adb-port", str(port))
    err = one_line_error(result, 5)
    assert f"port {port} is busy; the adb server needs a free one" in err and "--adb-port" in err


def test_a_busy_web_port_is_one_line_and_exit_5():
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        result = run_sim("web", "--port", str(port))
    assert f"port {port} is busy" in one_line_error(result, 5)


def test_missing_adb_or_xvfb_says_how_to_install_them(tmp_path):
    python_only = tmp_path / "bin"  # a PATH with this Python and nothing else
    python_only.mkdir()
    (python_only / "python3").symlink_to(sys.executable)
    env = {"PATH": str(python_only)}
    err = one_line_error(run_sim("phone", env=env), 5)
    assert "adb is not installed; install it with: sudo apt install adb" in err
    err = one_line_error(run_sim("desktop", env=env), 5)
    assert "Xvfb is not installed; install it with: sudo apt install xvfb" in err
    assert shutil.which("adb") and shutil.which("Xvfb")  # what the other tests use


def test_an_unknown_environment_in_a_suite_file_is_one_line_and_exit_2(tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text("environments: [{sim: shopp}]\n"
                     "tasks: [{task: Open the About page, driver: web, url: '${SHOP_URL}'}]\n")
    result = venusctl("eval", "suite", str(suite), "--runs-dir", str(tmp_path / "runs"))
    err = one_line_error(result, 2)
    assert "environment 1: unknown environment 'shopp' (built in: web, desktop, phone)" in err
    assert not (tmp_path / "runs").exists()  # nothing ran, nothing recorded
