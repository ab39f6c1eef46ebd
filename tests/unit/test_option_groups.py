"""Option groups: a model setting is declared once, and every place reads that declaration.

Where a model setting is named: its field in `ModelSettings` (flag, help, env var,
config key). The commands' flags, the environment, the config file and the sources
`doctor` shows all come from there; these tests prove it by listing each place
against the fields, and by adding a setting in one edit and finding it everywhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from venusctl.batch.taskfile import TASK_KEYS
from venusctl.cli import app
from venusctl.cli.batch import BATCH_MODEL
from venusctl.cli.ground import GROUND_MODEL
from venusctl.cli.model_options import MODEL
from venusctl.cli.options import Given, flags
from venusctl.core.errors import UsageError
from venusctl.core.options import option
from venusctl.model.settings import (
    Count,
    ModelSettings,
    declarations,
    read_config_file,
    resolve,
)

pytestmark = pytest.mark.unit

SAMPLES = {str: "text", int: 7, float: 2.5, bool: False, Path: "/tmp/x.gguf"}


def command_flags(name: str) -> set[str]:
    """Every option name the real command line gives `venusctl NAME`."""
    import typer.main

    click_app = typer.main.get_command(app)
    command = click_app.commands[name]  # type: ignore[attr-defined]
    return {opt for param in command.params for opt in param.opts if opt.startswith("--")}


def declared_flags() -> set[str]:
    return {spec.flag for spec in declarations().values() if spec.flag}


def test_the_model_flags_of_do_batch_and_ground_are_the_declared_ones():
    assert declared_flags() <= command_flags("do")
    # batch and ground leave out only what they name; a new setting reaches all three
    assert BATCH_MODEL.exclude == ("server",)
    assert GROUND_MODEL.exclude == ("grammar", "prompts")
    for name, group in (("batch", BATCH_MODEL), ("ground", GROUND_MODEL)):
        left_out = {declarations()[n].flag for n in group.exclude}
        assert declared_flags() - left_out <= command_flags(name)
        assert group.flag_names() == declared_flags() - left_out
    assert "--server" in command_flags("batch")  # batch's own, repeatable


def test_every_setting_has_one_env_var_and_one_config_key():
    specs = declarations()
    assert all(s.env == "VENUSCTL_" + n.upper() for n, s in specs.items())
    assert len({s.file for s in specs.values()}) == len(specs)
    flagged = [s.flag for s in specs.values() if s.flag]
    assert len(set(flagged)) == len(flagged)


def sample(name: str) -> Any:
    """A valid value for each setting, by its type (choices by their first option)."""
    choices = {"interface": "lean", "prompts": "builtin"}
    annotation = str(ModelSettings.model_fields[name].annotation)
    return choices.get(name) or next(v for k, v in SAMPLES.items() if k.__name__ in annotation)


def test_every_setting_is_read_from_the_environment_and_the_config_file(tmp_path):
    tables: dict[str, list[str]] = {}
    for name, spec in declarations().items():
        value = sample(name)
        shown = str(value).lower() if isinstance(value, bool) else f'"{value}"'
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            shown = str(value)
        tables.setdefault(spec.section, []).append(f"{spec.key} = {shown}")
    path = tmp_path / "config.toml"
    path.write_text("".join(f"[{t}]\n" + "\n".join(keys) + "\n" for t, keys in tables.items()),
                    encoding="utf-8")
    from_file = resolve({}, environ={"VENUSCTL_CONFIG": str(path)})
    assert from_file.sources == {name: "config file" for name in ModelSettings.model_fields}
    environ = {spec.env or "": str(sample(n)) for n, spec in declarations().items()}
    from_env = resolve({}, environ=environ, file_values={})
    assert from_env.sources == {n: f"env {s.env}" for n, s in declarations().items()}


def test_task_files_take_no_model_settings():
    """One model serves a whole batch: its settings are the command's, never a task's."""
    assert not TASK_KEYS & set(ModelSettings.model_fields)


class WithTopK(ModelSettings):
    """A model setting added in one edit: this field."""

    top_k: Count = option(flag="--top-k", least=1, env="VENUSCTL_TOP_K", file="model.top_k",
                          help="Sample from the K likeliest tokens.")


def test_a_new_setting_is_one_edit(tmp_path):
    group = type(MODEL)(WithTopK)
    assert "--top-k" in group.flag_names()

    received: list[Given] = []
    demo = typer.Typer()

    @demo.command()
    @flags(model_flags=group)
    def run(model_flags: Given = None) -> None:  # type: ignore[assignment]
        received.append(model_flags)

    result = CliRunner().invoke(demo, ["--top-k", "5", "--no-grammar"])
    assert result.exit_code == 0, result.output
    assert received == [{"top_k": 5, "grammar": False}]
    assert "Sample from the K likeliest" in CliRunner().invoke(demo, ["--help"]).output
    assert CliRunner().invoke(demo, ["--top-k", "0"]).exit_code == 2  # the declared bound

    settings = resolve({}, environ={"VENUSCTL_TOP_K": "9"}, file_values={}, group=WithTopK)
    assert settings.top_k == 9 and settings.source("top_k") == "env VENUSCTL_TOP_K"
    path = tmp_path / "config.toml"
    path.write_text("[model]\ntop_k = 3\n", encoding="utf-8")
    assert read_config_file(path, WithTopK) == {"top_k": 3}
    path.write_text("[model]\ntop_k = 'many'\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"\[model\] top_k: invalid literal") as caught:
        read_config_file(path, WithTopK)
    assert "\n" not in str(caught.value)
    with pytest.raises(UsageError, match="no setting 'top_k'"):
        read_config_file(tmp_path / "config.toml", ModelSettings)


def test_model_options_take_exactly_the_declared_settings():
    from venusctl.run.build import ModelOptions

    options = ModelOptions(model="a/b", image_max_tokens=900, threads=None)
    assert options.flags() == {"model": "a/b", "image_max_tokens": 900}
    assert options.model == "a/b" and options.server is None and options.answers is None
    with pytest.raises(TypeError, match="no setting modle"):
        ModelOptions(modle="a/b")


def test_the_safety_settings_are_declared_once_for_flags_config_and_task_files(tmp_path):
    from venusctl.batch.taskfile import SAFETY_KEYS
    from venusctl.cli.safety_options import SAFETY
    from venusctl.core.options import settings_of
    from venusctl.safety.setup import CONFIG_KEYS, SafetyOptions, read_safety_config

    specs = {name: spec for name, _, spec in settings_of(SafetyOptions) if spec.flag}
    assert set(specs) == {"policy", "allow_domains", "allow_apps", "allow_categories"}
    for command in ("do", "replay", "mcp"):
        assert SAFETY.flag_names() <= command_flags(command)
    config = tmp_path / "config.toml"
    config.write_text("[safety]\n" + "".join(
        f"{spec.key} = {'[]' if spec.repeat else repr('strict')}\n" for spec in specs.values()),
        encoding="utf-8")
    assert set(read_safety_config(config)) == set(CONFIG_KEYS) == {s.key for s in specs.values()}
    config.write_text("[safety]\npolicies = 'strict'\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"\[safety\] has no setting policies"):
        read_safety_config(config)
    assert set(SAFETY_KEYS) == {spec.task for spec in specs.values()} <= TASK_KEYS


def test_a_task_files_safety_keys_reach_the_run(tmp_path):
    from venusctl.batch.taskfile import load_task_file

    path = tmp_path / "tasks.yaml"
    path.write_text("defaults: {policy: strict, allow_domains: ['${HOST}']}\n"
                    "tasks: [{task: t, driver: web, allow_categories: [payment]}]\n",
                    encoding="utf-8")
    spec = load_task_file(path, {"HOST": "example.org"}).tasks[0]
    safety = spec.safety(config={})
    assert (safety.policy, safety.allow_domains, safety.allow_apps, safety.allow_categories) == (
        "strict", ("example.org",), (), ("payment",))


def test_model_options_are_copied_with_changes():
    from venusctl.run.build import ModelOptions

    options = ModelOptions(answers=Path("a.jsonl"), assume_yes=True, model="a/b", threads=4)
    moved = options.replace(server="http://h", model=None, answers=None)
    assert moved.flags() == {"threads": 4, "server": "http://h"}
    assert moved.answers is None and moved.assume_yes
    assert options.flags() == {"model": "a/b", "threads": 4}  # the original is unchanged


# ------------------------------------------------ driver, run budget and output groups


def group_flags(group: Any) -> set[str]:
    """The names a person types for a group's flags (`--headless/--headed`: both)."""
    return group.flag_names() | {flag.spec.short for flag in group.declared() if flag.spec.short}


def all_flags(*path: str) -> set[str]:
    """Every option name (long, short, secondary) of `venusctl PATH...`."""
    import typer.main

    command: Any = typer.main.get_command(app)
    for name in path:
        command = command.commands[name]
    return {opt for p in command.params for opt in (*p.opts, *getattr(p, "secondary_opts", ()))}


def test_each_commands_driver_budget_and_output_flags_come_from_their_declarations():
    from venusctl.cli import batch, eval, mcp, run, session
    from venusctl.cli.common import BUDGET, DRIVER, OUTPUT, WEB_POOL
    from venusctl.core.options import settings_of
    from venusctl.drivers.factory import DriverOptions
    from venusctl.loop.agent import AgentSettings

    for group, settings in ((DRIVER, DriverOptions), (BUDGET, AgentSettings)):
        assert {f.name for f in group.declared()} == {
            n for n, _, spec in settings_of(settings) if spec.flag}
    uses = {
        ("do",): (DRIVER, BUDGET, OUTPUT),
        ("act",): (DRIVER, OUTPUT.just("verbose")),
        ("screenshot",): (DRIVER.but("upload_dir"), OUTPUT.just("verbose")),
        ("replay",): (DRIVER.but("upload_dir", "session"),
                      OUTPUT.just("runs_dir", "json", "verbose")),
        ("ground",): (DRIVER.but("upload_dir"), OUTPUT.just("json", "verbose")),
        ("batch",): (WEB_POOL, batch.BATCH_OUTPUT),
        ("eval", "suite"): (WEB_POOL, eval.EVAL_OUTPUT),
        ("eval", "grounding"): (eval.EVAL_OUTPUT,),
        ("mcp",): (DRIVER.just("headless", "browser_path"), OUTPUT.just("runs_dir", "verbose")),
        ("session", "start"): (session.SESSION_DRIVER, OUTPUT.just("verbose")),
    }
    for path, groups in uses.items():
        for group in groups:
            assert group_flags(group) <= all_flags(*path), (path, group)
    # a command that leaves a driver flag out does not have it
    assert "--upload-dir" not in all_flags("screenshot") and "--session" not in all_flags("replay")
    assert not {"--max-steps", "--quiet", "--tui"} & all_flags("batch")
    assert run.do and mcp.mcp  # the modules the table names are the registered commands


def test_the_flags_keep_their_defaults_and_a_command_its_own():
    import typer.main
    from click import Context

    command: Any = typer.main.get_command(app)
    defaults = {p.name: p.default for p in command.commands["do"].params}
    assert (defaults["max_steps"], defaults["parse_retries"], defaults["settle_cap_s"]) == (
        30, 2, 3.0)
    assert defaults["headless"] is True and defaults["viewport"] is None
    start = command.commands["session"].commands["start"]
    assert {p.name: p.default for p in start.params}["viewport"] == "1280x800"
    help_text = " ".join(start.get_help(Context(start)).split())  # as read, not wrapped
    assert "[default: 1280x800]" in help_text and "[default: jpeg]" in help_text
    batch = command.commands["batch"]
    json_help = next(p.help for p in batch.params if p.name == "json")
    assert json_help.startswith("One JSON result per task")


def test_the_driver_flags_reach_the_options_as_values(tmp_path):
    from venusctl.cli.common import DRIVER, driver_options
    from venusctl.core.grid import ScreenSize

    received: list[Any] = []
    demo = typer.Typer()

    @demo.command()
    @flags(driver_flags=DRIVER)
    def run(driver_flags: Given = None) -> None:  # type: ignore[assignment]
        received.append(driver_options(driver_flags))

    result = CliRunner().invoke(demo, ["-d", "web", "--viewport", "800x600", "--headed",
                                       "--image-format", "JPEG", "--monitor", "2"])
    assert result.exit_code == 0, result.output
    options = received[0]
    assert (options.driver, options.viewport, options.headless, options.image_format,
            options.monitor) == ("web", ScreenSize(800, 600), False, "jpeg", 2)
    with pytest.raises(UsageError, match="--viewport must look like 1280x800, not 'big'"):
        DRIVER.given({**{n: None for n, *_ in DRIVER.declared()}, "viewport": "big"})


def test_task_file_keys_come_from_the_same_declarations():
    from venusctl.batch.taskfile import BUDGET_KEYS, DRIVER_KEYS
    from venusctl.core.options import settings_of
    from venusctl.drivers.factory import DriverOptions
    from venusctl.loop.agent import AgentSettings

    assert set(DRIVER_KEYS) == {"driver", "url", "device", "viewport"} <= TASK_KEYS
    assert set(BUDGET_KEYS) == {"max_steps", "timeout", "settle_cap", "temperature",
                                "max_tokens"} <= TASK_KEYS
    for group, keys in ((DriverOptions, DRIVER_KEYS), (AgentSettings, BUDGET_KEYS)):
        assert keys == {s.task: n for n, _, s in settings_of(group) if s.task}


def test_a_task_files_budget_and_viewport_reach_the_run(tmp_path):
    from venusctl.batch.taskfile import load_task_file
    from venusctl.core.grid import ScreenSize
    from venusctl.drivers.factory import DriverOptions

    path = tmp_path / "tasks.yaml"
    path.write_text("defaults: {driver: web, max_steps: 4, viewport: 800x600}\n"
                    "tasks: [{task: t, timeout: 9, settle_cap: 0.5, max_tokens: 64}]\n",
                    encoding="utf-8")
    spec = load_task_file(path, {}).tasks[0]
    settings = spec.settings()
    assert (settings.max_steps, settings.timeout_s, settings.settle_cap_s, settings.max_tokens,
            settings.temperature, settings.parse_retries) == (4, 9.0, 0.5, 64, None, 2)
    assert spec.settings() is not settings  # each run gets its own
    assert spec.driver_options(DriverOptions()).viewport == ScreenSize(800, 600)
    path.write_text("tasks: [{task: t, driver: web, settle_cap: -1}]\n", encoding="utf-8")
    with pytest.raises(UsageError, match="'settle_cap' must be a number ≥ 0"):
        load_task_file(path, {})


def test_a_new_driver_or_budget_setting_is_one_edit(tmp_path):
    """A field with a flag and a task key: the command line and task files take it."""
    from dataclasses import dataclass, field

    from venusctl.batch import taskfile
    from venusctl.cli.options import Group
    from venusctl.core.options import declare
    from venusctl.loop.agent import AgentSettings

    @dataclass
    class WithPatience(AgentSettings):
        patience: float | None = field(default=None, metadata=declare(
            flag="--patience", least=1, task="patience", help="Seconds to wait for the user."))

    received: list[Given] = []
    demo = typer.Typer()

    @demo.command()
    @flags(budget=Group(WithPatience))
    def run(budget: Given = None) -> None:  # type: ignore[assignment]
        received.append(budget)

    assert CliRunner().invoke(demo, ["--patience", "2.5"]).exit_code == 0
    assert received[0]["patience"] == 2.5 and received[0]["max_steps"] == 30
    assert CliRunner().invoke(demo, ["--patience", "0"]).exit_code == 2  # the declared bound
    assert WithPatience(**received[0]).patience == 2.5

    keys = taskfile.task_keys(WithPatience)
    assert keys["patience"] == "patience"
    fields = taskfile._Fields({"patience": 4, "max_steps": 3}, "t", {})
    read = taskfile._declared(fields, WithPatience, keys)
    assert read == {"patience": 4.0, "max_steps": 3}
    with pytest.raises(UsageError, match="'patience' must be a number ≥ 1"):
        taskfile._declared(taskfile._Fields({"patience": 0.5}, "t", {}), WithPatience, keys)


def test_output_options_say_the_mode_and_the_runs_folder(tmp_path):
    from venusctl.cli.common import OutputOptions

    assert OutputOptions(json=True, quiet=True).mode == "json"
    assert OutputOptions(quiet=True).mode == "quiet" and OutputOptions().mode == "normal"
    assert OutputOptions(runs_dir=tmp_path).runs == tmp_path


def test_a_batch_runs_with_the_commands_model_options(monkeypatch, tmp_path):
    """--interface and --prompts reach a batch's runs: each RunRequest takes the command's
    model options, so the interface is settled from them as for `do`."""
    from tests.support.fakes import FakeDriver
    from venusctl.batch import task
    from venusctl.batch.models import ModelSource
    from venusctl.batch.pool import Slot
    from venusctl.batch.taskfile import TaskSpec
    from venusctl.drivers.factory import DriverOptions
    from venusctl.run import build
    from venusctl.run.build import ModelOptions

    requests: list[Any] = []
    monkeypatch.setattr(build, "run_task", lambda request, **_: requests.append(request))
    options = ModelOptions(interface="lean", prompts="builtin")
    shared = task.Shared(runs_dir=tmp_path, models=ModelSource(options), cwd=tmp_path)
    spec = TaskSpec(id="t", task="do it", driver="web", index=1, budget={"max_steps": 5})
    slot = Slot("web-1", "web", DriverOptions(driver="web"))
    task._run(spec, shared, FakeDriver(), None, task._RunCapture(), 1, slot, None)
    assert requests[0].model.flags() == {"interface": "lean", "prompts": "builtin"}
    assert requests[0].settings.max_steps == 5
    assert {"--interface", "--prompts"} <= all_flags("batch") & all_flags("eval", "suite")
