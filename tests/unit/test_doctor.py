"""Each doctor check judged from faked inputs: what it says and what it tells you to do."""

from __future__ import annotations

from pathlib import Path

from venusctl.doctor.machine import (
    GIB,
    Check,
    Status,
    adb_states,
    all_pass,
    check_adb,
    check_browser,
    check_display,
    check_keyring,
    check_memory,
)
from venusctl.doctor.model import check_headers, check_llama_build, check_model_files
from venusctl.model.settings import ModelConfig

ADB_OUTPUT = """* daemon started successfully
List of devices attached
R58M123\tdevice
emulator-5554\tunauthorized

"""


def found(path="/usr/bin/adb"):
    return lambda name: path


def replies(code, output):
    calls = []

    def run(argv):
        calls.append(argv)
        return code, output

    run.calls = calls
    return run


def test_adb_states_are_parsed():
    assert adb_states(ADB_OUTPUT) == [("R58M123", "device"), ("emulator-5554", "unauthorized")]


def test_adb_missing_unauthorised_empty_and_ready():
    missing = check_adb(which=lambda name: None)
    assert missing.status is Status.FAIL and "apt install adb" in missing.fix
    unauthorised = check_adb(found(), replies(0, ADB_OUTPUT))
    assert unauthorised.status is Status.FAIL and "Allow USB debugging" in unauthorised.fix
    empty = check_adb(found(), replies(0, "List of devices attached\n\n"))
    assert empty.status is Status.WARN and "adb connect" in empty.fix
    ready = check_adb(found(), replies(0, "List of devices attached\nR58M123\tdevice\n"))
    assert ready.status is Status.OK and "R58M123" in ready.detail
    broken = check_adb(found(), replies(1, "cannot bind 'tcp:5037'"))
    assert broken.status is Status.FAIL and "tcp:5037" in broken.detail


def test_display_needs_x11_on_linux():
    wayland = check_display({"WAYLAND_DISPLAY": "wayland-0"}, "linux", probe=lambda: None)
    assert wayland.status is Status.FAIL and "Wayland" in wayland.detail
    nothing = check_display({}, "linux", probe=lambda: None)
    assert nothing.status is Status.FAIL and "Xvfb" in nothing.fix


def test_display_probe_failure_and_missing_xdotool():
    def refuse():
        raise RuntimeError("XOpenDisplay failed")

    refused = check_display({"DISPLAY": ":7"}, "linux", probe=refuse, which=found())
    assert refused.status is Status.FAIL and "XOpenDisplay" in refused.detail
    no_tool = check_display({"DISPLAY": ":7"}, "linux", probe=lambda: None, which=lambda n: None)
    assert no_tool.status is Status.WARN and "xdotool" in no_tool.fix
    fine = check_display({"DISPLAY": ":7"}, "linux", probe=lambda: None, which=found())
    assert fine.status is Status.OK
    mac = check_display({}, "darwin", probe=lambda: None)
    assert mac.status is Status.OK


def test_browser_found_missing_and_broken():
    from venusctl.core.errors import DeviceError

    def missing():
        raise DeviceError("no browser found: install chromium (apt install chromium)")

    assert check_browser(missing).status is Status.FAIL
    ok = check_browser(lambda: "/usr/bin/chromium",
                       replies(0, "sh: noise\nChromium 156.0 built on Debian\n"))
    assert ok.status is Status.OK and ok.detail.startswith("Chromium 156.0")
    broken = check_browser(lambda: "/usr/bin/chromium", replies(1, "error while loading libnss3"))
    assert broken.status is Status.FAIL and "libnss3" in broken.detail
    assert check_browser(lambda: None).detail == "Playwright's bundled Chromium"


def test_keyring_backends():
    class Fail:
        pass

    Fail.__module__ = "keyring.backends.fail"

    class Plaintext:
        pass

    Plaintext.__module__ = "keyrings.alt.file"
    Plaintext.__name__ = "PlaintextKeyring"

    class SecretService:
        pass

    Fail.__name__ = "Keyring"
    assert check_keyring(Fail).status is Status.FAIL
    assert check_keyring(Plaintext).status is Status.WARN
    assert check_keyring(SecretService).status is Status.OK


def test_memory_thresholds():
    assert check_memory(4 * GIB, 8 * GIB).status is Status.OK
    assert check_memory(4 * GIB, int(4.5 * GIB)).status is Status.WARN
    short = check_memory(4 * GIB, 2 * GIB)
    assert short.status is Status.FAIL and "--server" in short.fix
    unknown_model = check_memory(None, 2 * GIB)
    assert "default model" in unknown_model.detail
    assert check_memory(GIB, None).status is Status.WARN


def test_llama_build_warns_only_when_a_gpu_is_wasted():
    cpu = ("0.3.36", ("CPU",), False)
    assert check_llama_build(cpu, gpu=False).status is Status.OK
    wasted = check_llama_build(cpu, gpu=True)
    assert wasted.status is Status.WARN and "GGML_CUDA" in wasted.fix
    cuda = check_llama_build(("0.3.36", ("CUDA0", "CPU"), True), gpu=True)
    assert cuda.status is Status.OK and "CUDA0" in cuda.detail


def test_model_not_downloaded_says_how_to_pull(tmp_path):
    checks, size = check_model_files(config=ModelConfig())
    assert size is None and checks[0].status is Status.FAIL
    assert "venusctl model pull bartowski/UI-Venus-2-9B-GGUF --quant Q4_K_M" in checks[0].fix


def test_model_headers_must_be_gguf(tmp_path):
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"not a gguf at all" * 10)
    check = check_headers(bogus, bogus)
    assert check.status is Status.FAIL and "model pull" in check.fix


def test_model_files_that_do_not_exist(tmp_path: Path):
    config = ModelConfig(model=str(tmp_path / "missing.gguf"))
    checks, _ = check_model_files(config=config)
    assert checks[0].status is Status.FAIL


def test_warnings_pass_failures_do_not():
    assert all_pass([Check("a", Status.OK, ""), Check("b", Status.WARN, "")])
    assert not all_pass([Check("a", Status.OK, ""), Check("b", Status.FAIL, "")])


def test_a_backend_that_crashes_is_reported_not_fatal(monkeypatch, tmp_path):
    """The load runs in a child process: a segfault there is a failed check here."""
    import subprocess

    from venusctl.doctor import model as doctor_model

    calls = []

    def crashed(command, **kwargs):
        calls.append(command)
        return subprocess.CompletedProcess(command, -11, "", "")

    monkeypatch.setattr(doctor_model.subprocess, "run", crashed)
    check = doctor_model.check_load(tmp_path / "m.gguf", tmp_path / "p.gguf", gpu_layers=-1)
    assert check.status is Status.FAIL and "SIGSEGV" in check.detail
    assert "--gpu-layers 0" in check.fix and "install.sh" in check.fix
    assert calls[0][-2:] == ["--gpu-layers", "-1"]


def test_a_loaded_model_says_where_it_runs(monkeypatch, tmp_path):
    import json
    import subprocess

    from venusctl.doctor import model as doctor_model

    result = {"ok": True, "backend": "CUDA", "gpu_layers": -1, "offloaded": [33, 33],
              "load_s": 2.5, "first_token_s": 0.4}
    monkeypatch.setattr(doctor_model.subprocess, "run", lambda command, **kw:
                        subprocess.CompletedProcess(command, 0, json.dumps(result) + "\n", ""))
    check = doctor_model.check_load(tmp_path / "m.gguf", tmp_path / "p.gguf")
    assert check.status is Status.OK
    assert check.detail.startswith("loaded on CUDA, 33/33 layers on the GPU")


def test_gpu_layers_default_to_all_where_the_build_can_offload():
    from venusctl.model.llama.backend import backend_label, resolve_gpu_layers
    from venusctl.model.llama.native import BackendInfo

    cpu = BackendInfo(("CPU",), False, "")
    cuda = BackendInfo(("CUDA0", "CPU"), True, "", ("CUDA",))
    metal = BackendInfo(("MTL0", "CPU"), True, "", ("Metal",))
    assert resolve_gpu_layers(None, cpu) == 0 and backend_label(0, cpu) == "CPU"
    assert resolve_gpu_layers(None, cuda) == -1 and backend_label(-1, cuda) == "CUDA"
    assert resolve_gpu_layers(None, metal) == -1 and backend_label(-1, metal) == "Metal"
    assert resolve_gpu_layers(0, cuda) == 0 and backend_label(0, cuda) == "CPU"
    assert resolve_gpu_layers(12, cuda) == 12
