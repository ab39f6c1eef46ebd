"""Building one run from plain options: model, driver, guard, record, observers.

The CLI parses flags into a `RunRequest` and calls `run_task`; `replay` and
`batch` do the same. Everything opened here is closed here, whatever happens.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venusctl.cache import CacheOptions, CacheRun
from venusctl.core.actions import Surface
from venusctl.core.errors import UsageError
from venusctl.drivers.base import Driver
from venusctl.drivers.capabilities import Capability, able
from venusctl.drivers.factory import DriverOptions, choose_driver, open_driver, surface_of
from venusctl.drivers.wrappers import DryRunDriver
from venusctl.interface.choice import RunInterface, resolve_interface
from venusctl.interface.messages import load_template, system_prompt
from venusctl.interface.profile import InterfaceProfile
from venusctl.loop.agent import Agent, AgentSettings
from venusctl.loop.events import RunObserver, StepGate
from venusctl.loop.gate import RunApprovals
from venusctl.model.base import Model
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import Outcome, Recorder, RunInfo
from venusctl.run.observers import (
    ConsoleProgress,
    JsonEvents,
    RecordObserver,
    RedactingObservers,
    RequestSteps,
)
from venusctl.safety.confirm import Confirmer, default_confirmer
from venusctl.safety.guard import Guard
from venusctl.safety.ocr import shared_reader
from venusctl.safety.redact import ScrubbedReader
from venusctl.safety.setup import (
    RunSafety,
    SafetyOptions,
    make_policy_guard,
    prepare,
    resolve_policy,
)

log = logging.getLogger(__name__)

OUTPUTS = ("normal", "json", "quiet")


class ModelOptions:
    """Which model answers, as given on the command line or by a program (None: not given).

    The keywords are the model settings (`venusctl.model.settings.ModelSettings`:
    `model`, `server`, `image_max_tokens`, ...); each is resolved with the environment
    and the config file (flags > env > file > default). `answers` selects the scripted
    model; `assume_yes` agrees to download the default model on first use.
    """

    def __init__(self, answers: Path | None = None, assume_yes: bool = False,
                 **given: Any) -> None:
        from venusctl.model.settings import ModelSettings

        unknown = sorted(set(given) - set(ModelSettings.model_fields))
        if unknown:
            raise TypeError(f"ModelOptions has no setting {', '.join(unknown)}")
        self.answers = answers
        self.assume_yes = assume_yes
        self.given = {name: value for name, value in given.items() if value is not None}

    def __getattr__(self, name: str) -> Any:
        from venusctl.model.settings import ModelSettings

        if name.startswith("_") or name not in ModelSettings.model_fields:
            raise AttributeError(name)
        return self.__dict__.get("given", {}).get(name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ModelOptions) and vars(self) == vars(other)

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.given.items())
        return f"ModelOptions(answers={self.answers!r}, {shown})"

    def flags(self) -> dict[str, Any]:
        """The settings given, by name (what `venusctl.model.settings.resolve` takes)."""
        return dict(self.given)

    def replace(self, **changes: Any) -> ModelOptions:
        """A copy with some settings changed (None: no longer given)."""
        answers = changes.pop("answers", self.answers)
        assume_yes = changes.pop("assume_yes", self.assume_yes)
        return ModelOptions(answers, assume_yes, **{**self.given, **changes})


@dataclass
class RunRequest:
    """One task and everything about how to run it (what `venusctl do` builds from flags).

    `driver` and `model` say what to open; `settings` the loop's budgets and sampling;
    `confirm`, `assume_yes` and `safety` the gate (see `venusctl.safety.setup`);
    `output` the progress printed (normal, json, quiet); `extra_settings` is copied
    into run.json.
    """

    task: str
    driver: DriverOptions = field(default_factory=DriverOptions)
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
    cache: CacheOptions = field(default_factory=CacheOptions)  # off unless asked for


def make_guard(confirm: str, assume_yes: bool, safety: SafetyOptions | None = None) -> Guard:
    """The policy guard the flags ask for (see `venusctl.safety.setup`)."""
    policy = resolve_policy(safety or SafetyOptions())
    return make_policy_guard(policy, confirm, assume_yes)


def open_model(options: ModelOptions, surface: Surface = Surface.MOBILE,
               profile: InterfaceProfile | None = None, load_later: bool = False) -> Model:
    """Scripted answers, a local GGUF or a server (see `venusctl.model.select`).

    `profile` is the run's interface (image budget, sampling defaults). `load_later`
    finds a local model's files now but loads it at its first question, so a run the
    trajectory cache answers whole never loads it.
    """
    if options.answers is not None:
        return ScriptedModel.from_file(options.answers)
    if load_later:
        from venusctl.model.lazy import open_deferred

        return open_deferred(options.flags(), surface, assume_yes=options.assume_yes,
                             profile=profile)
    from venusctl.model.select import open_model as select_model

    return select_model(options.flags(), surface, assume_yes=options.assume_yes,
                        profile=profile)


def settings_record(request: RunRequest, surface: Surface = Surface.MOBILE) -> dict[str, Any]:
    """The settings worth keeping in run.json (never secrets)."""
    options = request.driver
    settings = request.settings
    profile = settings.profile(surface.value)
    sampling = settings.sampling(surface.value)
    return {
        "max_steps": settings.max_steps,
        "timeout_s": settings.timeout_s,
        "parse_retries": settings.parse_retries,
        "history_images": (settings.history_images if settings.history_images is not None
                           else profile.history_images),
        "settle_cap_s": settings.settle_cap_s,
        "temperature": sampling.temperature,
        "max_tokens": sampling.max_tokens,
        "thinking": sampling.thinking,
        "image_max_tokens": profile.image_max_tokens,
        "confirm": request.confirm,
        "dry_run": request.dry_run,
        "url": options.url,
        "viewport": str(options.viewport),
        "device": options.device,
        "prompt_file": str(request.prompt_file) if request.prompt_file else None,
        "cache": request.cache.mode.value,
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


@dataclass(frozen=True)
class RunPlan:
    """A request checked before anything opens: the driver's name and surface, the
    prompt template and the run's safety (usage errors come out of `check_request`)."""

    driver_name: str
    surface: Surface
    template: str
    safety: RunSafety
    interface: RunInterface


def check_request(request: RunRequest, driver: Driver | None = None,
                  model: Model | None = None) -> RunPlan:
    """Every usage error of a request, before a model or a driver is opened (`driver`
    and `model` when the caller already holds them open).

    The interface (authors or lean) is settled here too, and set on the request's
    settings, because the prompt template and the model's image budget depend on it.
    """
    if not request.task.strip():
        raise UsageError("the task is empty; say what the agent should do")
    check_text(request.task, "the task")
    if request.output not in OUTPUTS:
        raise UsageError(f"unknown output mode '{request.output}'")
    name = driver.name if driver is not None else choose_driver(request.driver)
    surface: Surface = driver.surface if driver is not None else surface_of(name)
    interface = resolve_interface(request.model.flags(), surface.value, model,
                                  scripted=request.model.answers is not None)
    request.settings.interface = interface.profile
    template = load_template(surface, request.prompt_file, interface.prompts)
    safety = prepare(request.safety, request.confirm, request.assume_yes, surface, request.task)
    return RunPlan(name, surface, template, safety, interface)


def start_cache(request: RunRequest, plan: RunPlan) -> CacheRun | None:
    """The trajectory cache of this run, as `request.cache` asks (None: not used)."""
    return CacheRun.start(request.cache, request.task, plan.surface, request.dry_run)


def run_task(
    request: RunRequest,
    confirmer: Confirmer | None = None,
    observers: list[RunObserver] | None = None,
    driver: Driver | None = None,
    model: Model | None = None,
    gate: StepGate | None = None,
    cache: CacheRun | None = None,
) -> Outcome:
    """Run one task to its end and return how it ended (the record is closed).

    The trajectory cache comes from `request.cache`, and the run's trajectory is
    stored when it finished; a caller that judges success itself (a batch, by its
    checks) passes its own `cache` and commits it when it is satisfied.
    """
    plan = check_request(request, driver, model)
    cached = cache or start_cache(request, plan)
    with ExitStack() as stack:
        model = model or open_model(request.model, plan.surface, plan.interface.profile,
                                    load_later=cached is not None and cached.reads)
        stack.callback(model.close)
        driver = driver or open_driver(request.driver)
        stack.callback(driver.close)
        outcome = run_checked(plan, request, driver, model, confirmer, observers, gate, cached)
    if cached is not None and cache is None:
        cached.commit(outcome)
    return outcome


def run_checked(
    plan: RunPlan,
    request: RunRequest,
    driver: Driver,
    model: Model,
    confirmer: Confirmer | None = None,
    observers: list[RunObserver] | None = None,
    gate: StepGate | None = None,
    cached: CacheRun | None = None,
) -> Outcome:
    """The run itself on an open driver and model (closing them is the caller's job).

    `cached` answers from a stored trajectory where the screens still match;
    storing the new trajectory (`CacheRun.commit`) is the caller's, who knows
    whether the run succeeded.
    """
    safety = plan.safety
    approvals = RunApprovals(safety.approved)  # this run's own: "always" ends with it
    with ExitStack() as stack:
        driver = safety.protect(driver)
        confirmer = safety.hold_requests(driver, confirmer or default_confirmer(),
                                         approvals.categories)
        stack.enter_context(safety.scrubbed_logs())
        if request.dry_run:
            driver = DryRunDriver(driver)
        if cached is not None:
            driver, model = cached.watch_driver(driver), cached.answering(model)
        recorder = Recorder(request.runs_dir, request.task)
        if (keeper := able(driver, Capability.KEEP_FILES)) is not None:
            keeper.keep_files_in(recorder.run_dir / "downloads")
        info = RunInfo(
            run_id=recorder.run_id, task=request.task, surface=plan.surface.value,
            driver=plan.driver_name, model=model.name, run_dir=recorder.run_dir,
            settings={**settings_record(request, plan.surface), **plan.interface.record(),
                      **safety.record()},
        )
        agent = Agent(
            driver=driver,
            model=model,
            guard=safety.guard,
            confirmer=confirmer,
            system_prompt=system_prompt(plan.template, request.task,
                                        password_note=safety.notes.password_note,
                                        secrets_note=safety.notes.secrets_note),
            info=info,
            settings=request.settings,
            observers=_safety_observers(safety, [
                RecordObserver(recorder), *_cache_observers(cached),
                *_output_observers(request.output), *(observers or [])]),
            gate=gate,
            reader=ScrubbedReader(shared_reader(), safety.redactor),
            approvals=approvals,
        )
        return agent.run()


def _safety_observers(safety: RunSafety, observers: list[RunObserver]) -> list[RunObserver]:
    """The run's observers behind one that scrubs secret values from all they get
    (the request gate first, so the requests it adds to a step are scrubbed too)."""
    gate: list[RunObserver] = [RequestSteps(safety.gate)] if safety.gate is not None else []
    return [*gate, RedactingObservers(safety.redactor, observers)]


def _cache_observers(cached: CacheRun | None) -> list[RunObserver]:
    return [cached.observer()] if cached is not None else []


def _output_observers(output: str) -> list[RunObserver]:
    if output == "json":
        return [JsonEvents()]
    if output == "normal":
        return [ConsoleProgress()]
    return []
