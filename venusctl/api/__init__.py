"""venusctl for programs: runs as event streams, single actions, screenshots, grounding.
A thin layer over run/ (like cli/, which it must not import); no logic of its own.

    from pathlib import Path
    from venusctl import Agent, DriverOptions, ModelOptions, Reply, StepFinished

    def decide(request):                 # asked before each gated action
        return Reply.YES if request.category == "payment" else Reply.NO

    with Agent(DriverOptions(driver="web", url="http://127.0.0.1:8000/"),
               ModelOptions(model="~/models/UI-Venus-2-9B-Q4_K_M.gguf"),
               confirmer=decide) as agent:
        run = agent.run("order a green one for Ada")
        for event in run:
            if isinstance(event, StepFinished):
                print(event.step, event.action, event.decision)
        print(run.outcome.status, run.outcome.message)

Without a confirmer a gated action fails closed (exit code 3 in `run.outcome`), as a
run without a terminal does. See docs/python-api.md.
"""

from venusctl.api.agent import Agent
from venusctl.api.confirmers import CallbackConfirmer, as_confirmer
from venusctl.api.events import (
    ConfirmationAnswered,
    ConfirmationAsked,
    ModelText,
    PhaseStarted,
    QuestionAnswered,
    QuestionAsked,
    RunEnded,
    RunEvent,
    RunStarted,
    StepFinished,
    StepStarted,
)
from venusctl.api.stream import Run
from venusctl.core.errors import (
    Aborted,
    DeviceError,
    ExitCode,
    ModelError,
    NeedsUser,
    PolicyDenied,
    UsageError,
    VenusError,
)
from venusctl.drivers.base import Screen
from venusctl.drivers.factory import DriverOptions
from venusctl.loop.agent import AgentSettings
from venusctl.loop.events import RunObserver, StepGate
from venusctl.model.base import SamplingOptions
from venusctl.model.grounding import GroundResult
from venusctl.records.store import Outcome, RunInfo, StepRecord
from venusctl.run.build import ModelOptions, RunRequest
from venusctl.run.oneshot import ActResult
from venusctl.safety.confirm import (
    Confirmer,
    ConfirmRequest,
    NonInteractiveConfirmer,
    Reply,
    TerminalConfirmer,
)
from venusctl.safety.setup import SafetyOptions

__all__ = [
    "Aborted",
    "ActResult",
    "Agent",
    "AgentSettings",
    "CallbackConfirmer",
    "ConfirmRequest",
    "ConfirmationAnswered",
    "ConfirmationAsked",
    "Confirmer",
    "DeviceError",
    "DriverOptions",
    "ExitCode",
    "GroundResult",
    "ModelError",
    "ModelOptions",
    "ModelText",
    "NeedsUser",
    "NonInteractiveConfirmer",
    "Outcome",
    "PhaseStarted",
    "PolicyDenied",
    "QuestionAnswered",
    "QuestionAsked",
    "Reply",
    "Run",
    "RunEnded",
    "RunEvent",
    "RunInfo",
    "RunObserver",
    "RunRequest",
    "RunStarted",
    "SafetyOptions",
    "SamplingOptions",
    "Screen",
    "StepFinished",
    "StepGate",
    "StepRecord",
    "StepStarted",
    "TerminalConfirmer",
    "UsageError",
    "VenusError",
    "as_confirmer",
]
