"""Replaying a recorded run: its answers played back through today's loop and guard.

A replay is an ordinary run whose model is the record itself, so it goes through
the same parse, place, guard and act steps (and is recorded in its turn). With
`--dry-run` the driver is wrapped so nothing is performed and every confirmation
is answered "yes" without asking, to show what would happen.

A record is untrusted (it may come from someone else, or have been edited): every
address in it is checked as a `Launch` to it would be. Its answers pass the guard
step by step like any model's; the start address it names is checked before the
browser opens it, and a denied one stops the replay (exit 4) while one the policy
confirms is asked about, even in a dry run, since opening a page is not dry.
"""

from __future__ import annotations

from pathlib import Path

from venusctl.core.actions import Launch
from venusctl.core.errors import Aborted, PolicyDenied, UsageError
from venusctl.drivers.base import ScreenContext
from venusctl.drivers.factory import DriverOptions
from venusctl.loop.agent import AgentSettings
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import StoredRun, resolve_run
from venusctl.run.build import RunRequest
from venusctl.safety.confirm import Confirmer, ConfirmRequest, Reply, default_confirmer
from venusctl.safety.guard import Decision, GuardRequest
from venusctl.safety.sanitize import shown_line
from venusctl.safety.setup import (
    SafetyOptions,
    approved_categories,
    make_policy_guard,
    resolve_policy,
)


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
        answers.extend(Completion(text=str(text)) for text in step.rejected)
        if not step.raw:
            continue
        separate = "</think>" not in step.raw.lower() and step.thought
        answers.append(Completion(text=step.raw, reasoning=step.thought if separate else None))
    return answers


def replay_request(
    ref: str,
    runs_dir: Path,
    options: DriverOptions,
    confirm: str,
    assume_yes: bool,
    dry_run: bool,
    output: str,
    safety: SafetyOptions | None = None,
    confirmer: Confirmer | None = None,
) -> tuple[RunRequest, ScriptedModel, Confirmer | None]:
    run = resolve_run(ref, runs_dir)
    answers = recorded_answers(run)
    if not answers:
        raise UsageError(f"run {run.run_id} has no recorded answers to replay")
    settings = run.record.settings
    safety = safety or SafetyOptions()
    options.driver = options.driver or run.record.driver or None
    if not options.url and settings.get("url"):
        recorded = str(settings["url"])
        check_recorded_address(recorded, safety, confirm, assume_yes,
                               confirmer or default_confirmer())
        options.url = recorded
    steps = len(run.steps())
    request = RunRequest(
        task=run.record.task,
        driver=options,
        settings=AgentSettings(max_steps=max(steps, 1), parse_retries=2,
                               history_images=_int_or_none(settings.get("history_images"))),
        confirm=confirm,
        assume_yes=assume_yes,
        runs_dir=runs_dir,
        output=output,
        dry_run=dry_run,
        extra_settings={"replay_of": run.run_id},
        safety=safety,
    )
    model = ScriptedModel(answers, name=f"replay:{run.run_id}")
    return request, model, DryRunConfirmer() if dry_run else None


def check_recorded_address(url: str, safety: SafetyOptions, confirm: str, assume_yes: bool,
                           confirmer: Confirmer) -> None:
    """The record's start address gets the checks a `Launch` to it would get."""
    policy = resolve_policy(safety)
    launch = Launch(url=url)
    verdict = make_policy_guard(policy, confirm, assume_yes).check(
        GuardRequest(0, launch, launch, None, ScreenContext(), ""))
    where = shown_line(url, 200)
    if verdict.decision is Decision.DENY:
        raise PolicyDenied(f"the recorded start address {where} is denied by the policy: "
                           f"{verdict.reason}")
    approved = approved_categories(policy, safety)
    if verdict.decision is Decision.ALLOW or verdict.category in approved:
        return
    reply = confirmer.confirm(ConfirmRequest(
        0, f"open the recorded start address {url}", None, url,
        verdict.reason, "(from the run record, not from a model)", verdict.category))
    if reply not in (Reply.YES, Reply.ALWAYS):
        raise Aborted(f"the recorded start address {where} was not opened: "
                      f"you answered {reply.value}")
def _int_or_none(value: object) -> int | None:
    """A recorded count, or None (the interface's own) when the record has none."""
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
