"""The trajectory cache in whole runs (`run_task`): replay, divergence, safety, bad input."""

from __future__ import annotations

import io
import json
import time
from dataclasses import dataclass, field
from typing import ClassVar

import pytest
from PIL import Image, ImageDraw

from tests.support.keyring_env import file_keyring_backend
from venusctl.cache import CacheMode, CacheOptions
from venusctl.core.actions import Action, Surface, Type
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import ActionResult, Element, Screen, ScreenContext
from venusctl.drivers.capabilities import Capability
from venusctl.drivers.factory import DriverOptions
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import load_run
from venusctl.run.build import ModelOptions, RunRequest, run_task
from venusctl.safety.confirm import NonInteractiveConfirmer
from venusctl.safety.secrets import SecretStore
from venusctl.safety.setup import SafetyOptions

TASK = "Put the blue one in the cart."


@dataclass
class Page:
    """One screen of the fake app: where its blocks are, and what is at the target."""

    blocks: list[tuple[int, int, int, int]]
    element: Element | None = None
    note: str = ""  # small text drawn at the bottom (a price, a clock)


def _draw(page: Page) -> bytes:
    image = Image.new("RGB", (400, 250), "white")
    draw = ImageDraw.Draw(image)
    for box in page.blocks:
        draw.rectangle(box, fill=(40, 90, 200))
    draw.text((8, 236), page.note, fill="black")
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


@dataclass
class PagesDriver:
    """A surface that moves to the next page after each action it performs."""

    capabilities: ClassVar[frozenset[Capability]] = frozenset()

    pages: list[Page]
    surface: Surface = Surface.BROWSER
    name: str = "fake"
    url: str = "https://shop.example/"
    performed: list[Action] = field(default_factory=list)

    @property
    def page(self) -> Page:
        return self.pages[min(len(self.performed), len(self.pages) - 1)]

    def screenshot(self) -> Screen:
        return Screen(_draw(self.page), "image/png", ScreenSize(1000, 500), self.context(),
                      time.time())

    def perform(self, action: Action) -> ActionResult:
        self.performed.append(action)
        return ActionResult()

    def describe(self, x: int, y: int) -> Element | None:
        return self.page.element

    def context(self) -> ScreenContext:
        return ScreenContext(url=self.url)

    def settle(self, cap_s: float) -> float:
        return 0.0

    def close(self) -> None:
        return None


def shop_pages() -> list[Page]:
    return [Page([(20, 20, 380, 60)], Element(name="Blue", role="link")),
            Page([(20, 20, 200, 200), (220, 150, 380, 200)],
                 Element(name="Add to cart", role="button")),
            Page([(20, 20, 380, 230)])]


def said(action: str, thought: str = "ok") -> Completion:
    return Completion(text=f"<think>{thought}</think><action>{action}</action>")


ANSWERS = [said("Click(point=(500, 100))", "Open the blue one."),
           said("Click(point=(750, 700))", "Add it to the cart."),
           said("Finished(content='The blue one is in the cart.')", "Done.")]


def run(tmp_path, driver, answers, mode=CacheMode.ON, **fields):
    model = ScriptedModel(list(answers))
    request = RunRequest(task=TASK, driver=DriverOptions(driver="web"),
                         runs_dir=tmp_path / "runs", output="quiet",
                         cache=CacheOptions(mode, tmp_path / "cache"), **fields)
    outcome = run_task(request, confirmer=NonInteractiveConfirmer(), driver=driver, model=model)
    newest = max((tmp_path / "runs").iterdir(), key=lambda p: p.stat().st_mtime_ns)
    return outcome, model, load_run(newest).steps()


def entry_files(tmp_path):
    folder = tmp_path / "cache"
    return sorted(folder.glob("*.json")) if folder.exists() else []


def test_a_task_done_once_replays_without_asking_the_model(tmp_path):
    outcome, model, steps = run(tmp_path, PagesDriver(shop_pages()), ANSWERS)
    assert outcome.exit_code == 0 and len(model.calls) == 3
    assert [s.source for s in steps] == ["asked"] * 3
    assert len(entry_files(tmp_path)) == 1

    again = PagesDriver(shop_pages())
    outcome, model, steps = run(tmp_path, again, [])
    assert outcome.exit_code == 0 and outcome.message == "The blue one is in the cart."
    assert model.calls == []
    assert [s.source for s in steps] == ["replayed"] * 3
    assert [s.action for s in steps][:2] == ["Click(point=(500, 100))",
                                               "Click(point=(750, 700))"]
    assert len(again.performed) == 2
    assert steps[0].raw == ("<think>Open the blue one.</think>\n"
                               "<action>Click(point=(500, 100))</action>")
    assert all(s.verdict["decision"] == "allow" for s in steps)  # the guard judged each


def test_the_model_takes_over_where_the_screen_differs_with_the_history_so_far(tmp_path):
    run(tmp_path, PagesDriver(shop_pages()), ANSWERS)
    changed = shop_pages()
    changed[1] = Page([(20, 20, 200, 100), (20, 150, 380, 240)],  # a new layout at step 2
                      Element(name="Add to cart", role="button"))
    new_click = said("Click(point=(500, 780))", "The button moved.")
    outcome, model, steps = run(tmp_path, PagesDriver(changed), [new_click, ANSWERS[2]])
    assert outcome.exit_code == 0
    assert [s.source for s in steps] == ["replayed", "asked", "asked"]
    first_question = model.calls[0]
    history = [m.text for m in first_question if m.role == "assistant"]
    assert history == ["<think>Open the blue one.</think>\n"
                       "<action>Click(point=(500, 100))</action>"]
    # the entry now holds the new way, so the next run replays all of it
    outcome, model, steps = run(tmp_path, PagesDriver(changed), [])
    assert outcome.exit_code == 0 and model.calls == []
    assert steps[1].action == "Click(point=(500, 780))"


def test_a_renamed_target_is_not_clicked_from_the_cache(tmp_path):
    run(tmp_path, PagesDriver(shop_pages()), ANSWERS)
    renamed = shop_pages()
    renamed[1].element = Element(name="Add to wishlist", role="button")
    outcome, model, steps = run(tmp_path, PagesDriver(renamed), ANSWERS[1:])
    assert outcome.exit_code == 0 and len(model.calls) == 2
    assert [s.source for s in steps] == ["replayed", "asked", "asked"]


def test_a_replayed_payment_is_still_confirmed(tmp_path):
    pages = shop_pages()
    pages[1].element = Element(name="Pay now", role="button")
    approved = SafetyOptions(allow_categories=("payment",), config={})
    outcome, _, steps = run(tmp_path, PagesDriver(pages), ANSWERS, safety=approved)
    assert outcome.exit_code == 0 and steps[1].verdict["category"] == "payment"

    unattended = PagesDriver(pages)
    outcome, model, steps = run(tmp_path, unattended, [], safety=SafetyOptions(config={}))
    assert outcome.exit_code == 3 and model.calls == []
    assert len(unattended.performed) == 1  # the click on "Blue" only; never the payment
    assert steps[-1].source == "replayed"
    assert steps[-1].verdict["decision"] == "confirm" and steps[-1].reply == "unanswered"


def test_an_answer_read_off_the_screen_needs_the_very_same_screen(tmp_path):
    def phone(price: str) -> PagesDriver:
        return PagesDriver([Page([(20, 20, 380, 60)], Element(name="Prices", role="button")),
                            Page([(20, 20, 380, 200)], note=price)], surface=Surface.MOBILE)

    asked = [said("Click(point=(500, 100))"), said("Answer(content='It costs 4.20')")]
    run(tmp_path, phone("4.20"), asked)
    outcome, model, steps = run(tmp_path, phone("4.20"), [])
    assert outcome.message == "It costs 4.20" and model.calls == []
    outcome, model, steps = run(tmp_path, phone("5.10"), [said("Answer(content='5.10')")])
    assert outcome.message == "5.10" and [s.source for s in steps] == ["replayed", "asked"]


def test_a_damaged_entry_warns_once_and_the_run_goes_on(tmp_path, capsys):
    run(tmp_path, PagesDriver(shop_pages()), ANSWERS)
    [entry] = entry_files(tmp_path)
    data = json.loads(entry.read_text())
    data["steps"][1]["answer"] = data["steps"][1]["answer"].replace("750, 700", "10, 10")
    entry.write_text(json.dumps(data))
    capsys.readouterr()
    driver = PagesDriver(shop_pages())
    outcome, model, steps = run(tmp_path, driver, ANSWERS)
    assert outcome.exit_code == 0 and len(model.calls) == 3
    assert [s.source for s in steps] == ["asked"] * 3
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "was edited or damaged" in warnings[0]
    assert "running without the trajectory cache" in warnings[0]
    assert "Traceback" not in warnings[0]


@pytest.mark.parametrize("damage", ["schema", "folder"])
def test_a_wrong_schema_or_an_unreadable_folder_warns_once(tmp_path, capsys, damage):
    if damage == "schema":
        run(tmp_path, PagesDriver(shop_pages()), ANSWERS)
        [entry] = entry_files(tmp_path)
        entry.write_text(entry.read_text().replace("venusctl.trajectory/1",
                                                   "venusctl.trajectory/9"))
        expected = "has schema 'venusctl.trajectory/9'"
    else:
        (tmp_path / "cache").write_text("a file where the cache folder should be")
        expected = "is not a folder"
    capsys.readouterr()
    outcome, model, _ = run(tmp_path, PagesDriver(shop_pages()), ANSWERS)
    assert outcome.exit_code == 0 and len(model.calls) == 3
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and expected in warnings[0], warnings


def test_only_successful_runs_are_stored(tmp_path):
    stuck = [said("Click(point=(500, 100))"), said("CallUser(content='Which size?')")]
    outcome, _, _ = run(tmp_path, PagesDriver(shop_pages()), stuck)
    assert outcome.exit_code == 3 and entry_files(tmp_path) == []
    outcome, _, _ = run(tmp_path, PagesDriver(shop_pages()), ANSWERS[:2],
                        settings=_settings(max_steps=2))
    assert outcome.exit_code == 1 and entry_files(tmp_path) == []
    outcome, _, _ = run(tmp_path, PagesDriver(shop_pages()), ANSWERS, dry_run=True)
    assert outcome.exit_code == 0 and entry_files(tmp_path) == []


def test_read_and_write_modes(tmp_path):
    outcome, _, _ = run(tmp_path, PagesDriver(shop_pages()), ANSWERS, mode=CacheMode.READ)
    assert outcome.exit_code == 0 and entry_files(tmp_path) == []
    run(tmp_path, PagesDriver(shop_pages()), ANSWERS, mode=CacheMode.WRITE)
    [entry] = entry_files(tmp_path)
    before = entry.read_text()
    outcome, model, steps = run(tmp_path, PagesDriver(shop_pages()), ANSWERS,
                                mode=CacheMode.WRITE)
    assert len(model.calls) == 3 and {s.source for s in steps} == {"asked"}
    assert json.loads(entry.read_text())["run_id"] != json.loads(before)["run_id"]
    outcome, model, _ = run(tmp_path, PagesDriver(shop_pages()), [], mode=CacheMode.READ)
    assert outcome.exit_code == 0 and model.calls == []
    outcome, model, _ = run(tmp_path, PagesDriver(shop_pages()), ANSWERS, mode=CacheMode.OFF)
    assert len(model.calls) == 3


def test_a_fully_cached_run_never_loads_the_local_model(tmp_path):
    run(tmp_path, PagesDriver(shop_pages()), ANSWERS)
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "venus-Q4_K_M.gguf").write_bytes(b"not a model at all")
    (folder / "mmproj-venus-f16.gguf").write_bytes(b"not a projector either")
    request = RunRequest(task=TASK, driver=DriverOptions(driver="web"),
                         runs_dir=tmp_path / "runs", output="quiet",
                         model=ModelOptions(model=str(folder / "venus-Q4_K_M.gguf")),
                         cache=CacheOptions(CacheMode.ON, tmp_path / "cache"))
    outcome = run_task(request, confirmer=NonInteractiveConfirmer(),
                       driver=PagesDriver(shop_pages()))
    assert outcome.exit_code == 0, outcome.message
    changed = shop_pages()
    changed[0] = Page([(0, 0, 400, 250)], Element(name="Blue", role="link"))
    outcome = run_task(request, confirmer=NonInteractiveConfirmer(), driver=PagesDriver(changed))
    assert outcome.exit_code == 5 and outcome.status == "model_error"  # now it had to load


@pytest.fixture
def file_keyring():
    yield from file_keyring_backend()


def test_a_typed_secret_is_stored_as_its_placeholder_only(tmp_path, file_keyring):
    value = "Zr7-cache-canary-551"
    SecretStore().set("shop_pw", value)
    pages = [Page([(20, 20, 380, 60)], Element(name="Password", role="textbox")),
             Page([(20, 20, 380, 230)])]
    answers = [said("Type(content='{{secret:shop_pw}}')"), said("Finished(content='in')")]
    allowed = SafetyOptions(allow_categories=("secret",), config={})
    driver = PagesDriver(pages)
    outcome, _, _ = run(tmp_path, driver, answers, safety=allowed)
    assert outcome.exit_code == 0 and driver.performed == [Type(value)]
    [entry] = entry_files(tmp_path)
    assert value not in entry.read_text() and "{{secret:shop_pw}}" in entry.read_text()
    replayed = PagesDriver(pages)
    outcome, model, steps = run(tmp_path, replayed, [], safety=allowed)
    assert outcome.exit_code == 0 and model.calls == [] and replayed.performed == [Type(value)]
    assert steps[0].source == "replayed"


def _settings(**values):
    from venusctl.loop.agent import AgentSettings

    return AgentSettings(**values)
