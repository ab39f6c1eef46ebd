"""Conformance: venusctl speaks UI-Venus-2's trained interface, fact by fact.

For each surface a 3-step run goes through the real session (`run_task`: profile,
prompt, message layout, sampling) twice: once into a recording local backend (the
messages and decoding options llama.cpp would get) and once into the server backend
over a mock transport (the exact JSON body). Each fact of the authors' per-surface
profile (shared/docs/model-interface.md, `venusctl.interface.profile`) has its own test, named
after it; the expected values are written out here from the authors' harness
(inclusionAI/UI-Venus at 81945ac), not read back from venusctl's profile.
"""

from __future__ import annotations

import base64
import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from PIL import Image

from tests.support.fakes import FakeDriver
from venusctl.core.actions import Surface
from venusctl.core.grid import ScreenSize
from venusctl.drivers.base import Screen
from venusctl.drivers.factory import DriverOptions
from venusctl.model.base import Completion, ImagePart, Message, SamplingOptions, TextPart
from venusctl.model.grounding import ground
from venusctl.model.scripted import ScriptedModel
from venusctl.model.server import ServerModel, ServerSettings
from venusctl.run.build import ModelOptions, RunRequest, run_task
from venusctl.safety.confirm import NonInteractiveConfirmer

M, D, B = Surface.MOBILE, Surface.DESKTOP, Surface.BROWSER
SURFACES = [M, D, B]
BACKENDS = ["local", "server"]
SIZES = {M: (1080, 2400), D: (1920, 1080), B: (1024, 768)}
ANSWERS = {
    M: ["<think>Open the search.</think>\n<action>Click(point=(500, 80))</action>",
        "<think>Type it.</think>\n<action>Type(content='Joe's Pizza')</action>",
        "<think>Done.</think>\n<action>Finished(content='found it')</action>"],
    D: ["<think>Select the field.</think>\n<action>TripleClick(box=(400, 300))</action>",
        "<think>Save.</think>\n<action>Hotkey(keys=['ctrl', 's'])</action>",
        "<think>Done.</think>\n<action>Finished(content='saved')</action>"],
    B: ["<action>Click(point=(500, 80))</action>",
        "<action>TakeNote(content='Price: 42 EUR')</action>",
        "<action>Finished(content='42 EUR')</action>"],
}
SIGNATURES = {
    M: ["Click(point=(x1, y1))", "Drag(start=(x1, y1), end=(x2, y2))",
        "Swipe(start=(x1, y1), end=(x2, y2))", "DoubleClick(point=(x1, y1))",
        "LongPress(point=(x1, y1))", "Type(content='')", "LaunchApp(app='')", "Wait()",
        "CallUser(content='')", "GetScreenshot()", "PressBack()", "PressHome()", "PressEnter()",
        "PressRecent()", "Answer(content='')", "Finished(content='')"],
    D: ["Click(box=(x1, y1)), or Click()", "DoubleClick(box=(x1, y1)), or DoubleClick()",
        "TripleClick(box=(x1, y1)), or TripleClick()", "RightClick(box=(x1, y1)), or RightClick()",
        "MiddleClick(box=(x1, y1)), or MiddleClick()", "Hover(box=(x1, y1))",
        "Drag(end=(x2, y2), start=(x1, y1))", "Swipe(amount=-5, axis='vertical')",
        "Type(content='')", "Hotkey(keys=['ctrl', 'c'], repeat=1)", "KeyDown(keys=['shift'])",
        "KeyUp(keys=['shift'])", "MouseDown(box=(x1, y1)), or MouseDown()",
        "MouseUp(box=(x1, y1)), or MouseUp()",
        "Sequence(actions=[Click(box=(x1, y1)), Hotkey(keys=['ctrl', 's'])])", "Wait()",
        "CallUser(content='')", "Finished(content='')"],
    # models/browser/venus_browser.py, with Upload and Download where the authors'
    # browser extension (Venus_plugin_browser/prompts/venus_system.txt) lists them
    B: ["Click(point=(x1,y1))", "Drag(start=(x1,y1), end=(x2,y2))",
        "Scroll(point=(x1, y1), direction='up/down/left/right')", "Type(content='')",
        "Launch(url='')", "Wait()", "GetUrl()", "Finished(content='')", "TakeNote(content='')",
        "CallUser(content='')", "LongPress(point=(x1,y1), duration=20)", "PressBack()",
        "PressHome()", "PressEnter()", "Upload(file='relative/path/in/workspace.pdf')",
        "Download(filename='model-chosen-name.pdf')", "Hover(point=(x1,y1))",
        "DoubleClick(point=(x1,y1))", "Hotkey(keys=('ctrl', 'c'))", "SelectOption(index=3)"],
}
HEADINGS = {
    M: ["### Available Actions", "### Instructions", "### Output Format", "### User Task"],
    D: ["### Available Actions", "### Instructions", "### Output Format", "### User Task"],
    B: ["### Available Actions", "### Instruction", "# Very Important", "### Output Format",
        "### User Task"],
}
IDENTITY = {M: "**You are a GUI Agent.**", D: "**You are a GUI Agent.**",
            B: "**You are a GUI Browser Agent.**"}
OUTPUT_FORMAT = "### Output Format\n<think> your thinking process </think>\n" \
                "<action> the next action </action>\n\n### User Task\n"
TASK = "find a pizza place and note the price"


# ----------------------------------------------------------------- the runs


@dataclass
class Run:
    """What one backend received during a 3-step run on one surface."""

    messages: list[list[Message]] = field(default_factory=list)
    options: list[SamplingOptions] = field(default_factory=list)
    bodies: list[dict] = field(default_factory=list)
    screens: list[bytes] = field(default_factory=list)


class ScreenDriver(FakeDriver):
    """A fake surface with screenshots of a real screen's size, each one different."""

    def screenshot(self) -> Screen:
        self.shots += 1
        width, height = self.size.width, self.size.height
        buffer = io.BytesIO()
        Image.new("RGB", (width, height), (self.shots * 50 % 256, 90, 140)).save(buffer, "PNG")
        return Screen(buffer.getvalue(), "image/png", self.size, self.context_value)


class RecordingLocal(ScriptedModel):
    """The messages and options a local backend is asked with."""

    def __init__(self, answers: list[str], run: Run) -> None:
        super().__init__([Completion(text=a) for a in answers], name="recorded")
        self.run = run

    def complete(self, messages, options, on_text=None):  # type: ignore[no-untyped-def]
        self.run.messages.append(messages)
        self.run.options.append(options)
        return super().complete(messages, options, on_text)


def server_model(surface: Surface, answers: list[str], run: Run) -> ServerModel:
    queue = list(answers)

    def handle(request: httpx.Request) -> httpx.Response:
        run.bodies.append(json.loads(request.content))
        event = {"choices": [{"index": 0, "delta": {"content": queue.pop(0)}}]}
        return httpx.Response(200, text=f"data: {json.dumps(event)}\n\ndata: [DONE]\n\n",
                              headers={"content-type": "text/event-stream"})

    client = httpx.Client(transport=httpx.MockTransport(handle))
    return ServerModel(ServerSettings(url="http://127.0.0.1:9/v1", model="UI-Venus-2"),
                       surface, client=client)


def run_once(surface: Surface, backend: str, tmp_path: Path) -> Run:
    run = Run()
    driver = ScreenDriver(surface=surface, size=ScreenSize(*SIZES[surface]),
                          feedback={"Click": "Clicked the search box."})
    original = driver.screenshot

    def remembered() -> Screen:
        screen = original()
        run.screens.append(screen.data)
        return screen

    driver.screenshot = remembered  # type: ignore[method-assign]
    model = (RecordingLocal(ANSWERS[surface], run) if backend == "local"
             else server_model(surface, ANSWERS[surface], run))
    request = RunRequest(task=TASK, driver=DriverOptions(driver="fake"), confirm="never",
                         assume_yes=True, runs_dir=tmp_path / "runs", output="quiet",
                         model=ModelOptions(interface="authors"))
    outcome = run_task(request, confirmer=NonInteractiveConfirmer(), driver=driver, model=model)
    assert outcome.status == "finished", outcome.message
    if backend == "server":
        run.messages = [[_from_wire(m) for m in body["messages"]] for body in run.bodies]
    return run


def _from_wire(message: dict) -> Message:
    content = message["content"]
    if isinstance(content, str):
        return Message(message["role"], (TextPart(content),))
    parts = []
    for part in content:
        if part["type"] == "text":
            parts.append(TextPart(part["text"]))
        else:
            head, data = part["image_url"]["url"].split(",", 1)
            parts.append(ImagePart(base64.b64decode(data), head[5:].split(";")[0]))
    return Message(message["role"], tuple(parts))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[Surface, str], Run]:
    with pytest.MonkeyPatch.context() as patch:
        base = tmp_path_factory.mktemp("conformance")
        for name in ("VENUSCTL_RUNS_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
            patch.setenv(name, str(base / name.lower()))
        return {(s, b): run_once(s, b, base / f"{s.value}-{b}") for s in SURFACES
                for b in BACKENDS}


def system(run: Run) -> str:
    return run.messages[0][0].text


def step3(run: Run) -> list[Message]:
    return run.messages[2]


both = pytest.mark.parametrize("backend", BACKENDS)
each = pytest.mark.parametrize("surface", SURFACES, ids=lambda s: s.value)


# ------------------------------------------------------------ prompt structure


@each
@both
def test_identity_line(runs, surface, backend):
    first_line = system(runs[surface, backend]).splitlines()[0]
    assert first_line.startswith(IDENTITY[surface])
    if surface is not M:
        assert first_line == IDENTITY[surface]  # desktop and browser: alone on line 1


@each
@both
def test_headings_and_their_order(runs, surface, backend):
    text = system(runs[surface, backend])
    found = [line for line in text.splitlines() if line.startswith("#")]
    assert found == HEADINGS[surface]


@each
@both
def test_signature_lines_exactly_and_in_order(runs, surface, backend):
    text = system(runs[surface, backend])
    block = text.split("### Available Actions\n", 1)[1].split("\n### ", 1)[0]
    signatures = [line[2:] for line in block.splitlines() if line.startswith("- ")]
    assert signatures == SIGNATURES[surface]


@each
@both
def test_each_signature_line_is_followed_by_one_description_line(runs, surface, backend):
    text = system(runs[surface, backend])
    lines = text.split("### Available Actions\n", 1)[1].split("\n### ", 1)[0].splitlines()
    for index, line in enumerate(lines):
        if line.startswith("- "):
            assert lines[index + 1].startswith("> ") and len(lines[index + 1]) > 10, line
    blank_between = lines[lines.index("- " + SIGNATURES[surface][0]) + 2] == ""
    assert blank_between is (surface is M)  # the mobile prompt spaces its actions out


def test_no_long_press_on_the_desktop(runs):
    assert "LongPress" not in system(runs[D, "local"])


@each
@both
def test_output_format_block_then_the_task_last(runs, surface, backend):
    text = system(runs[surface, backend])
    assert OUTPUT_FORMAT + TASK in text
    assert text.rstrip("\n").endswith("### User Task\n" + TASK)
    assert text.count(TASK) == 1  # the task is not repeated elsewhere


@each
def test_safety_lines_come_after_the_instructions(runs, surface):
    text = system(runs[surface, "local"])
    instructions = text.index(HEADINGS[surface][1])
    safety = text.index("ask the person with CallUser unless the task clearly says")
    assert instructions < safety < text.index("### Output Format")


def test_browser_date_in_iso_form(runs):
    assert re.search(r"^- Today is \d{4}-\d{2}-\d{2}\.$", system(runs[B, "local"]), re.M)


def test_desktop_second_line_states_the_password_choice(runs):
    second = system(runs[D, "local"]).splitlines()[1]
    assert "No password for this machine is known" in second


@pytest.mark.parametrize(("surface", "points"), [
    (M, ["LaunchApp", "CallUser", "Answer", "Swipe", "copy", "paste",
         "earlier steps may not have done"]),
    (D, ["one single action per turn", "`Sequence`", "newline", "`TripleClick`", "`Hover`",
         "`RightClick`", "`KeyDown`", "`Wait()`", "`repeat`", "`Swipe` is the only way to scroll",
         "1,024 characters", "ctrl+c", "`Finished` only once"]),
    (B, ["Today is", "`TakeNote", "filters", "short, plain words", "404", "never `Type` into a "
         "button", "do not repeat it", "`Wait()` several times", "Upload(file=", "Download("]),
], ids=lambda v: v.value if isinstance(v, Surface) else "points")
def test_instruction_points_are_covered(runs, surface, points):
    text = system(runs[surface, "local"])
    for point in points:
        assert point in text, point


# ------------------------------------------------------------ message layout


@each
@both
def test_current_screenshot_label_and_image(runs, surface, backend):
    current = step3(runs[surface, backend])[-1]
    assert current.role == "user" and isinstance(current.parts[-1], ImagePart)
    if surface is B:  # the browser's user message: feedback, notes, image; no label
        assert all(p.text != "Current Screenshot:\n" for p in current.parts
                   if isinstance(p, TextPart))
    else:
        assert current.parts[-2] == TextPart("Current Screenshot:\n")


@each
@both
def test_history_screenshots_resent_for_the_last_two_steps(runs, surface, backend):
    users = [m for m in step3(runs[surface, backend]) if m.role == "user"]
    assert [len(u.images) for u in users] == [1, 1, 1]


@each
@both
def test_history_screenshot_label(runs, surface, backend):
    earlier = [m for m in step3(runs[surface, backend]) if m.role == "user"][:-1]
    labels = [p.text for m in earlier for p in m.parts if isinstance(p, TextPart)]
    expected = {M: "History Screenshot:", D: "History Screenshot:\n", B: None}[surface]
    if expected is None:
        assert not any("Screenshot" in label for label in labels)
    else:
        assert labels.count(expected) == 2


@each
@both
def test_earlier_answers_are_kept_as_assistant_messages(runs, surface, backend):
    assistants = [m.text for m in step3(runs[surface, backend]) if m.role == "assistant"]
    # the full answers, `<think>…</think>\n<action>…</action>`; the browser's, given
    # without thinking, exactly as they came (no empty think block added)
    assert assistants == ANSWERS[surface][:2]


@both
def test_browser_keeps_only_the_last_two_turns_whole(runs, backend):
    run = runs[B, backend]
    step2 = run.messages[1]
    step3_messages = run.messages[2]
    # step 3 resends step 2's first user message exactly as it was sent then
    assert step3_messages[1] == step2[1] and step3_messages[3] == step2[3]
    assert [m.role for m in step3_messages] == ["system", "user", "assistant", "user",
                                                "assistant", "user"]


@both
def test_browser_notes_label(runs, backend):
    current = step3(runs[B, backend])[-1]
    assert TextPart("Notes from earlier steps:\n- Price: 42 EUR\n") in current.parts


@each
@both
def test_feedback_opens_the_next_user_message(runs, surface, backend):
    step2_user = runs[surface, backend].messages[1][-1]
    if surface is D:  # TripleClick gets no feedback from the fake surface
        assert step2_user.parts[0] == TextPart("Current Screenshot:\n")
    else:
        assert step2_user.parts[0] == TextPart("Clicked the search box.\n")


# ------------------------------------------------------------ images


@each
@both
def test_images_unresized_png(runs, surface, backend):
    run = runs[surface, backend]
    sent = [p for m in step3(run) for p in m.parts if isinstance(p, ImagePart)]
    assert [p.data for p in sent] == run.screens[:3]  # the captured bytes, untouched
    for part in sent:
        assert part.mime == "image/png"
        assert Image.open(io.BytesIO(part.data)).size == SIZES[surface]
    if backend == "server":
        urls = [c["image_url"]["url"] for m in run.bodies[2]["messages"]
                if isinstance(m["content"], list) for c in m["content"]
                if c["type"] == "image_url"]
        assert all(u.startswith("data:image/png;base64,") for u in urls)


# ------------------------------------------------------------ decoding


EXPECTED_SAMPLING = {
    # temperature, top_p (None: not sent), repetition, frequency, max tokens, thinking
    M: (0.0, None, 1.05, 0.3, 16384, True),
    D: (0.0, 0.7, None, None, 4096, True),
    B: (0.0, None, None, None, 4096, False),
}


@each
@both
def test_thinking_flag(runs, surface, backend):
    thinking = EXPECTED_SAMPLING[surface][5]
    run = runs[surface, backend]
    if backend == "local":
        assert all(o.thinking is thinking for o in run.options)
    else:
        for body in run.bodies:  # the authors send it only to turn thinking off
            assert body.get("chat_template_kwargs") == (
                None if thinking else {"enable_thinking": False})


@each
@both
def test_temperature(runs, surface, backend):
    run = runs[surface, backend]
    values = [o.temperature for o in run.options] or [b["temperature"] for b in run.bodies]
    assert values == [EXPECTED_SAMPLING[surface][0]] * 3


@each
@both
def test_top_p(runs, surface, backend):
    expected = EXPECTED_SAMPLING[surface][1]
    run = runs[surface, backend]
    if backend == "local":
        assert all(o.top_p == (expected or 1.0) for o in run.options)
    else:
        assert all(b.get("top_p") == expected for b in run.bodies)


@each
@both
def test_repetition_penalty(runs, surface, backend):
    expected = EXPECTED_SAMPLING[surface][2]
    run = runs[surface, backend]
    if backend == "local":
        assert all(o.repeat_penalty == (expected or 1.0) for o in run.options)
    else:
        assert all(b.get("repetition_penalty") == expected for b in run.bodies)


@each
@both
def test_frequency_penalty(runs, surface, backend):
    expected = EXPECTED_SAMPLING[surface][3]
    run = runs[surface, backend]
    if backend == "local":
        assert all(o.frequency_penalty == (expected or 0.0) for o in run.options)
    else:
        assert all(b.get("frequency_penalty") == expected for b in run.bodies)


@each
@both
def test_max_tokens(runs, surface, backend):
    run = runs[surface, backend]
    values = [o.max_tokens for o in run.options] or [b["max_tokens"] for b in run.bodies]
    assert values == [EXPECTED_SAMPLING[surface][4]] * 3


@each
def test_exact_server_request_body_keys(runs, surface):
    for body in runs[surface, "server"].bodies:
        expected = {"model", "messages", "max_tokens", "temperature", "stream",
                    "stream_options"}
        expected |= {M: {"repeat_penalty", "repetition_penalty", "frequency_penalty"},
                     D: {"top_p"}, B: {"chat_template_kwargs"}}[surface]
        assert set(body) == expected
        assert body["model"] == "UI-Venus-2" and body["stream"] is True


@each
def test_local_and_server_backends_get_the_same_conversation(runs, surface):
    local, server = runs[surface, "local"], runs[surface, "server"]
    assert local.messages == server.messages


# ------------------------------------------------------------ grounding


def test_grounding_one_user_message_image_then_instruction_thinking_off():
    calls: list[tuple[list[Message], SamplingOptions]] = []

    class Recorder(ScriptedModel):
        def complete(self, messages, options, on_text=None):  # type: ignore[no-untyped-def]
            calls.append((messages, options))
            return super().complete(messages, options, on_text)

    image = ImagePart(b"\x89PNG fake", "image/png")
    model = Recorder([Completion(text="[120,45]")])
    result = ground(model, image, ScreenSize(1000, 1000), "the Search button.")
    [(messages, options)] = calls
    assert [m.role for m in messages] == ["user"]
    assert messages[0].parts[0] == image and isinstance(messages[0].parts[1], TextPart)
    text = messages[0].parts[1].text
    assert "\nthe Search button. \n\n" in text  # trailing full stop dropped, then the template's
    assert "[x,y]" in text and "[-1,-1]" in text
    assert (options.thinking, options.temperature, options.max_tokens) == (False, 0.0, 1024)
    assert result.grid == (120, 45)
