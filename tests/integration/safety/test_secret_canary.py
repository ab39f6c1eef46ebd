"""A secret typed in a real run never shows up anywhere but in the page it was typed into.

`venusctl secret set` stores a canary in a real (file) keyring; `venusctl do` runs a
full task on the shop app in Chromium whose model types `{{secret:canary}}` into the
order form and submits it. The shop receives the real value; every file under the
test's folders (runs, config, data, cache, home) and every byte printed by every
command, in the normal, verbose and JSON modes, is free of it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from PIL import Image, ImageStat

from tests.support.cli import VENUSCTL, only_run, write_answers

CANARY = "Cnry-7Qx2-secret-Vz91"


def venusctl(*args: str, env: dict[str, str], stdin: str = ""
             ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([VENUSCTL, *args], capture_output=True, timeout=180, env=env,
                          input=stdin.encode())


def canary_answers(path: Path) -> Path:
    # shop app at 1280x800: name field centre (300, 120), submit (200, 325)
    return write_answers(path, [
        "<think>Click the name field.</think><action>Click(point=(234, 150))</action>",
        "<think>Type the stored secret.</think><action>Type(content='{{secret:canary}}')</action>",
        "<think>Submit the order.</think><action>Click(point=(156, 406))</action>",
        "<think>Read the thank-you line.</think><action>Click(point=(47, 115))</action>",
        "<think>Done.</think><action>Finished(content='ordered')</action>",
    ])


def test_a_typed_secret_is_nowhere_in_files_or_output(shop, browser_path, file_keyring,
                                                       tmp_path):
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    printed: list[bytes] = []
    stored = venusctl("secret", "set", "canary", env=env, stdin=CANARY + "\n")
    assert stored.returncode == 0, stored.stderr
    printed += [stored.stdout, stored.stderr]
    policy = tmp_path / "policy.yaml"
    policy.write_text("extends: default\nsecrets:\n  canary: {domains: [127.0.0.1]}\n")
    script = canary_answers(tmp_path / "answers.jsonl")
    common = ["--driver", "web", "--url", shop.url + "/", "--browser-path", browser_path,
              "--model-file", str(script), "--policy", str(policy),
              "--allow-category", "payment"]
    # the same task twice, on purpose with the trajectory cache on: the first run stores
    # its trajectory (under tmp_path, so the leak scan below reads it), the second is
    # replayed from it, secret typed again and scrubbed again
    for mode, source in ((["-v"], "asked"), (["--json", "-v"], "replayed")):
        runs = tmp_path / f"runs{len(printed)}"
        done = venusctl("do", "order with my name", *common, *mode, "--runs-dir", str(runs),
                        "--cache", "on", env=env)
        assert done.returncode == 0, done.stderr.decode()
        printed += [done.stdout, done.stderr]
        steps = (only_run(runs) / "steps.jsonl").read_text()
        assert "{{secret:canary}}" in steps and "[secret:canary]" in steps
        assert {json.loads(line)["source"] for line in steps.splitlines()} == {source}
    listed = venusctl("secret", "list", env=env)
    printed += [listed.stdout, listed.stderr]
    assert b"canary" in listed.stdout

    assert [order["name"] for order in shop.state.orders] == [CANARY, CANARY]
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) > 12 and file_keyring in written
    assert [p for p in written if p.parent.name == "trajectories"]  # the cache entry too
    leaks = [str(p) for p in written if CANARY.encode() in p.read_bytes()]
    assert leaks == []
    assert all(CANARY.encode() not in chunk for chunk in printed)


def test_password_fields_are_blurred_in_the_record(site, browser_path, file_keyring, tmp_path):
    """The password and a plain field both hold typed text; only the password is blurred."""
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    assert venusctl("secret", "set", "pw", env=env, stdin="hunter2hunter2").returncode == 0
    from tests.integration.safety.test_injection import grid_of

    page = site.url + "/login.html"
    password = grid_of(page, browser_path, "#password")
    notes = grid_of(page, browser_path, "#notes")
    script = write_answers(tmp_path / "answers.jsonl", [
        f"<action>Click(point={password})</action>",
        "<action>Type(content='{{secret:pw}}')</action>",
        f"<action>Click(point={notes})</action>",
        "<action>Type(content='WWWWWWWWWWWW')</action>",
        "<action>Finished(content='done')</action>",
    ])
    runs = tmp_path / "runs"
    done = venusctl("do", "sign in", "--driver", "web", "--url", page, "--browser-path",
                    browser_path, "--model-file", str(script), "--image-format", "png",
                    "--allow-category", "secret", "--allow-category", "credentials",
                    "--runs-dir", str(runs), env=env)
    assert done.returncode == 0, done.stderr.decode()
    run = only_run(runs)
    image = Image.open(run / "step-005.png").convert("L")
    sx, sy = image.width / 1280, image.height / 800

    def spread(grid: tuple[int, int]) -> float:
        x, y = grid[0] * 1.28 * sx, grid[1] * 0.8 * sy
        return ImageStat.Stat(image.crop((int(x - 60), int(y - 6), int(x + 60),
                                          int(y + 6)))).stddev[0]

    assert spread(notes) > 3 * spread(password)
