"""The work of each MCP tool, done through `venusctl.api` in a worker thread.

Everything a tool returns passes through `scrub`, which replaces the value of every
stored secret by `[secret:NAME]`: a page may echo a value, an error may quote it,
and none of that may reach the client or the server's log. Safety settings (policy,
approved categories, confirmation mode) and the model come from the server's own
command line, never from a tool's arguments, so a client cannot lower the gate.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio.from_thread
from pydantic import BaseModel, ConfigDict, Field

from venusctl.api import Agent, StepFinished
from venusctl.core.errors import Aborted, NeedsUser, PolicyDenied, UsageError
from venusctl.drivers.factory import DriverOptions, parse_viewport
from venusctl.loop.agent import AgentSettings
from venusctl.mcp.confirm import ElicitingConfirmer
from venusctl.records.store import list_runs
from venusctl.run.build import ModelOptions
from venusctl.safety.redact import Redactor
from venusctl.safety.secrets import SecretStore
from venusctl.safety.setup import SafetyOptions

log = logging.getLogger(__name__)

DriverName = Literal["web", "android", "desktop"]


@dataclass
class ServerConfig:
    """What `venusctl mcp`'s own flags fix for every tool call."""

    model: ModelOptions = field(default_factory=ModelOptions)
    safety: SafetyOptions = field(default_factory=SafetyOptions)
    confirm: str = "policy"
    assume_yes: bool = False
    runs_dir: Path = Path("runs")
    browser_path: str | None = None
    headless: bool = True
    redactor: Redactor = field(default_factory=Redactor)


class TaskOptions(BaseModel):
    """Where and how long: the surface's settings and the run's budget."""

    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(None, description="web: the page to open first")
    session: str | None = Field(None, description="a kept session (venusctl session start): "
                                                  "work in its page, phone or monitor")
    device: str | None = Field(None, description="android: the phone's serial")
    monitor: int | None = Field(None, ge=1, description="desktop: monitor number")
    viewport: str | None = Field(None, pattern=r"^\d{3,4}x\d{3,4}$",
                                 description="web: viewport in CSS pixels, WxH")
    max_steps: int = Field(30, ge=1, le=200, description="step budget")
    timeout_s: float | None = Field(None, gt=0, description="stop after this many seconds")


def load_secrets(redactor: Redactor) -> None:
    """Teach the redactor every stored secret's value (none when no keyring works)."""
    store = SecretStore()
    try:
        for name in store.names():
            value = store.get(name)
            if value:
                redactor.add(name, value)
    except UsageError as exc:
        log.info("no secrets to hide: %s", exc)


def scrub(config: ServerConfig, value: Any) -> Any:
    return config.redactor.scrub_any(value)


def driver_options(config: ServerConfig, driver: str | None, options: TaskOptions
                   ) -> DriverOptions:
    if not driver and not options.session:
        raise UsageError("say which surface to use: driver web, android or desktop "
                         "(or options.session)")
    return DriverOptions(
        driver=driver, url=options.url, headless=config.headless,
        viewport=parse_viewport(options.viewport) if options.viewport else
        DriverOptions().viewport, browser_path=config.browser_path, device=options.device,
        monitor=options.monitor, session=options.session)


def _agent(config: ServerConfig, options: DriverOptions, ctx: Any,
           settings: AgentSettings | None = None) -> Agent:
    return Agent(options, config.model, confirmer=ElicitingConfirmer(ctx),
                 confirm=config.confirm, assume_yes=config.assume_yes, safety=config.safety,
                 settings=settings,
                 runs_dir=config.runs_dir)


def do_task(config: ServerConfig, ctx: Any, task: str, driver: str | None,
            options: TaskOptions) -> dict[str, Any]:
    settings = AgentSettings(max_steps=options.max_steps, timeout_s=options.timeout_s)
    with _agent(config, driver_options(config, driver, options), ctx, settings) as agent:
        run = agent.run(task)
        for event in run:
            if isinstance(event, StepFinished):
                _progress(ctx, event.step, options.max_steps, f"step {event.step}: "
                          f"{event.action or '(no action)'}")
    outcome = run.outcome
    assert outcome is not None
    finished = int(outcome.exit_code) == 0
    return scrub(config, {
        "answer": outcome.message if finished else None,
        "outcome": outcome.status,
        "exit_code": int(outcome.exit_code),
        "message": outcome.message,
        "steps": outcome.steps,
        "run_id": run.run_id,
        "run_dir": str(run.info.run_dir) if run.info else None,
    })


def _progress(ctx: Any, step: int, total: int, message: str) -> None:
    try:
        anyio.from_thread.run(ctx.report_progress, step, total, message)
    except Exception as exc:  # progress is a courtesy; a client that ignores it is fine
        log.debug("progress not sent: %s", exc)


def act(config: ServerConfig, ctx: Any, action: str, driver: str | None,
        options: TaskOptions) -> dict[str, Any]:
    with _agent(config, driver_options(config, driver, options), ctx) as agent:
        try:
            result = agent.act(action)
        except NeedsUser as exc:
            return scrub(config, {"performed": False, "outcome": "needs_user",
                                  "message": str(exc)})
        except PolicyDenied as exc:
            return scrub(config, {"performed": False, "outcome": "denied", "message": str(exc)})
        except Aborted as exc:
            return scrub(config, {"performed": False, "outcome": "declined",
                                  "message": str(exc)})
    return scrub(config, {"performed": True, "outcome": "performed", "message": result.report(),
                          "action": result.action, "placed": result.placed,
                          "target": result.target})


def screenshot(config: ServerConfig, driver: str | None, options: TaskOptions
               ) -> tuple[bytes, str]:
    with _agent(config, driver_options(config, driver, options), None) as agent:
        screen = agent.screenshot()
    return screen.data, "png" if screen.mime == "image/png" else "jpeg"


def ground(config: ServerConfig, instruction: str, driver: str | None,
           options: TaskOptions) -> dict[str, Any]:
    with _agent(config, driver_options(config, driver, options), None) as agent:
        result = agent.ground(instruction)
    data = result.as_dict()
    data.pop("raw", None)
    return scrub(config, data)


def devices() -> dict[str, Any]:
    from venusctl.drivers.inventory import inventory

    return inventory().as_dict()


def runs(config: ServerConfig, limit: int) -> list[dict[str, Any]]:
    rows = []
    for stored in list_runs(config.runs_dir)[-limit:]:
        outcome = stored.outcome
        rows.append({"run_id": stored.run_id, "task": stored.record.task,
                     "driver": stored.record.driver, "status": outcome.status,
                     "exit_code": outcome.exit_code, "steps": outcome.steps,
                     "answer": outcome.message, "run_dir": str(stored.path)})
    return scrub(config, rows)
