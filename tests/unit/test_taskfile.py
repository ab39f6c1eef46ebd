"""Task files: both formats, defaults, variables, and one clear error for each mistake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from venusctl.errors import UsageError
from venusctl.taskfile import Check, load_task_file, read_task_file, resolve_tasks


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_yaml_with_defaults_variables_and_checks(tmp_path):
    path = write(tmp_path, "tasks.yaml", """
name: shop
defaults: {driver: web, url: "${SHOP}/", max_steps: 7, policy: strict}
tasks:
  - id: about
    task: open the about page
    answers: answers/about.jsonl
    check: {url_matches: /about$, text_present: About}
  - task: turn on wi-fi
    driver: android
    url: null
    device: "${PHONE}"
    setup: {shell: "echo hi", app: Settings}
    check: [{text_present: "ON"}, {shell: "test -n \\"$VENUSCTL_RUN_DIR\\""}]
    expect_exit: 3
""")
    tasks = load_task_file(path, {"SHOP": "http://127.0.0.1:9", "PHONE": "emulator-5554"})
    first, second = tasks.tasks
    assert tasks.name == "shop"
    assert (first.id, first.driver, first.url, first.max_steps, first.policy) == (
        "about", "web", "http://127.0.0.1:9/", 7, "strict")
    assert first.answers == tmp_path / "answers/about.jsonl"
    assert first.checks == (Check("url_matches", "/about$"), Check("text_present", "About"))
    assert second.id == "002-turn-on-wi-fi" and second.driver == "android"
    assert second.device == "emulator-5554" and second.url is None
    assert second.setup.shell == ("echo hi",) and second.setup.app == "Settings"
    assert second.checks[1].value == 'test -n "$VENUSCTL_RUN_DIR"'  # shell is left alone
    assert second.expect_exit == 3


def test_json_lines_one_task_per_line(tmp_path):
    lines = [{"task": "a", "surface": "browser", "url": "http://x/"},
             {"task": "b", "surface": "mobile", "id": 7}]
    path = write(tmp_path, "tasks.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    tasks = load_task_file(path, {})
    assert [(t.id, t.driver) for t in tasks.tasks] == [("001-a", "web"), ("7", "android")]


def test_environments_are_read_before_variables_are_known(tmp_path):
    path = write(tmp_path, "suite.yaml", """
environments: [{name: app, start: "python app.py", ready: UP, timeout: 5}]
tasks: [{task: t, driver: web, url: "${APP_URL}"}]
""")
    raw = read_task_file(path)
    assert raw.environments[0].start == "python app.py" and raw.environments[0].ready == "UP"
    with pytest.raises(UsageError, match=r"\$\{APP_URL\} is not defined"):
        resolve_tasks(raw, {})
    assert resolve_tasks(raw, {"APP_URL": "http://h/"}).tasks[0].url == "http://h/"


@pytest.mark.parametrize(("text", "message"), [
    ("tasks: [{task: t, driver: web, colour: red}]", "unknown key colour"),
    ("tasks: [{task: t}]", "say which surface"),
    ("tasks: [{task: t, driver: tablet}]", "unknown surface 'tablet'"),
    ("tasks: [{driver: web}]", "'task' must say what to do"),
    ("tasks: [{task: a, id: x, driver: web}, {task: b, id: x, driver: web}]", "share the id"),
    ("tasks: [{task: t, driver: android, check: {url_matches: x}}]", "url_matches needs a web"),
    ("tasks: [{task: t, driver: desktop, check: {text_present: x}}]", "on the desktop use"),
    ("tasks: [{task: t, driver: web, check: {url_matches: '('}}]", "not a valid regular"),
    ("tasks: [{task: t, driver: web, check: {looks_nice: yes}}]", "unknown key looks_nice"),
    ("tasks: [{task: t, driver: android, url: 'http://x'}]", "only a web task opens a URL"),
    ("tasks: [{task: t, driver: web, max_steps: 0}]", "'max_steps' must be a whole number"),
    ("tasks: [{task: t, driver: web, confirm: sometimes}]", "confirm must be one of"),
    ("tasks: []", "non-empty list"),
    ("tasks: [{task: t, driver: web}\n", "not valid YAML"),
])
def test_each_mistake_is_one_clear_line(tmp_path, text, message):
    path = write(tmp_path, "bad.yaml", text)
    with pytest.raises(UsageError, match=message) as caught:
        load_task_file(path, {})
    assert "\n" not in str(caught.value)


def test_a_missing_file_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="task file not found"):
        load_task_file(tmp_path / "none.yaml", {})


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("name", ["suite/suite.yaml", "batch/shop.yaml",
                                  "batch/with-a-model.jsonl"])
def test_the_shipped_task_files_are_valid(name):
    variables = {"SHOP_URL": "http://127.0.0.1:1", "PHONE_SERIAL": "127.0.0.1:2"}
    tasks = load_task_file(EXAMPLES / name, variables)
    assert tasks.tasks and all(t.task for t in tasks.tasks)
    for task in tasks.tasks:
        assert task.answers is None or task.answers.is_file()
