"""`--help` draws each command's options in their declared panels: the five groups of a
task run read as five short lists, and no option is lost from the help on the way."""

from __future__ import annotations

import re

import pytest

from tests.support.cli_tree import cli_commands
from venusctl.cli import run_cli
from venusctl.cli.panels import OPTIONS

HEADING = re.compile(r"^([A-Z][A-Za-z ]*):$")
OPTION_LINE = re.compile(r"^  (-[-\w]+(?:, -[-\w]+)*)")


def shown_sections(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, list[str]]:
    """The help's sections and, in each, the first name of every option it lists."""
    assert run_cli([*argv, "--help"]) == 0
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in capsys.readouterr().out.splitlines():
        if heading := HEADING.match(line):
            current = sections.setdefault(heading.group(1), [])
        elif current is not None and (option := OPTION_LINE.match(line)):
            current.append(option.group(1).split(", ")[-1].split("/")[0])
    return sections


def test_do_shows_five_panels_in_order_with_only_help_left_over(capsys):
    sections = shown_sections(["do"], capsys)
    assert list(sections) == ["Arguments", "Surface", "Model", "Run budget", "Safety",
                              "Output", OPTIONS]
    assert sections[OPTIONS] == ["--help"]
    assert {"--driver", "--url", "--device", "--monitor"} <= set(sections["Surface"])
    assert {"--model", "--server", "--model-file", "--cache"} <= set(sections["Model"])
    assert {"--max-steps", "--timeout"} <= set(sections["Run budget"])
    assert {"--confirm", "--yes", "--policy", "--dry-run"} <= set(sections["Safety"])
    assert {"--json", "--quiet", "--tui", "--verbose"} <= set(sections["Output"])
    assert all(len(options) <= 16 for options in sections.values())


@pytest.mark.parametrize("path", [path for path, _ in cli_commands(root=True)], ids=" ".join)
def test_every_option_of_every_command_is_shown_once_under_its_panel(path, capsys):
    command = dict((tuple(p), c) for p, c in cli_commands(root=True))[tuple(path)]
    sections = shown_sections(path, capsys)
    shown = [name for section, names in sections.items() if section != "Arguments"
             for name in names]
    declared = {param.name: param for param in command.params  # type: ignore[attr-defined]
                if param.param_type_name == "option" and not param.hidden}
    longest = {max(p.opts, key=len) for p in declared.values()} | {"--help"}
    assert sorted(shown) == sorted(longest)
    for param in declared.values():
        panel = getattr(param, "rich_help_panel", None) or OPTIONS
        assert max(param.opts, key=len) in sections[panel], (param.opts, panel)
