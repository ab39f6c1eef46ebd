"""Secrets on the web: unseen in pictures, unreadable in echoes, typed only where bound.

A canary stored with `venusctl secret set` is typed by a real run into a plain text
field of a page that echoes it every way a page can (spaced in the title, percent-
encoded and in base64 in the address, as HTML entities and dash-separated in its
text). Nothing venusctl writes or prints may hold it in any of those forms, and
every later screenshot (model, record, report) shows the field painted over: a
pixel comparison with a field holding ordinary text. Card and password fields in a
cross-origin iframe are blurred; a secret bound to one site is not typed into
another site's iframe; a persistent profile keeps nothing that was typed.
"""

from __future__ import annotations

import base64
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from PIL import Image, ImageStat

from tests.support.cli import VENUSCTL, only_run, write_answers
from tests.support.keyring_env import file_keyring_backend
from tests.support.tools import chromium
from tests.support.web_redteam import VIEWPORT
from tests.support.web_redteam_site import RedTeamSite
from venusctl.core.actions import Click, Surface, Type
from venusctl.core.errors import ActionFailed
from venusctl.core.grid import to_grid
from venusctl.drivers.web.driver import WebDriver, WebOptions
from venusctl.safety.policy import SecretPermit
from venusctl.safety.redact import Redactor
from venusctl.safety.secret_driver import MASK_COLOUR, SecretDriver
from venusctl.safety.secrets import SecretStore

CANARY = "Cnry-7Qx2-secret-Vz91"
FORMS = [CANARY, quote(CANARY, safe=""), " ".join(CANARY), "-".join(CANARY),
         base64.b64encode(("note:" + CANARY).encode()).decode()[8:-4],
         "".join(f"&#{ord(c)};" for c in CANARY)]


@pytest.fixture
def site() -> Iterator[RedTeamSite]:
    with RedTeamSite() as server:
        yield server


@pytest.fixture
def file_keyring() -> Iterator[Path]:
    yield from file_keyring_backend()


def grid(x: int, y: int) -> tuple[int, int]:
    return to_grid((x, y), VIEWPORT, Surface.BROWSER)


def venusctl(*args: str, env: dict[str, str], stdin: str = ""
             ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([VENUSCTL, *args], capture_output=True, timeout=240, env=env,
                          input=stdin.encode())


def region(image: Image.Image, box: tuple[int, int, int, int]) -> ImageStat.Stat:
    sx, sy = image.width / VIEWPORT.width, image.height / VIEWPORT.height
    left, top, width, height = box
    return ImageStat.Stat(image.convert("RGB").crop(
        (int(left * sx), int(top * sy), int((left + width) * sx), int((top + height) * sy))))


def test_a_typed_secret_and_its_echoes_are_nowhere(site, file_keyring, tmp_path):
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    printed = []
    stored = venusctl("secret", "set", "canary", env=env, stdin=CANARY + "\n")
    assert stored.returncode == 0, stored.stderr
    policy = tmp_path / "policy.yaml"
    policy.write_text("extends: default\nsecrets:\n  canary: {domains: [127.0.0.1]}\n")
    answers = write_answers(tmp_path / "answers.jsonl", [
        f"<think>Open the note.</think><action>Click(point={grid(320, 120)})</action>",
        "<think>Type it.</think><action>Type(content='{{secret:canary}}')</action>",
        f"<think>The other field.</think><action>Click(point={grid(320, 320)})</action>",
        "<think>Type.</think><action>Type(content='WWWWWWWWWWWW')</action>",
        f"<think>Look.</think><action>Click(point={grid(300, 420)})</action>",
        f"<think>Look.</think><action>Click(point={grid(300, 480)})</action>",
        f"<think>Save.</think><action>Click(point={grid(320, 230)})</action>",
        "<think>Where am I?</think><action>GetUrl()</action>",
        "<think>Done.</think><action>Finished(content='saved')</action>"])
    runs = tmp_path / "runs"
    common = ["do", "save my note", "--driver", "web", "--url", site.allowed + "/p/echo.html",
              "--browser-path", chromium(), "--model-file", str(answers), "--policy",
              str(policy), "--image-format", "png", "--runs-dir", str(runs), "-v",
              "--viewport", f"{VIEWPORT.width}x{VIEWPORT.height}"]
    done = venusctl(*common, "--json", env=env)
    printed += [done.stdout, done.stderr]
    assert done.returncode == 0, done.stderr.decode()
    run = only_run(runs)
    report = venusctl("report", str(run), "--out", str(tmp_path / "report.html"), env=env)
    printed += [report.stdout, report.stderr]
    assert report.returncode == 0, report.stderr.decode()

    saved = [h for h in site.hits if h.path == "/ok/save"]
    assert len(saved) == 1 and CANARY in saved[0].body  # the page got it, nothing else
    steps = (run / "steps.jsonl").read_text()
    assert "[secret:canary]" in steps
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p != file_keyring]
    for form in FORMS:
        assert [str(p) for p in written if form.encode() in p.read_bytes()] == [], form
        assert all(form.encode() not in chunk for chunk in printed), form

    field, other = (200, 100, 240, 40), (200, 300, 240, 40)
    for image in sorted(run.glob("step-*.png"))[2:]:  # every screenshot after the typing
        shot = Image.open(image)
        masked, plain = region(shot, field), region(shot, other)
        assert max(masked.stddev) < 2 and abs(masked.mean[0] - MASK_COLOUR[0]) < 3, image
    assert max(plain.stddev) > 20  # the plain field's text is there to see


def test_card_and_password_fields_in_a_cross_origin_frame_are_blurred(site):
    raw = WebDriver(WebOptions(url=site.allowed + "/p/secure-frames.html", viewport=VIEWPORT,
                               image_format="png", browser_path=chromium()))
    try:
        frame_ready(raw, "card-fields.html", "input")
        guarded = SecretDriver(raw, SecretStore(), Redactor())
        before, after = raw.screenshot().image, guarded.screenshot().image
    finally:
        raw.close()
    for box in ((200, 100, 240, 40), (200, 160, 240, 40)):  # card, password in the frame
        assert max(region(after, box).stddev) < max(region(before, box).stddev) / 3, box
    assert max(region(after, (600, 100, 240, 40)).stddev) > 20  # plain fields stay sharp


def test_a_bound_secret_is_not_typed_into_another_sites_frame(site):
    store = SecretStore(backend=_MemoryKeyring({"canary": CANARY}))
    raw = WebDriver(WebOptions(url=site.allowed + "/p/echo.html?frame=1", viewport=VIEWPORT,
                               browser_path=chromium()))
    driver = SecretDriver(raw, store, Redactor(),
                          {"canary": SecretPermit(domains=("127.0.0.1",))})
    try:
        frame_ready(raw, "field.html", "#f")
        driver.perform(Click((700, 120)))  # the field of localhost's iframe
        with pytest.raises(ActionFailed, match="frame from localhost"):
            driver.perform(Type("{{secret:canary}}"))
        frame = next(f for f in raw.page.frames if "field.html" in f.url)
        assert frame.evaluate("() => document.getElementById('f').value") == ""
        driver.perform(Click((320, 120)))  # the page's own field, on the bound site
        driver.perform(Type("{{secret:canary}}"))
        assert raw.page.evaluate("() => document.getElementById('field').value") == CANARY
    finally:
        driver.close()


def test_a_profile_keeps_nothing_that_was_typed(site, tmp_path):
    profile = tmp_path / "profile"
    cookies = []
    for _round in range(2):  # the profile survives a run and is used again
        driver = WebDriver(WebOptions(url=site.allowed + "/p/form.html", profile=profile,
                                      browser_path=chromium()))
        try:
            cookies.append(driver.page.evaluate("() => document.cookie"))
            driver.page.evaluate("() => { document.cookie = 'session=kept; max-age=3600'; }")
            driver.perform(Click((220, 120)))
            driver.perform(Type(CANARY))
            driver.perform(Click((285, 250)))  # Place order: the form is submitted
            driver.page.wait_for_url("**/sink/order", timeout=15_000)
        finally:
            driver.close()
    kept = [p for p in profile.rglob("*") if p.is_file() and CANARY.encode() in p.read_bytes()]
    assert kept == []
    assert cookies == ["", "session=kept"]  # what a profile is for: the sign-in stays


def frame_ready(driver: WebDriver, name: str, selector: str) -> None:
    """Wait (bounded) until the iframe whose address holds `name` shows `selector` and
    has drawn: a click aimed at the frame must land in it, not on the page behind."""
    deadline = time.monotonic() + 15
    while True:
        frame = next((f for f in driver.page.frames if name in f.url), None)
        if frame is not None:
            frame.wait_for_selector(selector, state="visible", timeout=15_000)
            # drawn by its own renderer: only then does a click reach it, not the page
            frame.evaluate("() => new Promise(done => requestAnimationFrame("
                           "() => requestAnimationFrame(done)))")
            return
        assert time.monotonic() < deadline, f"the frame {name} never appeared"
        driver.page.wait_for_event("framenavigated", timeout=15_000)


class _MemoryKeyring:
    """The keyring interface `SecretStore` uses, in memory."""

    def __init__(self, values: dict[str, str]) -> None:
        self.values = dict(values)

    def get_password(self, service: str, name: str) -> str | None:
        return self.values.get(name)
