"""Task files: both formats, defaults, variables, and one clear error for each mistake."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from venusctl.batch.taskfile import Check, load_task_file, read_task_file, resolve_tasks
from venusctl.core.errors import UsageError


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


def test_the_builtin_suite_is_valid():
    from venusctl.evals.suite import builtin_suite

    raw = read_task_file(builtin_suite())
    assert [e.name for e in raw.environments] == ["web", "desktop", "phone"]
    tasks = resolve_tasks(raw, {"SHOP_URL": "http://127.0.0.1:1", "PHONE_SERIAL": "s"})
    assert {t.driver for t in tasks.tasks} == {"web", "desktop", "android"}
    assert all(t.answers is not None and t.answers.is_file() and t.checks for t in tasks.tasks)


def test_a_builtin_environment_runs_venusctl_sim_with_its_options(tmp_path):
    path = write(tmp_path, "suite.yaml", """
environments:
  - web
  - {name: handset, sim: phone, options: {size: 720x1600, realistic: true}, timeout: 30}
  - {sim: Desktop, options: {size: 1920x1080}}
tasks: [{task: t, driver: web, url: "${SHOP_URL}"}]
""")
    web, phone, desktop = read_task_file(path).environments
    assert (web.name, web.start, web.ready) == (
        "web", '"$VENUSCTL_PYTHON" -m venusctl sim web', "READY")
    # a task file's phone gets a private adb server unless it names a port
    assert phone.name == "handset" and phone.timeout_s == 30
    assert phone.start == ('"$VENUSCTL_PYTHON" -m venusctl sim phone --adb-port 0 '
                           '--size 720x1600 --realistic')
    assert desktop.start.endswith("sim desktop --size 1920x1080") and desktop.timeout_s == 60


@pytest.mark.parametrize(("text", "message"), [
    ("[{sim: shopp}]", r"environment 1: unknown environment 'shopp' \(built in: web, desktop, "
                       r"phone\)"),
    ("[tablet]", "unknown environment 'tablet'"),
    ("[{sim: 3}]", "unknown environment 3"),
    ("[{sim: phone, options: {colour: red}}]", "unknown option colour for 'phone'"),
    ("[{sim: phone, options: {size: big}}]", "size 'big' is not WIDTHxHEIGHT"),
    ("[{sim: phone, options: {realistic: 1}}]", "realistic must be true or false"),
    ("[{sim: web, options: {port: 70000}}]", "port must be a port number"),
    ("[{sim: web, options: [port]}]", "'options' must be a mapping"),
    ("[{sim: web, start: 'python app.py'}]", "not both"),
    ("[{start: 'python app.py', options: {port: 1}}]", "'options' belong to a built-in"),
    ("[{sim: web, timeout: 0}]", "'timeout' must be a positive number"),
])
def test_each_environment_mistake_is_one_clear_line(tmp_path, text, message):
    path = write(tmp_path, "bad.yaml", f"environments: {text}\ntasks: [{{task: t, driver: web}}]")
    with pytest.raises(UsageError, match=message) as caught:
        read_task_file(path)
    assert "\n" not in str(caught.value)


def test_a_desktop_task_may_check_the_text_its_window_shows(tmp_path):
    path = write(tmp_path, "tasks.yaml",
                 "tasks: [{task: t, driver: desktop, check: {text_present: 'Saved: Ada'}}]")
    (task,) = load_task_file(path, {}).tasks
    assert task.checks == (Check("text_present", "Saved: Ada"),)
