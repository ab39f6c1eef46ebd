"""Building one run from plain options: model, driver, guard, record, observers.

The CLI parses flags into a `RunRequest` and calls `run_task`; `replay` and
`batch` do the same. Everything opened here is closed here, whatever happens.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venusctl.actions import Surface
from venusctl.agent import Agent, AgentSettings, RunObserver, StepGate
from venusctl.drivers.base import Driver, DryRunDriver
from venusctl.errors import UsageError
from venusctl.messages import load_template, system_prompt
from venusctl.model.base import Model
from venusctl.model.scripted import ScriptedModel
from venusctl.observers import ConsoleProgress, JsonEvents, RecordObserver
from venusctl.record import Outcome, Recorder, RunInfo
from venusctl.safety.confirm import Confirmer, default_confirmer
from venusctl.safety.guard import Guard
from venusctl.safety.ocr import TesseractReader
from venusctl.safety.setup import SafetyOptions, make_policy_guard, prepare, resolve_policy
from venusctl.surfaces import DriverOptions, choose_driver, open_driver, surface_of

log = logging.getLogger(__name__)

OUTPUTS = ("normal", "json", "quiet")


@dataclass
class ModelOptions:
    """Which model answers, as given on the command line (None: not given).

    `answers` selects the scripted model; everything else is resolved with the
    environment and the config file by `venusctl.config` (flags > env > file >
    default). `assume_yes` agrees to download the default model on first use.
    """

    answers: Path | None = None
    model: str | None = None
    mmproj: Path | None = None
    n_ctx: int | None = None
    threads: int | None = None
    gpu_layers: int | None = None
    image_min_tokens: int | None = None
    image_max_tokens: int | None = None
    grammar: bool | None = None
    server: str | None = None
    server_model: str | None = None
    api_key_env: str | None = None
    assume_yes: bool = False

    def flags(self) -> dict[str, Any]:
        """The settings given as flags, by name (what `config.resolve` takes)."""
        skip = {"answers", "assume_yes"}
        return {k: v for k, v in vars(self).items() if k not in skip and v is not None}


@dataclass
class RunRequest:
    task: str
    driver: DriverOptions
    model: ModelOptions = field(default_factory=ModelOptions)
    settings: AgentSettings = field(default_factory=AgentSettings)
    confirm: str = "policy"
    assume_yes: bool = False
    safety: SafetyOptions = field(default_factory=SafetyOptions)
    prompt_file: Path | None = None
    runs_dir: Path = Path("runs")
    output: str = "normal"
    dry_run: bool = False
    extra_settings: dict[str, Any] = field(default_factory=dict)


def make_guard(confirm: str, assume_yes: bool, safety: SafetyOptions | None = None) -> Guard:
    """The policy guard the flags ask for (see `venusctl.safety.setup`)."""
    policy = resolve_policy(safety or SafetyOptions())
    return make_policy_guard(policy, confirm, assume_yes)


def open_model(options: ModelOptions, surface: Surface = Surface.MOBILE) -> Model:
    """Scripted answers, a local GGUF or a server (see `venusctl.model.select`)."""
    if options.answers is not None:
        return ScriptedModel.from_file(options.answers)
    from venusctl.model.select import open_model as select_model

    return select_model(options.flags(), surface, assume_yes=options.assume_yes)


def settings_record(request: RunRequest) -> dict[str, Any]:
    """The settings worth keeping in run.json (never secrets)."""
    options = request.driver
    return {
        "max_steps": request.settings.max_steps,
        "timeout_s": request.settings.timeout_s,
        "parse_retries": request.settings.parse_retries,
        "history_images": request.settings.history_images,
        "settle_cap_s": request.settings.settle_cap_s,
        "temperature": request.settings.sampling.temperature,
        "max_tokens": request.settings.sampling.max_tokens,
        "confirm": request.confirm,
        "dry_run": request.dry_run,
        "url": options.url,
        "viewport": str(options.viewport),
        "device": options.device,
        "prompt_file": str(request.prompt_file) if request.prompt_file else None,
        **request.extra_settings,
    }


def check_text(text: str, what: str) -> None:
    """Text that is not valid UTF-8 (undecodable bytes from the command line or a file
    arrive as lone surrogates) is a usage error before anything is opened or recorded."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError(f"{what} is not valid UTF-8 text (undecodable byte at position "
                         f"{exc.start}); give it as UTF-8") from None


def run_task(
    request: RunRequest,
    confirmer: Confirmer | None = None,
    observers: list[RunObserver] | None = None,
    driver: Driver | None = None,
    model: Model | None = None,
    gate: StepGate | None = None,
) -> Outcome:
    """Run one task to its end and return how it ended (the record is closed)."""
    if not request.task.strip():
        raise UsageError("the task is empty; say what the agent should do")
    check_text(request.task, "the task")
    if request.output not in OUTPUTS:
        raise UsageError(f"unknown output mode '{request.output}'")
    name = driver.name if driver is not None else choose_driver(request.driver)
    surface: Surface = driver.surface if driver is not None else surface_of(name)
    template = load_template(surface, request.prompt_file)
    safety = prepare(request.safety, request.confirm, request.assume_yes, surface, request.task)
    request.settings.approved_categories |= safety.approved
    with ExitStack() as stack:
        model = model or open_model(request.model, surface)
        stack.callback(model.close)
        driver = driver or open_driver(request.driver)
        stack.callback(driver.close)
        driver = safety.protect(driver)
        confirmer = safety.hold_requests(driver, confirmer or default_confirmer(),
                                         request.settings.approved_categories)
        stack.enter_context(safety.scrubbed_logs())
        if request.dry_run:
            driver = DryRunDriver(driver)
        recorder = Recorder(request.runs_dir, request.task)
        info = RunInfo(
            run_id=recorder.run_id, task=request.task, surface=surface.value,
            driver=name, model=model.name, run_dir=recorder.run_dir,
            settings={**settings_record(request), **safety.record()},
        )
        agent = Agent(
            driver=driver,
            model=model,
            guard=safety.guard,
            confirmer=confirmer,
            system_prompt=system_prompt(template, request.task,
                                        password_note=safety.notes.password_note,
                                        secrets_note=safety.notes.secrets_note),
            info=info,
            settings=request.settings,
            observers=safety.observers([RecordObserver(recorder),
                                        *_output_observers(request.output), *(observers or [])]),
            gate=gate,
            reader=stack.enter_context(closing(TesseractReader())),
        )
        return agent.run()


def _output_observers(output: str) -> list[RunObserver]:
    if output == "json":
        return [JsonEvents()]
    if output == "normal":
        return [ConsoleProgress()]
    return []
