"""`venusctl mcp` over stdio, driven by the MCP SDK's own client, on real Chromium.

Each test starts the console script as an MCP server (the SDK spawns it), with
scripted answers for the model, against the local shop app.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.support.cli import VENUSCTL, write_answers

FILL = [
    "<think>The name field is first.</think><action>Click(point=(234, 150))</action>",
    "<think>Type the name.</think><action>Type(content='Ada Lovelace')</action>",
    "<think>Done.</think><action>Finished(content='The name is filled in')</action>",
]
ORDER = [
    "<think>The name field is first.</think><action>Click(point=(234, 150))</action>",
    "<think>Type the name.</think><action>Type(content='Ada Lovelace')</action>",
    "<think>Open the colour list.</think><action>Click(point=(156, 275))</action>",
    "<think>Green is option 1.</think><action>SelectOption(index=1)</action>",
    "<think>Submit.</think><action>Click(point=(161, 414))</action>",
    "<think>Check where we are.</think><action>GetUrl()</action>",
    "<think>Done.</think><action>Finished(content='Ordered a green one for Ada')</action>",
]


def server(tmp_path: Path, browser_path: str, answers: list[str]) -> StdioServerParameters:
    answers_file = write_answers(tmp_path / "answers.jsonl", answers)
    return StdioServerParameters(
        command=VENUSCTL,
        args=["mcp", "--model-file", str(answers_file), "--browser-path", browser_path,
              "--runs-dir", str(tmp_path / "runs")],
        env=dict(os.environ))


def call(params: StdioServerParameters, calls: list[tuple[str, dict[str, Any]]],
         elicit: Any = None) -> list[types.CallToolResult]:
    """Open one client session and make the calls in order."""
    results: list[types.CallToolResult] = []

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(
                read, write, elicitation_callback=elicit) as session:
            await session.initialize()
            for name, arguments in calls:
                results.append(await session.call_tool(name, arguments))

    anyio.run(main)
    return results


def data(result: types.CallToolResult) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content.get("result", result.structured_content)
    return json.loads(result.content[0].text)


def answering(action: str, approve: bool | None = None) -> Any:
    asked: list[str] = []

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        content = {"approve": approve} if approve is not None else None
        return types.ElicitResult(action=action, content=content)

    elicit.asked = asked  # type: ignore[attr-defined]
    return elicit


def order_call(shop) -> tuple[str, dict[str, Any]]:
    return ("do_task", {"task": "order a green one for Ada Lovelace", "driver": "web",
                        "options": {"url": shop.url + "/", "max_steps": 10}})


def test_tools_are_listed_and_a_full_task_runs(shop, browser_path, tmp_path):
    params = server(tmp_path, browser_path, FILL)

    async def main() -> list[str]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            return [tool.name for tool in listed.tools]

    assert sorted(anyio.run(main)) == ["act", "devices", "do_task", "ground", "runs",
                                       "screenshot"]
    (result, runs) = call(params, [
        ("do_task", {"task": "fill in the name", "driver": "web",
                     "options": {"url": shop.url + "/"}}),
        ("runs", {"limit": 5})])
    outcome = data(result)
    assert outcome["outcome"] == "finished" and outcome["exit_code"] == 0
    assert outcome["answer"] == "The name is filled in" and outcome["steps"] == 3
    assert (tmp_path / "runs" / outcome["run_id"] / "run.json").exists()
    assert [r["run_id"] for r in data(runs)] == [outcome["run_id"]]


def test_a_gated_payment_answered_yes_is_performed(shop, browser_path, tmp_path):
    elicit = answering("accept", approve=True)
    (result,) = call(server(tmp_path, browser_path, ORDER), [order_call(shop)], elicit)
    outcome = data(result)
    assert outcome["outcome"] == "finished", outcome
    assert shop.state.orders == [{"name": "Ada Lovelace", "colour": "Green"}]
    assert len(elicit.asked) == 1 and "Submit order" in elicit.asked[0]
    steps = (tmp_path / "runs" / outcome["run_id"] / "steps.jsonl").read_text().splitlines()
    assert json.loads(steps[4])["reply"] == "yes"


@pytest.mark.parametrize("action", ["accept", "decline"])
def test_a_gated_payment_answered_no_is_not_performed(shop, browser_path, tmp_path, action):
    elicit = answering(action, approve=False if action == "accept" else None)
    (result,) = call(server(tmp_path, browser_path, ORDER), [order_call(shop)], elicit)
    outcome = data(result)
    assert shop.state.orders == []
    assert len(elicit.asked) == 1
    steps = (tmp_path / "runs" / outcome["run_id"] / "steps.jsonl").read_text().splitlines()
    assert json.loads(steps[4])["reply"] == "no"
    assert "declined" in json.loads(steps[5])["feedback"]


def test_without_elicitation_the_payment_fails_closed_and_names_the_action(
        shop, browser_path, tmp_path):
    (result,) = call(server(tmp_path, browser_path, ORDER), [order_call(shop)])
    outcome = data(result)
    assert outcome["outcome"] == "needs_user" and outcome["exit_code"] == 3
    assert outcome["answer"] is None
    assert "needs the user" in outcome["message"] and "Submit order" in outcome["message"]
    assert shop.state.orders == []


def test_bad_arguments_are_clear_tool_errors_and_the_server_keeps_running(
        shop, browser_path, tmp_path):
    results = call(server(tmp_path, browser_path, FILL), [
        ("do_task", {"task": "x", "driver": "tablet"}),
        ("do_task", {"task": "x", "driver": "web", "options": {"colour": "green"}}),
        ("act", {"action": "Fly(to='moon')", "driver": "web",
                 "options": {"url": shop.url + "/"}}),
        ("act", {"action": "PressEnter()", "options": {"session": "nope"}}),
        ("screenshot", {"driver": "web", "options": {"url": shop.url + "/"}}),
    ])
    for bad in results[:4]:
        assert bad.is_error, bad
        text = bad.content[0].text
        assert "Traceback" not in text and 'File "' not in text, text
    assert "Input should be 'web', 'android' or 'desktop'" in results[0].content[0].text
    assert "colour" in results[1].content[0].text and "Extra inputs" in results[1].content[0].text
    assert "Fly" in results[2].content[0].text
    assert "no session named 'nope'" in results[3].content[0].text
    image = results[4]
    assert not image.is_error and image.content[0].type == "image"
    assert image.content[0].mime_type == "image/png" and len(image.content[0].data) > 1000


def test_secret_values_are_never_returned_or_logged(shop, browser_path, tmp_path,
                                                    file_keyring):
    from venusctl.safety.secrets import SecretStore

    SecretStore().set("pin", "Zq-4417-canary")
    answers = [
        "<action>Click(point=(234, 150))</action>",
        "<action>Type(content='{{secret:pin}}')</action>",
        "<action>Finished(content='I typed Zq-4417-canary for you')</action>",
    ]
    params = server(tmp_path, browser_path, answers)
    params.args += ["--allow-category", "secret", "-v"]
    errlog = (tmp_path / "server.log").open("w")

    async def main() -> list[types.CallToolResult]:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(
                read, write) as session:
            await session.initialize()
            return [await session.call_tool("do_task", {
                "task": "type the pin", "driver": "web", "options": {"url": shop.url + "/"}}),
                    await session.call_tool("runs", {})]

    results = anyio.run(main)
    errlog.close()
    outcome = data(results[0])
    assert outcome["outcome"] == "finished", outcome
    assert outcome["answer"] == "I typed [secret:pin] for you"
    for result in results:
        assert "Zq-4417-canary" not in json.dumps([c.model_dump() for c in result.content])
    assert "Zq-4417-canary" not in (tmp_path / "server.log").read_text()


def test_streamable_http_serves_on_loopback_and_fails_closed_without_a_back_channel(
        shop, browser_path, tmp_path):
    import socket
    import subprocess
    import time

    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    params = server(tmp_path, browser_path, ORDER)
    process = subprocess.Popen([params.command, *params.args, "--http", "--port", str(port)],
                               env=params.env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)

        async def main() -> types.CallToolResult:
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (
                    read, write), ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool(*order_call(shop))

        outcome = data(anyio.run(main))
    finally:
        process.terminate()
        process.wait(30)
    assert outcome["outcome"] == "needs_user" and "Submit order" in outcome["message"]
    assert shop.state.orders == []
