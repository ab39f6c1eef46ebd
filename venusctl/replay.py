"""Replaying a recorded run: its answers played back through today's loop and guard.

A replay is an ordinary run whose model is the record itself, so it goes through
the same parse, place, guard and act steps (and is recorded in its turn). With
`--dry-run` the driver is wrapped so nothing is performed and every confirmation
is answered "yes" without asking, to show what would happen.
"""

from __future__ import annotations

from pathlib import Path

from venusctl.agent import AgentSettings
from venusctl.errors import UsageError
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.record import StoredRun, resolve_run
from venusctl.safety.confirm import Confirmer, ConfirmRequest, Reply
from venusctl.session import RunRequest
from venusctl.surfaces import DriverOptions


class DryRunConfirmer:
    """Answers every prompt itself: in a dry run nothing happens anyway."""

    interactive = False

    def confirm(self, request: ConfirmRequest) -> Reply:
        return Reply.YES

    def ask_user(self, question: str) -> str:
        return "(dry run: no reply)"

    def take_over(self) -> None:
        return None


def recorded_answers(run: StoredRun) -> list[Completion]:
    """Every answer the model gave, rejected ones included, in the order given."""
    answers: list[Completion] = []
    for step in run.steps():
        answers.extend(Completion(text=text) for text in step.get("rejected", []))
        raw = step.get("raw") or ""
        if not raw:
            continue
        separate = "</think>" not in raw.lower() and step.get("thought")
        answers.append(Completion(text=raw, reasoning=step["thought"] if separate else None))
    return answers


def replay_request(
    ref: str,
    runs_dir: Path,
    options: DriverOptions,
    confirm: str,
    assume_yes: bool,
    dry_run: bool,
    output: str,
) -> tuple[RunRequest, ScriptedModel, Confirmer | None]:
    run = resolve_run(ref, runs_dir)
    answers = recorded_answers(run)
    if not answers:
        raise UsageError(f"run {run.run_id} has no recorded answers to replay")
    settings = run.info.get("settings", {})
    options.driver = options.driver or run.info.get("driver")
    options.url = options.url or settings.get("url")
    steps = len(run.steps())
    request = RunRequest(
        task=str(run.info.get("task", "")),
        driver=options,
        settings=AgentSettings(max_steps=max(steps, 1), parse_retries=2,
                               history_images=_int_or_none(settings.get("history_images"))),
        confirm=confirm,
        assume_yes=assume_yes,
        runs_dir=runs_dir,
        output=output,
        dry_run=dry_run,
        extra_settings={"replay_of": run.run_id},
    )
    model = ScriptedModel(answers, name=f"replay:{run.run_id}")
    return request, model, DryRunConfirmer() if dry_run else None


def _int_or_none(value: object) -> int | None:
    """A recorded count, or None (the interface's own) when the record has none."""
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
