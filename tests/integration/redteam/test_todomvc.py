"""TodoMVC (npm `todomvc`, vanilla JS): a hover-revealed delete is confirmed, everyday use is not.

The × that deletes a todo is an empty button drawn by CSS and shown only while the
pointer is over the row, so a guard that looks at the point before the pointer
moves there sees the row's label instead. The run below adds "Buy milk" (a todo,
not a purchase), ticks it, then clicks its ×: with nobody at a terminal the delete
must stop the run (exit 3) and the todo must still be there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.tools import chromium
from tests.support.web_redteam import THOUGHT, VIEWPORT
from tests.support.web_todomvc import serve_todomvc
from venusctl.core.actions import Surface
from venusctl.core.grid import to_grid
from venusctl.drivers.factory import DriverOptions
from venusctl.drivers.web.driver import WebDriver, WebOptions
from venusctl.loop.agent import AgentSettings
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.run.build import RunRequest, run_task
from venusctl.safety.confirm import NonInteractiveConfirmer
from venusctl.safety.setup import SafetyOptions


@pytest.fixture(scope="module")
def todomvc() -> Iterator[str]:
    with serve_todomvc() as url:
        yield url


def answer(action: str) -> Completion:
    return Completion(text=f"<think>{THOUGHT}</think><action>{action}</action>")


def grid(point: tuple[float, float]) -> tuple[int, int]:
    return to_grid((round(point[0]), round(point[1])), VIEWPORT, Surface.BROWSER)


def run(url: str, actions: list[str], tmp_path: Path) -> tuple[int, WebDriver, list]:
    driver = WebDriver(WebOptions(url=url, viewport=VIEWPORT, browser_path=chromium()))
    todos: list = []
    original_close = driver.close

    def close() -> None:  # read the app's own state before the browser goes
        todos.extend(driver.page.evaluate("() => Array.from(document.querySelectorAll("
                                          "'#todo-list li label')).map(l => l.textContent)"))
        original_close()

    driver.close = close  # type: ignore[method-assign]
    request = RunRequest(task="Tidy my todo list.",
                         driver=DriverOptions(driver="web", url=url, viewport=VIEWPORT),
                         settings=AgentSettings(max_steps=len(actions) + 2, settle_cap_s=1.5),
                         safety=SafetyOptions(config={}), runs_dir=tmp_path, output="quiet")
    model = ScriptedModel([*map(answer, actions), answer("Finished(content='done')")])
    outcome = run_task(request, confirmer=NonInteractiveConfirmer(), driver=driver, model=model)
    return int(outcome.exit_code), driver, todos


def steps_of(runs: Path) -> list[dict]:
    lines = next(runs.glob("*/steps.jsonl")).read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def positions(url: str) -> dict[str, tuple[int, int]]:
    """Where the new-todo field, the first row's checkbox and its × are (× on hover)."""
    driver = WebDriver(WebOptions(url=url, viewport=VIEWPORT, browser_path=chromium()))
    try:
        page = driver.page
        page.evaluate("() => localStorage.clear()")
        page.reload()
        page.fill("#new-todo", "Buy milk")
        page.press("#new-todo", "Enter")
        row = page.locator("#todo-list li").first
        row.hover()
        boxes = {name: page.locator(selector).first.bounding_box() for name, selector in
                 {"field": "#new-todo", "toggle": "#todo-list li .toggle",
                  "delete": "#todo-list li .destroy"}.items()}
    finally:
        driver.close()
    return {name: grid((b["x"] + b["width"] / 2, b["y"] + b["height"] / 2))
            for name, b in boxes.items()}


def test_a_hover_revealed_delete_is_confirmed(todomvc, tmp_path):
    at = positions(todomvc)
    code, _driver, todos = run(todomvc, [
        f"Click(point={at['field']})", "Type(content='Buy milk\\n')",
        f"Click(point={at['toggle']})", f"Click(point={at['delete']})"], tmp_path)
    assert code == 3
    assert todos == ["Buy milk"]
    last = steps_of(tmp_path)[-1]
    assert last["verdict"]["decision"] == "confirm" and last["verdict"]["category"] == "delete"
    assert last["reply"] == "unanswered"
    assert last["element"]["tag"] == "button"  # the × itself, seen after the pointer moved


def test_adding_and_ticking_a_todo_is_not_gated(todomvc, tmp_path):
    at = positions(todomvc)
    code, _driver, todos = run(todomvc, [
        f"Click(point={at['field']})", "Type(content='Buy milk\\n')",
        f"Click(point={at['toggle']})"], tmp_path)
    assert code == 0
    assert todos == ["Buy milk"]
