"""The front door: a short README whose set-up commands are the ones CI runs, and a
documentation site where everything the README used to hold still has a home."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tests.support.cli_tree import cli_commands

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"

# Every heading of the README before the site existed (2,329 lines, commit cb8672c), and
# the docs page and heading that now hold its text. A heading renamed on the way names
# its new title.
HOMES: dict[str, tuple[str, str | None]] = {
    "venusctl": ("index.md", None),
    "Set-up": ("getting-started.md", None),
    "Try it without a device": ("getting-started.md", None),
    "Usage": ("commands/index.md", "Commands"),
    "`venusctl do` — carry out a task": ("commands/run.md", None),
    "Live view — `venusctl do --tui`": ("commands/run.md", None),
    "`venusctl act` — perform one action": ("commands/run.md", None),
    "`venusctl screenshot` — what the model would see": ("commands/run.md", None),
    "`venusctl runs` — recorded runs": ("commands/records.md", None),
    "`venusctl cache` — tasks done before, replayed without the model":
        ("commands/records.md", None),
    "`venusctl replay` — run a record again": ("commands/run.md", None),
    "`venusctl batch` — many tasks, unattended, several at a time": ("commands/batch.md", None),
    "`venusctl eval` — grounding accuracy and task success": ("commands/batch.md", None),
    "`venusctl ground` — where is this element?": ("commands/batch.md", None),
    "`venusctl report` — a run as a web page or a GIF": ("commands/records.md", None),
    "`venusctl doctor` — is this machine ready?": ("commands/setup.md", None),
    "`venusctl devices` — what can be operated": ("commands/setup.md", None),
    "`venusctl mcp` — venusctl's tools for MCP clients": ("commands/programs.md", None),
    "`venusctl device` — raw phone verbs (debugging)": ("commands/setup.md", None),
    "`venusctl model` — download, list and inspect models": ("commands/setup.md", None),
    "`venusctl policy` — the safety rules, and what they would gate":
        ("commands/safety.md", None),
    "`venusctl prompts` — the model authors' own prompt texts": ("commands/setup.md", None),
    "`venusctl secret` — passwords the agent types without seeing them":
        ("commands/safety.md", None),
    "`venusctl sim` — a simulated phone, web app or desktop to try things on":
        ("commands/programs.md", None),
    "`venusctl session` — keep a browser between commands": ("commands/programs.md", None),
    "Python API": ("python-api.md", None),
    "MCP server": ("mcp.md", None),
    "Model interface": ("model-interface.md", None),
    "Local model": ("local-model.md", None),
    "Remote servers": ("local-model.md", None),
    "Batch runs": ("batch.md", None),
    "Trajectory cache": ("cache.md", None),
    "Evaluation": ("evaluation.md", None),
    "`venusctl eval grounding DATASET` — ScreenSpot-style grounding accuracy":
        ("evaluation.md", None),
    "`venusctl eval suite [SUITE]` — success rate, steps and time on offline tasks":
        ("evaluation.md", None),
    "Safety": ("safety.md", None),
    "Drivers": ("drivers/index.md", None),
    "Web (Playwright + Chromium)": ("drivers/web.md", None),
    "Android (adb)": ("drivers/android.md", None),
    "Desktop (mss + pyautogui)": ("drivers/desktop.md", None),
    "Exit codes": ("commands/index.md", None),
    "Architecture": ("architecture.md", None),
    "Benchmarks": ("benchmarks.md", None),
    "Test suite time": ("benchmarks.md", None),
    "Web loop overhead": ("benchmarks.md", None),
    "Web request gate": ("benchmarks.md", None),
    "Action parser fuzzing": ("benchmarks.md", None),
    "Android screenshots and loop overhead": ("benchmarks.md", None),
    "Desktop loop overhead": ("benchmarks.md", None),
    "Local model (llama.cpp)": ("benchmarks.md", None),
    "Model interface cost": ("benchmarks.md", None),
    "Model files: header reading and checksums": ("benchmarks.md", None),
    "Reports and the live view": ("benchmarks.md", None),
    "Safety guard": ("benchmarks.md", None),
    "Trajectory cache: a repeated suite": ("benchmarks.md", None),
    "Describing targets (desktop and phone)": ("benchmarks.md", None),
    "Batch concurrency": ("benchmarks.md", None),
    "Licence": ("index.md", None),
}


def headings(path: Path) -> list[str]:
    """The markdown headings of a page, outside code blocks."""
    found, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"^#{1,6} (.+?)(?: \{[^}]*\})?$", line)):
            found.append(match.group(1))
    return found


def code_blocks(text: str) -> list[str]:
    return [block.strip() for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)]


def section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_is_at_most_300_lines():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 300


def test_the_readme_test_command_is_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (run,) = [line.split(None, 1)[1] for line in ci.splitlines() if line.startswith("exec ")]
    blocks = code_blocks(section(README.read_text(encoding="utf-8"), "Set-up"))
    assert len(blocks) == 2
    install, test = blocks
    assert shlex.split(test) == shlex.split(run) == ["scripts/test.sh"]
    script = shlex.split(install)[0]
    assert script == "scripts/install.sh" and (ROOT / script).stat().st_mode & 0o111
    assert "venusctl do" in install


def test_the_docs_give_the_same_two_set_up_commands():
    readme = code_blocks(section(README.read_text(encoding="utf-8"), "Set-up"))
    docs = code_blocks(section((DOCS / "getting-started.md").read_text(encoding="utf-8"),
                               "Set-up"))
    assert readme[0] in docs and readme[1] in docs


def test_every_heading_of_the_old_readme_has_a_home_in_the_docs():
    for heading, (page, renamed) in HOMES.items():
        assert (renamed or heading) in headings(DOCS / page), (heading, page)


def test_the_readme_links_reach_files_of_the_repository():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    local = [link for link in links if "://" not in link]
    assert local and all((ROOT / link).is_file() for link in local), local


def test_every_benchmark_section_has_its_date_and_command():
    """A figure without its date and the command that prints it cannot be checked again."""
    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    sections = text.split("\n## ")[1:]
    assert len(sections) >= 10
    for body in sections:
        title = body.split("\n", 1)[0]
        assert re.search(r"\b20\d\d-\d\d-\d\d\b", body), title
        assert "benchmarks/" in body, title


def test_every_command_has_an_example_in_the_docs():
    """The reference says what a command takes; an example says how people use it."""
    text = "\n".join(page.read_text(encoding="utf-8") for page in DOCS.rglob("*.md"))
    examples = "\n".join(code_blocks(text))
    missing = [" ".join(path) for path, _ in cli_commands()
               if not re.search(rf"venusctl {re.escape(' '.join(path))}(\s|$)", examples)]
    assert missing == []
