"""The wheel carries drivers, prompts, policies, the simulated environments and the
built-in suite, and works outside the source tree after a plain install."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.tools import chromium

ROOT = Path(__file__).resolve().parents[2]
BUILD_LEFTOVERS = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache",
                   ".hypothesis", ".cache")


@dataclass
class Installed:
    wheel: Path
    venv: Path
    outside: Path  # a working folder outside the source tree

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def venusctl(self) -> Path:
        return self.venv / "bin" / "venusctl"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    """The wheel built from this tree, installed into a fresh virtualenv. Dependencies
    come from the development environment (no rebuild of llama-cpp-python), venusctl
    only from the wheel."""
    tmp = tmp_path_factory.mktemp("wheel")
    # built from a clean copy: setuptools packs whatever an earlier build left in build/
    source = tmp / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*BUILD_LEFTOVERS))
    wheels = tmp / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps",
                    "--no-build-isolation", "-q", "-w", str(wheels)], check=True, cwd=tmp)
    (wheel,) = wheels.glob("venusctl-*.whl")
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    site = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print("
                           "sysconfig.get_paths()['purelib'])"], capture_output=True, text=True,
                          check=True)
    # a path added by a .pth file is not scanned for .pth files, so the development
    # tree's editable install stays invisible here
    Path(site.stdout.strip(), "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                    "--no-index", str(wheel)], check=True)
    outside = tmp / "elsewhere"
    outside.mkdir()
    yield Installed(wheel, venv, outside)


def test_wheel_holds_the_package_and_its_data_only(installed: Installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for expected in ("venusctl/cli/__init__.py", "venusctl/drivers/web/driver.py",
                     "venusctl/drivers/base.py", "venusctl/prompts/mobile.md",
                     "venusctl/prompts/desktop.md", "venusctl/prompts/browser.md",
                     "venusctl/prompts/grounding.md", "venusctl/__main__.py",
                     "venusctl/sim/web.py", "venusctl/sim/desktop.py", "venusctl/sim/tkapp.py",
                     "venusctl/sim/phone/phone.py", "venusctl/sim/phone/transport.py",
                     "venusctl/evals/builtin/suite.yaml",
                     "venusctl/present/templates/report.html.j2",
                     "venusctl/present/templates/timeline.svg.j2",
                     "venusctl/evals/builtin/answers/phone-note.jsonl",
                     "venusctl/policies/default.yaml", "venusctl/policies/words/ko.yaml",
                     "venusctl/policies/words/ru.forms.json"):
        assert expected in names, expected
    assert not any(n.startswith(("drivers/", "tests/", "prompts/", "policies/", "examples/"))
                   for n in names)


def test_wheel_declares_and_carries_its_licence(installed: Installed):
    """The licence travels with the package: its SPDX name in the metadata (PEP 639) and
    the text in the wheel's dist-info, where installers and scanners look."""
    wheel = zipfile.ZipFile(installed.wheel)
    (metadata,) = (n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    fields = wheel.read(metadata).decode()
    assert "License-Expression: MIT" in fields.splitlines()
    assert "License-File: LICENSE" in fields.splitlines()
    (licence,) = (n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE"))
    assert wheel.read(licence).decode() == (ROOT / "LICENSE").read_text()


def test_wheel_installs_and_runs_outside_the_source_tree(installed: Installed):
    check = ("import venusctl, venusctl.drivers.web.driver, venusctl.drivers.base, venusctl.sim\n"
             "from venusctl.interface.messages import load_template\n"
             "from venusctl.core.actions import Surface\n"
             "assert '{task}' in load_template(Surface.MOBILE)\n"
             "from venusctl.safety.policy import load_policy\n"
             "assert '삭제' in load_policy('default').keywords['delete']\n"
             "from venusctl.safety.inflection import word_forms\n"
             "assert 'deleting' in word_forms()['delete']\n"
             "print(venusctl.__file__)")
    found = subprocess.run([str(installed.python), "-c", check], capture_output=True, text=True,
                           cwd=installed.outside)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip().startswith(str(installed.venv))
    helped = subprocess.run([str(installed.venusctl), "--help"], capture_output=True, text=True,
                            cwd=installed.outside)
    assert helped.returncode == 0 and "Exit codes" in helped.stdout and "sim" in helped.stdout


def test_the_builtin_suite_runs_from_the_installed_wheel(installed: Installed):
    runs = installed.outside / "runs"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DISPLAY")}
    env["PATH"] = f"{installed.venv / 'bin'}:{env['PATH']}"
    result = subprocess.run(
        [str(installed.venusctl), "eval", "suite", "--browser-path", chromium(),
         "--runs-dir", str(runs), "--json"], capture_output=True, text=True,
        cwd=installed.outside, env=env, stdin=subprocess.DEVNULL, timeout=600)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert (summary["name"], summary["tasks"], summary["success_rate"]) == ("builtin", 6, 1.0)
    assert summary["suite"].startswith(str(installed.venv))  # the packaged file
    statuses = {t["id"]: t["status"] for t in summary["per_task"]}
    assert statuses["phone-pay-needs-a-person"] == "needs_user"
    drivers = {json.loads((Path(t["run_dir"]) / "run.json").read_text())["driver"]
               for t in summary["per_task"]}
    assert drivers == {"web", "desktop", "android"}
    # the environments ran on the wheel's code, and stopped
    logs = {p.name: p.read_text() for p in runs.glob("evals/*/*-env/env-*.log")}
    assert set(logs) == {"env-web.log", "env-desktop.log", "env-phone.log"}
    assert all("stopped the" in text for text in logs.values())
