"""The wheel carries drivers, prompts and policies and works outside the source tree."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_wheel_installs_and_runs_outside_the_source_tree(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
                    "--no-build-isolation", "-q", "-w", str(wheels)], check=True,
                   cwd=tmp_path)
    (wheel,) = wheels.glob("venusctl-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in ("venusctl/cli/__init__.py", "venusctl/drivers/web.py",
                     "venusctl/drivers/base.py", "venusctl/prompts/mobile.md",
                     "venusctl/prompts/desktop.md", "venusctl/prompts/browser.md",
                     "venusctl/prompts/grounding.md"):
        assert expected in names, expected
    assert not any(n.startswith(("drivers/", "tests/", "prompts/", "policies/")) for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                           "['purelib'])"], capture_output=True, text=True, check=True)
    # dependencies come from the development environment, venusctl only from the wheel
    Path(site.stdout.strip(), "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True)

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    check = ("import venusctl, venusctl.drivers.web, venusctl.drivers.base\n"
             "from venusctl.messages import load_template\n"
             "from venusctl.actions import Surface\n"
             "assert '{task}' in load_template(Surface.MOBILE)\n"
             "print(venusctl.__file__)")
    found = subprocess.run([str(python), "-c", check], capture_output=True, text=True,
                           cwd=outside)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip().startswith(str(venv))
    helped = subprocess.run([str(venv / "bin" / "venusctl"), "--help"], capture_output=True,
                            text=True, cwd=outside)
    assert helped.returncode == 0 and "Exit codes" in helped.stdout
