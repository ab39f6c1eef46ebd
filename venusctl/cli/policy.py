"""`policy show` and `policy check`: the effective rules, and what they would gate."""

from __future__ import annotations

from typing import Annotated

import typer

from venusctl.cli.common import RunsDirOpt, runs_dir
from venusctl.cli.options import Given, flags
from venusctl.cli.panels import Typer
from venusctl.cli.safety_options import SAFETY, safety_options
from venusctl.safety.sanitize import json_text, shown

policy_app = Typer(help="Show the safety policy, or try it on a recorded run.",
                         no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(policy_app, name="policy")


@policy_app.command("show")
@flags(safety_flags=SAFETY)
def show_command(
    safety_flags: Given = None,  # type: ignore[assignment]  # the safety flags
    yaml_out: Annotated[bool, typer.Option("--yaml", help="The effective policy as one YAML "
                                                          "file you can edit and load.")] = False,
    keywords: Annotated[bool, typer.Option(help="List every keyword.")] = False,
) -> int:
    """Print the effective policy: rules, lists, categories, keywords.

    Example: venusctl policy show --policy strict --allow-domain example.org
    """
    from venusctl.safety.setup import approved_categories, resolve_policy
    from venusctl.safety.show import policy_text, policy_yaml

    options = safety_options(safety_flags)
    effective = resolve_policy(options)
    approved = approved_categories(effective, options)
    text = policy_yaml(effective) if yaml_out else policy_text(effective, approved, keywords)
    print(shown(text, newlines=True))
    return 0


@policy_app.command("check")
@flags(safety_flags=SAFETY.but("allow_categories"))
def check_command(
    run: Annotated[str, typer.Argument(help="Run id, id prefix, folder, or 'last'.")],
    safety_flags: Given = None,  # type: ignore[assignment]  # the safety flags
    runs: RunsDirOpt = None,
    json_out: Annotated[bool, typer.Option("--json", help="One JSON object per step.")] = False,
) -> int:
    """Re-evaluate a recorded run against a policy and list what it would have gated.

    Example: venusctl policy check last --policy strict
    """
    from venusctl.records.store import resolve_run
    from venusctl.safety.recheck import recheck
    from venusctl.safety.setup import resolve_policy
    from venusctl.safety.show import recheck_text

    stored = resolve_run(run, runs_dir(runs))
    effective = resolve_policy(safety_options(safety_flags))
    results = recheck(stored, effective)
    if json_out:
        for item in results:
            print(json_text(item.as_dict()))
    else:
        print(shown(recheck_text(stored.run_id, effective, results), newlines=True))
    return 0
