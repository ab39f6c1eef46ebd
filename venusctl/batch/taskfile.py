"""Task files for `venusctl batch` and `venusctl eval suite`: reading and validating.

A task file is YAML (a list of tasks, or a mapping with `tasks`, optional `defaults`,
`environments` and `name`) or JSON lines (one task object per line). Everything is
checked before the first task runs, so a typo on line 40 fails in a second instead
of after an hour of runs: unknown keys, wrong types, surfaces, check kinds, and
variables `${NAME}` that nothing defines.

`${NAME}` is replaced in paths, URLs, devices, apps and check values from the
process environment and the variables exported by the file's environments. Shell
commands are left alone: they receive the same variables in their environment.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from venusctl.cache.options import CacheMode
from venusctl.core.errors import UsageError
from venusctl.core.options import Declared, settings_of, value_type
from venusctl.core.text import one_line
from venusctl.drivers.factory import DriverOptions
from venusctl.loop.agent import AgentSettings
from venusctl.safety.setup import SafetyOptions

SURFACE_NAMES = {"web": "web", "browser": "web", "android": "android", "mobile": "android",
                 "phone": "android", "desktop": "desktop"}
CHECK_KINDS = ("url_matches", "text_present", "file_exists", "shell", "answer_matches")
CONFIRM_MODES = ("policy", "all", "never")


def task_keys(group: type) -> dict[str, str]:
    """The keys a task file gives a settings group, as its fields declare them (key -> field)."""
    return {spec.task: name for name, _, spec in settings_of(group) if spec.task}


SAFETY_KEYS = task_keys(SafetyOptions)
"""The safety settings a task may set, as `SafetyOptions` declares them (policy, allow_*)."""
DRIVER_KEYS = task_keys(DriverOptions)
"""The driver settings a task may set (driver, url, device, viewport); `surface` is
another name for `driver`."""
BUDGET_KEYS = task_keys(AgentSettings)
"""The run's budgets a task may set (max_steps, timeout, settle_cap, temperature, ...)."""
TASK_KEYS = {
    "id", "task", "surface", "confirm", "setup", "check", "expect_exit", "answers", "env",
    "cache", *DRIVER_KEYS, *BUDGET_KEYS, *SAFETY_KEYS,
}
SETUP_KEYS = {"shell", "url", "app"}
FILE_KEYS = {"name", "description", "defaults", "tasks", "environments"}
ENV_KEYS = {"name", "start", "ready", "timeout", "sim", "options"}
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class Check:
    """One programmatic success check; every check of a task must pass."""

    kind: str
    value: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "value": self.value}


@dataclass(frozen=True)
class Setup:
    """What happens before the agent starts: shell commands, a page or an app to open."""

    shell: tuple[str, ...] = ()
    url: str | None = None
    app: str | None = None


@dataclass(frozen=True)
class TaskSpec:
    """One task of a batch, validated, with defaults applied and variables replaced."""

    id: str
    task: str
    driver: str
    index: int
    url: str | None = None  # also the setup's start page (VENUSCTL_START_URL)
    device: str | None = None  # also which phone of the pool runs it
    driver_settings: Mapping[str, Any] = field(default_factory=dict)  # viewport, as written
    budget: Mapping[str, Any] = field(default_factory=dict)  # AgentSettings fields given
    policy: str | None = None
    allow_domains: tuple[str, ...] = ()
    allow_apps: tuple[str, ...] = ()
    allow_categories: tuple[str, ...] = ()
    confirm: str = "policy"
    setup: Setup = field(default_factory=Setup)
    checks: tuple[Check, ...] = ()
    expect_exit: int = 0
    answers: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    cache: CacheMode | None = None  # None: as the command line says

    @property
    def max_steps(self) -> int:
        return int(self.budget.get("max_steps", AgentSettings.max_steps))

    def settings(self) -> AgentSettings:
        """The task's budgets as a run takes them (a fresh object: runs never share one)."""
        return AgentSettings(**self.budget)

    def driver_options(self, base: DriverOptions) -> DriverOptions:
        """`base` with the task's own driver settings (text a field reads, read now)."""
        declared = {name: spec for name, _, spec in settings_of(DriverOptions)}
        return replace(base, **{
            name: declared[name].read(value) if declared[name].read else value
            for name, value in self.driver_settings.items()})

    def safety(self, config: Mapping[str, Any] | None = None) -> SafetyOptions:
        """The task's safety settings as a run takes them (`config`: the [safety] table)."""
        return SafetyOptions(**{name: getattr(self, name) for name in SAFETY_KEYS.values()},
                             config=config)


@dataclass(frozen=True)
class EnvironmentSpec:
    """A local environment the tasks need, started in the background for the whole file."""

    name: str
    start: str
    ready: str = "READY"
    timeout_s: float = 60.0


@dataclass(frozen=True)
class TaskFile:
    path: Path
    name: str
    tasks: tuple[TaskSpec, ...]
    environments: tuple[EnvironmentSpec, ...] = ()
    description: str = ""


@dataclass
class _Raw:
    """The file as read, before variables are known (environments export some)."""

    path: Path
    name: str
    description: str
    defaults: dict[str, Any]
    tasks: list[tuple[int, dict[str, Any]]]
    environments: tuple[EnvironmentSpec, ...]


def read_task_file(path: Path) -> _Raw:
    """Parse the file and check its outer shape; tasks are checked by `resolve_tasks`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"task file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read task file {path}: {exc}") from None
    data = _json_lines(text, path) if _is_json_lines(path, text) else _yaml(text, path)
    if isinstance(data, list):
        data = {"tasks": data}
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a list of tasks or a mapping with 'tasks'")
    _no_unknown(data, FILE_KEYS, f"{path}")
    tasks = data.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        raise UsageError(f"{path}: 'tasks' must be a non-empty list")
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise UsageError(f"{path}: 'defaults' must be a mapping")
    _no_unknown(defaults, TASK_KEYS - {"id", "task"}, f"{path}: defaults")
    numbered = []
    for number, item in enumerate(tasks, start=1):
        if not isinstance(item, dict):
            raise UsageError(f"{path}: task {number} must be a mapping (task: …, driver: …)")
        numbered.append((number, item))
    environments = tuple(_environment(e, path, i) for i, e in
                         enumerate(_list(data.get("environments"), f"{path}: environments"), 1))
    return _Raw(path, str(data.get("name") or path.stem), str(data.get("description") or ""),
                defaults, numbered, environments)


def resolve_tasks(raw: _Raw, variables: Mapping[str, str]) -> TaskFile:
    """Validate every task with the variables now known; ids must be unique."""
    specs = [_task({**raw.defaults, **item}, number, raw.path, variables)
             for number, item in raw.tasks]
    seen: dict[str, int] = {}
    for spec in specs:
        if spec.id in seen:
            raise UsageError(f"{raw.path}: tasks {seen[spec.id]} and {spec.index} share the id "
                             f"'{spec.id}'; ids must be unique")
        seen[spec.id] = spec.index
    return TaskFile(raw.path, raw.name, tuple(specs), raw.environments, raw.description)


def load_task_file(path: Path, variables: Mapping[str, str]) -> TaskFile:
    """Read and validate in one go (for files without environments, or known variables)."""
    return resolve_tasks(read_task_file(path), variables)


# ------------------------------------------------------------------ one task


def _task(item: dict[str, Any], number: int, path: Path, variables: Mapping[str, str]
          ) -> TaskSpec:
    where = f"{path}: task {number}"
    _no_unknown(item, TASK_KEYS, where)
    task = item.get("task")
    if not isinstance(task, str) or not task.strip():
        raise UsageError(f"{where}: 'task' must say what to do")
    where = f"{path}: task {number} ({_clip(task)})"
    text = _Fields(item, where, variables)
    driver = _driver(item, where)
    setup = _setup(item.get("setup"), where, variables)
    url = text.string("url")
    if setup.url and url:
        raise UsageError(f"{where}: give the URL once, as 'url' or 'setup.url'")
    url = url or setup.url
    if url and driver != "web":
        raise UsageError(f"{where}: only a web task opens a URL; on the {driver} use setup.app "
                         "or setup.shell")
    if setup.app and driver == "web":
        raise UsageError(f"{where}: a web task has no app to launch; use 'url'")
    checks = _checks(item.get("check"), where, variables, driver)
    answers = text.string("answers")
    surface = _declared(text, DriverOptions, DRIVER_KEYS)
    for special in ("driver", "url", "device"):
        surface.pop(special, None)
    return TaskSpec(
        id=_task_id(item.get("id"), number, task, where),
        task=task.strip(), driver=driver, index=number, url=url,
        device=text.string("device"), driver_settings=surface,
        budget=_declared(text, AgentSettings, BUDGET_KEYS), **_safety(text),
        confirm=_confirm(item.get("confirm", "policy"), where),
        setup=Setup(setup.shell, None, setup.app), checks=checks,
        expect_exit=text.integer("expect_exit", 0, 0),
        answers=_relative(path, answers) if answers else None,
        env=_env(item.get("env"), where),
        cache=CacheMode.parse(item["cache"], f"{where}: cache") if "cache" in item else None,
    )


def _declared(text: _Fields, group: type, keys: Mapping[str, str]) -> dict[str, Any]:
    """The values a task gives one settings group, each read as its field's declaration
    says (its type, its bound); keys the task leaves out are left out."""
    fields = {name: (annotation, spec) for name, annotation, spec in settings_of(group)}
    values = {name: text.declared(key, *fields[name]) for key, name in keys.items()}
    return {name: value for name, value in values.items() if value is not None}


def _safety(text: _Fields) -> dict[str, Any]:
    """The task's safety settings by `SafetyOptions` field: lists for the repeatable ones."""
    declared = {name: spec for name, _, spec in settings_of(SafetyOptions)}
    return {name: text.strings(key) if declared[name].repeat else text.string(key)
            for key, name in SAFETY_KEYS.items()}


class _Fields:
    """Typed access to a task's values, with `${NAME}` replaced in strings."""

    def __init__(self, item: dict[str, Any], where: str, variables: Mapping[str, str]) -> None:
        self.item = item
        self.where = where
        self.variables = variables

    def string(self, key: str) -> str | None:
        value = self.item.get(key)
        if value is None:
            return None
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            raise UsageError(f"{self.where}: '{key}' must be a string")
        return substitute(str(value), self.variables, f"{self.where}: {key}")

    def strings(self, key: str) -> tuple[str, ...]:
        values = _list(self.item.get(key), f"{self.where}: {key}")
        if not all(isinstance(v, str) for v in values):
            raise UsageError(f"{self.where}: '{key}' must be a list of strings")
        return tuple(substitute(v, self.variables, f"{self.where}: {key}") for v in values)

    def declared(self, key: str, annotation: Any, spec: Declared) -> Any:
        """A value of the type a field declares: text where the field reads text."""
        kind = str if spec.read else value_type(annotation)
        if spec.repeat:
            return self.strings(key) if key in self.item else None
        if kind is bool:
            return self.switch(key)
        if kind is int:
            return self.integer(key, None, int(spec.least or 0))
        if kind is float:
            return self.number(key, spec.least or 0)
        return self.string(key)

    def switch(self, key: str) -> bool | None:
        value = self.item.get(key)
        if value is not None and not isinstance(value, bool):
            raise UsageError(f"{self.where}: '{key}' must be true or false")
        return value

    def integer(self, key: str, default: int | None, least: int) -> Any:
        value = self.item.get(key, default)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise UsageError(f"{self.where}: '{key}' must be a whole number ≥ {least}")
        return value

    def number(self, key: str, least: float = 0) -> float | None:
        value = self.item.get(key)
        if value is None:
            return None
        if not isinstance(value, (int, float)) or isinstance(value, bool) or value < least:
            raise UsageError(f"{self.where}: '{key}' must be a number ≥ {least:g}")
        return float(value)


def _driver(item: dict[str, Any], where: str) -> str:
    if "driver" in item and "surface" in item:
        raise UsageError(f"{where}: give 'driver' or 'surface', not both")
    name = item.get("driver", item.get("surface"))
    if name is None:
        raise UsageError(f"{where}: say which surface it runs on (driver: web|desktop|android)")
    driver = SURFACE_NAMES.get(str(name).lower())
    if driver is None:
        raise UsageError(f"{where}: unknown surface '{name}' (web, desktop or android)")
    return driver


def _setup(value: Any, where: str, variables: Mapping[str, str]) -> Setup:
    if value is None:
        return Setup()
    if not isinstance(value, dict):
        raise UsageError(f"{where}: 'setup' must be a mapping (shell, url, app)")
    _no_unknown(value, SETUP_KEYS, f"{where}: setup")
    shell = value.get("shell")
    commands = [shell] if isinstance(shell, str) else _list(shell, f"{where}: setup.shell")
    if not all(isinstance(c, str) and c.strip() for c in commands):
        raise UsageError(f"{where}: setup.shell must be a command or a list of commands")
    fields = _Fields(value, f"{where}: setup", variables)
    return Setup(tuple(commands), fields.string("url"), fields.string("app"))


def _checks(value: Any, where: str, variables: Mapping[str, str], driver: str
            ) -> tuple[Check, ...]:
    items = [value] if isinstance(value, dict) else _list(value, f"{where}: check")
    checks = []
    for item in items:
        if not isinstance(item, dict):
            raise UsageError(f"{where}: each check is a mapping like {{url_matches: '/done'}}")
        _no_unknown(item, set(CHECK_KINDS), f"{where}: check")
        for kind, raw in item.items():
            if not isinstance(raw, str) or not raw:
                raise UsageError(f"{where}: check {kind} needs a non-empty string")
            text = raw if kind == "shell" else substitute(raw, variables, f"{where}: {kind}")
            _check_fits(kind, text, driver, where)
            checks.append(Check(kind, text))
    return tuple(checks)


def _check_fits(kind: str, value: str, driver: str, where: str) -> None:
    if kind in ("url_matches", "answer_matches"):
        try:
            re.compile(value)
        except re.error as exc:
            raise UsageError(f"{where}: check {kind} is not a valid regular expression: "
                             f"{exc}") from None
    if kind == "url_matches" and driver != "web":
        raise UsageError(f"{where}: url_matches needs a web task")


def _confirm(value: Any, where: str) -> str:
    if value not in CONFIRM_MODES:
        raise UsageError(f"{where}: confirm must be one of {', '.join(CONFIRM_MODES)}")
    return str(value)


def _env(value: Any, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, (str, int, float)) for k, v in value.items()):
        raise UsageError(f"{where}: 'env' must map names to values")
    return {k: str(v) for k, v in value.items()}


def _task_id(value: Any, number: int, task: str, where: str) -> str:
    if value is None:
        slug = re.sub(r"[^a-z0-9]+", "-", task.lower()).strip("-")[:40].strip("-")
        return f"{number:03d}-{slug or 'task'}"
    if not isinstance(value, (str, int)) or isinstance(value, bool) or not str(value).strip():
        raise UsageError(f"{where}: 'id' must be a non-empty string")
    return str(value).strip()


def _environment(value: Any, path: Path, number: int) -> EnvironmentSpec:
    """A `start:` shell command, or a built-in environment by name (`sim: phone`, or just
    `phone`), which runs `venusctl sim NAME` with its options."""
    where = f"{path}: environment {number}"
    if isinstance(value, str):
        value = {"sim": value}
    if not isinstance(value, dict):
        raise UsageError(f"{where} must be a mapping (name, start) or a built-in environment "
                         "(sim: web|desktop|phone)")
    _no_unknown(value, ENV_KEYS, where)
    if "sim" in value:
        return _builtin_environment(value, where)
    if "options" in value:
        raise UsageError(f"{where}: 'options' belong to a built-in environment (sim: …)")
    start = value.get("start")
    if not isinstance(start, str) or not start.strip():
        raise UsageError(f"{where}: 'start' must be a shell command (or name a built-in "
                         "environment with 'sim')")
    return EnvironmentSpec(str(value.get("name") or f"env{number}"), start,
                           str(value.get("ready") or "READY"), _timeout(value, 60, where))


def _builtin_environment(value: dict[str, Any], where: str) -> EnvironmentSpec:
    from venusctl.sim.catalog import sim_command

    if "start" in value or "ready" in value:
        raise UsageError(f"{where}: give 'start' (a command) or 'sim' (a built-in "
                         "environment), not both")
    builtin, start = sim_command(value["sim"], value.get("options"), where)
    return EnvironmentSpec(str(value.get("name") or builtin.name), start, "READY",
                           _timeout(value, builtin.timeout_s, where))


def _timeout(value: dict[str, Any], default: float, where: str) -> float:
    timeout = value.get("timeout", default)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise UsageError(f"{where}: 'timeout' must be a positive number of seconds")
    return float(timeout)


# ------------------------------------------------------------------- helpers


def substitute(text: str, variables: Mapping[str, str], where: str) -> str:
    """Replace `${NAME}`; an undefined name is an error, not an empty string."""
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in variables:
            raise UsageError(f"{where}: ${{{name}}} is not defined (set it in the environment "
                             "or export it from an environment's start command)")
        return variables[name]

    return _VARIABLE.sub(one, text)


def _relative(base_file: Path, value: str) -> Path:
    path = Path(value).expanduser()
    return path if path.is_absolute() else (base_file.parent / path)


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise UsageError(f"{where} must be a list")
    return value


def _no_unknown(item: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(item) - known)
    if unknown:
        raise UsageError(f"{where}: unknown key {', '.join(map(str, unknown))} "
                         f"(known: {', '.join(sorted(known))})")


def _is_json_lines(path: Path, text: str) -> bool:
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return True
    if path.suffix.lower() in (".yaml", ".yml", ".json"):
        return False
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.startswith("{") for line in lines)


def _json_lines(text: str, path: Path) -> list[Any]:
    tasks = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            tasks.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
    return tasks


def _yaml(text: str, path: Path) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise UsageError(f"{path}{at}: not valid YAML ({problem})") from None


def _clip(text: str, limit: int = 40) -> str:
    return one_line(text, limit)
