"""The live view driven by textual's own pilot through whole scripted runs."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path

from textual.widgets import Static

from tests.support.fakes import FakeDriver
from venusctl.core.errors import ExitCode
from venusctl.drivers.base import Element
from venusctl.drivers.factory import DriverOptions
from venusctl.loop.agent import AgentSettings
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.run.build import ModelOptions, RunRequest, run_task
from venusctl.safety.confirm import Reply
from venusctl.tui.app import LiveApp, ScreenView
from venusctl.tui.bridge import Control
from venusctl.tui.modals import ConfirmScreen, QuestionScreen

ANSWERS = [
    "<think>Open the name field.</think><action>Click(point=(300, 200))</action>",
    "<think>Type the name.</think><action>Type(content='Ada')</action>",
    "<think>Ask which colour.</think><action>CallUser(content='Which colour?')</action>",
    "<think>All done.</think><action>Finished(content='ordered')</action>",
]


def make_app(tmp_path: Path, answers: list[str], start_paused: bool = True):
    model = ScriptedModel([Completion(text=a) for a in answers])
    driver = FakeDriver(element=Element(role="textbox", name="Your name",
                                        bounds=(250, 80, 200, 40)))
    request = RunRequest(task="order for Ada", driver=DriverOptions(driver="fake"),
                         settings=AgentSettings(max_steps=8), runs_dir=tmp_path / "runs",
                         output="quiet", confirm="all")

    def runner(bridge):
        return run_task(dataclasses.replace(request), confirmer=bridge, observers=[bridge],
                        gate=bridge, driver=driver, model=model)

    app = LiveApp(runner, request.task, 8, Control(start_paused=start_paused))
    return app, model, driver


async def wait_for(pilot, condition: Callable[[], bool], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out waiting for the live view"
        await pilot.pause(0.02)


def status(app: LiveApp) -> str:
    return str(app.query_one("#status", Static).content)


def test_full_run_with_pause_confirmation_question_and_step(tmp_path):
    app, model, driver = make_app(tmp_path, ANSWERS)

    async def drive() -> None:
        async with app.run_test(size=(140, 45)) as pilot:
            await wait_for(pilot, lambda: "paused before step 1" in status(app))
            assert model.calls == []  # paused: nothing asked yet
            await pilot.press("s")  # one step: a Click, which the confirm-all guard gates
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            text = str(app.screen.query_one("#confirm-text", Static).content)
            assert "click point (300, 200)" in text and "Your name" in text
            await pilot.press("y")
            await wait_for(pilot, lambda: len(app.steps) == 1)
            await wait_for(pilot, lambda: "paused before step 2" in status(app))
            assert len(model.calls) == 1 and len(driver.performed) == 1
            assert app.query_one("#screen", ScreenView).picture is not None
            await pilot.press("p")  # resume: Type is gated too, answered with "always"
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("a")
            await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen))
            await pilot.press(*"red", "enter")
            await wait_for(pilot, lambda: app.work_done)
            assert "finished after 4 step(s): ordered" in status(app)
            assert "step 4/8" in str(app.query_one("#header", Static).content)
            await pilot.press("q")

    asyncio.run(drive())
    assert app.return_value is not None and app.return_value.exit_code == ExitCode.FINISHED
    assert [s["reply"] for s in app.steps[:3]] == ["yes", "always", "red"]
    assert "The user replied: red" in model.calls[3][-1].text


def test_take_over_holds_the_loop_and_tells_the_model(tmp_path):
    app, model, _driver = make_app(tmp_path, [ANSWERS[3]])

    async def drive() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: "paused" in status(app))
            await pilot.press("t")
            assert "taken over" in status(app)
            await pilot.press("p")  # resuming does not end a take-over
            await pilot.pause(0.3)
            assert model.calls == []
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.work_done)
            await pilot.press("q")

    asyncio.run(drive())
    assert "took over the screen and has handed it back" in model.calls[0][-1].text
    assert app.return_value.exit_code == ExitCode.FINISHED


def test_abort_exits_130_and_closes_the_record(tmp_path):
    app, model, driver = make_app(tmp_path, ANSWERS)

    async def drive() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: "paused" in status(app))
            await pilot.press("q")
            await wait_for(pilot, lambda: app.work_done or not app.is_running)

    asyncio.run(drive())
    assert app.return_value.exit_code == ExitCode.INTERRUPTED
    assert driver.closed and model.calls == []


def test_confirmation_take_over_reply_waits_for_enter(tmp_path):
    app, model, driver = make_app(tmp_path, [ANSWERS[0], ANSWERS[3]], start_paused=False)

    async def drive() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            await pilot.press("t")
            await wait_for(pilot, lambda: "taken over" in status(app))
            await pilot.pause(0.2)
            assert len(model.calls) == 1
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.work_done)
            await pilot.press("q")

    asyncio.run(drive())
    assert driver.performed == []  # the click was never performed
    assert app.steps[0]["reply"] == Reply.TAKEOVER.value
    assert app.return_value.exit_code == ExitCode.FINISHED


def test_live_view_of_a_real_browser_run(tmp_path, shop, answers_file):
    from tests.support.tools import chromium

    request = RunRequest(
        task="order a red one for Ada", settings=AgentSettings(max_steps=10),
        driver=DriverOptions(driver="web", url=shop.url + "/", browser_path=chromium()),
        model=ModelOptions(answers=answers_file), runs_dir=tmp_path / "runs", confirm="all")

    def runner(bridge):
        return run_task(dataclasses.replace(request, output="quiet"), confirmer=bridge,
                        observers=[bridge], gate=bridge)

    app = LiveApp(runner, request.task, 10)

    async def drive() -> None:
        async with app.run_test(size=(140, 45)) as pilot:
            answered = 0
            while not app.work_done:
                await wait_for(pilot, lambda: app.work_done
                               or isinstance(app.screen, ConfirmScreen), timeout=60)
                if isinstance(app.screen, ConfirmScreen):
                    await pilot.press("y")
                    answered += 1
                    await pilot.pause(0.05)
            assert answered >= 3  # click, type, click (scrolling may be allowed)
            picture = app.query_one("#screen", ScreenView).picture
            assert picture is not None and picture.width > 100
            await pilot.press("q")

    asyncio.run(drive())
    assert app.return_value.exit_code == ExitCode.FINISHED
    assert shop.state.orders == [{"name": "Ada Lovelace", "colour": "Red"}]
    assert [s["step"] for s in app.steps] == [1, 2, 3, 4, 5]
