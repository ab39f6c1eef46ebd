"""The trajectory cache end to end: `venusctl do` twice on the shop app in real Chromium,
with a scripted OpenAI-compatible model server on 127.0.0.1 counting every question."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import venusctl
from tests.support.script_server import ScriptServer
from venusctl.sim import web as webapp

TASK = "Order a green one for Ada Lovelace."
ORDER = [
    "<think>The name field is first.</think><action>Click(point=(234, 150))</action>",
    "<think>Type the name.</think><action>Type(content='Ada Lovelace')</action>",
    "<think>Open the colour list.</think><action>Click(point=(156, 275))</action>",
    "<think>Green is option 1.</think><action>SelectOption(index=1)</action>",
    "<think>Submit the order.</think><action>Click(point=(161, 414))</action>",
    "<think>Check where we are.</think><action>GetUrl()</action>",
    "<think>The order went through.</think>"
    "<action>Finished(content='Ordered a green one for Ada')</action>",
]
GREEN_FOR_ADA = {"name": "Ada Lovelace", "colour": "Green"}
# A site update: opening the colour list now shows a promotion beside the form.
PROMOTION = """<script>
document.getElementById('colour').addEventListener('focus', () => {
  document.body.insertAdjacentHTML('beforeend', '<div id="promo" style="position:absolute;'
    + 'left:620px;top:90px;width:560px;height:260px;background:#1a7f37;color:#fff;'
    + 'font-size:40px;padding:20px">Green is 20 % off today!</div>');
});
</script></body>"""


@pytest.fixture
def model() -> Iterator[ScriptServer]:
    with ScriptServer({TASK: ORDER}) as server:
        yield server


def order(shop, browser_path: str, model: ScriptServer, runs: Path, *extra: str):
    return venusctl("do", TASK, "--driver", "web", "--url", shop.url + "/",
                    "--browser-path", browser_path, "--server", model.url,
                    "--runs-dir", str(runs), *extra, timeout=240)


def steps_of(runs: Path) -> list[dict]:
    (run,) = [p for p in runs.iterdir() if (p / "run.json").exists()]
    return [json.loads(line) for line in (run / "steps.jsonl").read_text().splitlines()]


def test_an_order_done_again_asks_the_model_nothing(shop, browser_path, model, tmp_path):
    first = order(shop, browser_path, model, tmp_path / "runs1", "--allow-category", "payment")
    assert first.returncode == 0, first.stderr
    assert model.steps_asked() == [1, 2, 3, 4, 5, 6, 7]
    assert [s["source"] for s in steps_of(tmp_path / "runs1")] == ["asked"] * 7

    second = order(shop, browser_path, model, tmp_path / "runs2", "--allow-category", "payment")
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "Ordered a green one for Ada"
    assert model.steps_asked() == [1, 2, 3, 4, 5, 6, 7]  # not one question more
    steps = steps_of(tmp_path / "runs2")
    assert [s["source"] for s in steps] == ["replayed"] * 7
    assert steps[4]["verdict"]["category"] == "payment"  # judged, and approved by the flag
    assert shop.state.orders == [GREEN_FOR_ADA, GREEN_FOR_ADA]
    assert "replayed" in second.stderr  # the progress line says so

    listed = venusctl("cache", "list", "--json")
    (entry,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert entry["steps"] == 7 and entry["place"] == "127.0.0.1"
    assert entry["task"] == TASK and entry["screen"] == "1024x768"


def test_a_page_changed_at_step_4_is_answered_by_the_model_from_there(
        shop, browser_path, model, tmp_path, monkeypatch):
    assert order(shop, browser_path, model, tmp_path / "runs1",
                 "--allow-category", "payment").returncode == 0
    before = [a for a in model.asked if a.step == 4]
    monkeypatch.setattr(webapp, "FORM", webapp.FORM.replace("</body>", PROMOTION))

    second = order(shop, browser_path, model, tmp_path / "runs2", "--allow-category", "payment")
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip() == "Ordered a green one for Ada"
    assert model.steps_asked() == [1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7]
    steps = steps_of(tmp_path / "runs2")
    assert [s["source"] for s in steps] == ["replayed"] * 3 + ["asked"] * 4
    # the model was handed the replayed steps as if it had answered them itself
    after = [a for a in model.asked if a.step == 4][-1]
    assert after.texts == before[0].texts
    assert shop.state.orders == [GREEN_FOR_ADA, GREEN_FOR_ADA]

    # the entry now follows the changed page: a third run replays all of it
    third = order(shop, browser_path, model, tmp_path / "runs3", "--allow-category", "payment")
    assert third.returncode == 0, third.stderr
    assert len(model.steps_asked()) == 11
    assert [s["source"] for s in steps_of(tmp_path / "runs3")] == ["replayed"] * 7


def test_a_replayed_payment_click_is_still_confirmed(shop, browser_path, model, tmp_path):
    assert order(shop, browser_path, model, tmp_path / "runs1",
                 "--allow-category", "payment").returncode == 0
    assert shop.state.orders == [GREEN_FOR_ADA]

    unattended = order(shop, browser_path, model, tmp_path / "runs2")  # no approval, no TTY
    assert unattended.returncode == 3, unattended.stderr
    assert "needs confirmation" in unattended.stderr
    assert "Traceback" not in unattended.stderr
    assert len(model.steps_asked()) == 7  # replayed up to the payment, asking nothing
    steps = steps_of(tmp_path / "runs2")
    assert [s["source"] for s in steps] == ["replayed"] * 5
    assert steps[-1]["verdict"]["decision"] == "confirm"
    assert steps[-1]["element"]["name"] == "Submit order"
    assert steps[-1]["reply"] == "unanswered"
    assert shop.state.orders == [GREEN_FOR_ADA]  # nothing more was ordered


def test_cache_off_asks_every_step_and_clear_forgets(shop, browser_path, model, tmp_path):
    assert order(shop, browser_path, model, tmp_path / "runs1",
                 "--allow-category", "payment").returncode == 0
    off = order(shop, browser_path, model, tmp_path / "runs2", "--allow-category", "payment",
                "--cache", "off")
    assert off.returncode == 0 and len(model.steps_asked()) == 14
    cleared = venusctl("cache", "clear")
    assert cleared.returncode == 0 and "removed 1 cached trajectory" in cleared.stdout
    assert venusctl("cache", "list", "--json").stdout == ""
    bad = order(shop, browser_path, model, tmp_path / "runs3", "--cache", "sometimes")
    assert bad.returncode == 2 and "--cache must be on, off, read or write" in bad.stderr
