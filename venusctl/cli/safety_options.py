"""The safety flags of `do`, `replay`, `mcp` and `policy`: the fields of `SafetyOptions`,
where each is declared once (flag, help, config key, task-file key)."""

from __future__ import annotations

from venusctl.cli import panels
from venusctl.cli.options import Given, Group
from venusctl.safety.setup import SafetyOptions

SAFETY = Group(SafetyOptions, panel=panels.SAFETY)


def safety_options(given: Given) -> SafetyOptions:
    return SafetyOptions(**given)
