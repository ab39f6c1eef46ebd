"""`venusctl.Agent`: one surface and one model, kept open for a program's calls.

    with Agent(DriverOptions(driver="web", url=URL), ModelOptions(model=GGUF)) as agent:
        for event in agent.run("order a green one for Ada"):
            ...
        agent.act("Click(point=(500, 500))")

Everything goes through the same code as the command line: `run` is
`venusctl.run.build`'s run (record, guard, secrets), `act` the same parse, place and
guard as `venusctl act`, `ground` the model's grounding mode. The surface and the
model are opened on first use and stay open until `close()` (or the end of the
`with` block), so consecutive calls see the same page, phone screen or desktop.
"""

from __future__ import annotations

import copy
from pathlib import Path

from venusctl.api.confirmers import Decide, as_confirmer
from venusctl.api.stream import Body, Run
from venusctl.core.actions import Surface
from venusctl.core.errors import UsageError
from venusctl.drivers.base import Driver, Screen
from venusctl.drivers.factory import DriverOptions, choose_driver, open_driver, surface_of
from venusctl.drivers.wrappers import LentDriver
from venusctl.interface.profile import InterfaceProfile
from venusctl.loop.agent import AgentSettings
from venusctl.loop.events import RunObserver, StepGate
from venusctl.model.base import Model
from venusctl.model.grounding import GroundResult, ground
from venusctl.model.wrappers import ModelWrapper
from venusctl.records.store import default_runs_dir
from venusctl.run.build import (
    ModelOptions,
    RunRequest,
    check_request,
    make_guard,
    open_model,
    run_checked,
    start_cache,
)
from venusctl.run.ground import annotate, image_kind, shot_from_file, shot_of, surface_named
from venusctl.run.oneshot import ActResult, act_on, save_screen
from venusctl.safety.confirm import Confirmer
from venusctl.safety.setup import SafetyOptions, protected


class Agent:
    """A surface and a model for a program: runs, single actions, screenshots, grounding.

    `driver` is `DriverOptions` (opened on first use, closed by `close()`) or a driver
    you opened yourself (never closed here). `model` likewise: `ModelOptions` or a
    `Model`. `confirmer` answers gated actions: a `Confirmer` or a function
    `decide(ConfirmRequest) -> Reply | bool`; without one, a gated action stops the
    run with exit code 3, as a run without a terminal does. `confirm`, `assume_yes`
    and `safety` are the `--confirm`, `--yes` and policy flags.
    """

    def __init__(
        self,
        driver: DriverOptions | Driver | None = None,
        model: ModelOptions | Model | None = None,
        *,
        confirmer: Confirmer | Decide | None = None,
        confirm: str = "policy",
        assume_yes: bool = False,
        safety: SafetyOptions | None = None,
        settings: AgentSettings | None = None,
        runs_dir: Path | None = None,
    ) -> None:
        self.driver_options = driver if isinstance(driver, DriverOptions) else DriverOptions()
        self.model_options = model if isinstance(model, ModelOptions) else ModelOptions()
        self._driver: Driver | None = None if isinstance(driver, DriverOptions | None) else driver
        self._model: Model | None = None if isinstance(model, ModelOptions | None) else model
        self._owns_driver = self._driver is None
        self._owns_model = self._model is None
        self.confirmer = as_confirmer(confirmer)
        self.confirm = confirm
        self.assume_yes = assume_yes
        self.safety = safety or SafetyOptions()
        self.settings = settings or AgentSettings()
        self.runs_dir = runs_dir
        self._busy = False

    # ------------------------------------------------------------ resources
    @property
    def driver(self) -> Driver:
        """The surface, opened now if it is not yet."""
        if self._driver is None:
            self._driver = open_driver(self.driver_options)
        return self._driver

    def model(self, surface: Surface | None = None, profile: InterfaceProfile | None = None,
              load_later: bool = False) -> Model:
        """The model, opened now if it is not yet (scripted, local GGUF or a server).

        `profile` is the interface it is opened for (image budget); `load_later`
        defers loading a local GGUF until its first question, so a run the trajectory
        cache answers entirely never loads it.
        """
        if self._model is None:
            self._model = open_model(self.model_options, surface or Surface.MOBILE, profile,
                                     load_later=load_later)
        return self._model

    def close(self) -> None:
        """Release what this agent opened (the browser, the phone's keyboard, the model)."""
        driver, model = self._driver, self._model
        if self._owns_driver:
            self._driver = None
        if self._owns_model:
            self._model = None
        try:
            if driver is not None and self._owns_driver:
                driver.close()
        finally:
            if model is not None and self._owns_model:
                model.close()

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ run
    def run(
        self,
        task: str | RunRequest,
        *,
        observers: list[RunObserver] | None = None,
        gate: StepGate | None = None,
    ) -> Run:
        """Carry out a task; iterate the result for its events (`venusctl.api.events`).

        A `RunRequest` gives every setting of the run (budgets, prompt, policy,
        runs folder, dry run); a plain task uses the agent's own. Nothing starts
        until the first event is asked for; usage errors are raised from there.
        """
        request = self.request(task) if isinstance(task, str) else task
        return Run(lambda: self._start(request, observers, gate), self.confirmer)

    def request(self, task: str) -> RunRequest:
        """The `RunRequest` a plain task gets from this agent's settings."""
        return RunRequest(
            task=task, driver=self.driver_options, model=self.model_options,
            settings=copy.deepcopy(self.settings), confirm=self.confirm,
            assume_yes=self.assume_yes, safety=self.safety,
            runs_dir=self.runs_dir or default_runs_dir(), output="quiet",
        )

    def _start(self, request: RunRequest, observers: list[RunObserver] | None,
               gate: StepGate | None) -> Body:
        """Check the request and open the model, then the surface (as `run_task` does)."""
        self._claim()
        try:
            plan = check_request(request, self._driver, self._model)
            cached = start_cache(request, plan)
            model = _KeptModel(self.model(plan.surface, plan.interface.profile,
                                          cached is not None and cached.reads))
            driver = LentDriver(self.driver)  # the run does not close the agent's surface
        except BaseException:
            self._busy = False
            raise

        def body(pump: RunObserver, confirmer: Confirmer) -> object:
            try:
                outcome = run_checked(plan, request, driver, model, confirmer,
                                      [pump, *(observers or [])], gate, cached)
            finally:
                self._busy = False
            if cached is not None:
                cached.commit(outcome)
            return outcome

        return body  # type: ignore[return-value]

    # -------------------------------------------------------- single calls
    def act(self, action: str, *, screenshot: Path | None = None) -> ActResult:
        """Perform one action in the model's syntax, through the guard and the confirmer.

        Raises `PolicyDenied` (denied), `NeedsUser` (a confirmation with nobody to
        ask) or `Aborted` (the confirmer said no); nothing is performed then.
        """
        guard = make_guard(self.confirm, self.assume_yes, self.safety)
        with self._using():
            driver = protected(self.driver, confirm=self.confirm, confirmer=self.confirmer)
            # types {{secret:NAME}}, blurs password fields, judges the browser's requests
            result = act_on(driver, action, guard, self.confirmer, self.settings.settle_cap_s)
            if screenshot is not None:
                save_screen(driver.screenshot(), screenshot)
        return result

    def screenshot(self, out: Path | None = None) -> Screen:
        """Exactly what the model would see now; saved as .png or .jpg when `out` is given."""
        with self._using():
            screen = protected(self.driver).screenshot()  # password fields blurred
        if out is not None:
            save_screen(screen, out)
        return screen

    def save_screenshot(self, out: Path) -> str:
        """Save what the model would see; returns the line `venusctl screenshot` prints."""
        with self._using():
            return save_screen(protected(self.driver).screenshot(), out)

    def ground(
        self,
        instruction: str,
        *,
        image: Path | None = None,
        surface: str | Surface = Surface.MOBILE,
        max_tokens: int | None = None,
        annotate_to: Path | None = None,
    ) -> GroundResult:
        """Where is this element? On `image` (pixels of the file, as `surface`) or on the
        live screen (the driver's units, so the point is what `act` would click)."""
        if annotate_to is not None:
            image_kind(annotate_to)
        with self._using():
            if image is not None:
                shot = shot_from_file(image, surface_named(surface))
            else:
                shot = shot_of(self.driver.screenshot(), self.driver.surface)
            result = ground(self.model(shot.surface), shot.part, shot.size, instruction,
                            shot.surface, max_tokens)
        if annotate_to is not None:
            annotate(shot.picture, result, annotate_to)
        return result

    def surface(self) -> Surface:
        """The kind of screen the driver operates (without opening it)."""
        if self._driver is not None:
            return self._driver.surface
        return surface_of(choose_driver(self.driver_options))

    # ------------------------------------------------------------- plumbing
    def _claim(self) -> None:
        if self._busy:
            raise UsageError("this agent is busy with a run; finish or close it first")
        self._busy = True

    def _using(self) -> _Claim:
        return _Claim(self)


class _Claim:
    """Holds the agent for one call: a run in progress cannot be interleaved."""

    def __init__(self, agent: Agent) -> None:
        self._agent = agent

    def __enter__(self) -> None:
        self._agent._claim()

    def __exit__(self, *exc: object) -> None:
        self._agent._busy = False


class _KeptModel(ModelWrapper):
    """The agent's model lent to one run: the run does not unload it."""

    def close(self) -> None:
        return None
