"""`venusctl prompts`: fetch the model authors' own prompt texts, or show a prompt."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from venusctl.cli.panels import Typer

prompts_app = Typer(help="The prompt texts the model is given.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(prompts_app, name="prompts")


@prompts_app.command("pull")
def pull(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Download without asking.")] = False,
) -> int:
    """Download the UI-Venus authors' prompt texts (pinned commit, SHA-256 checked).

    Their texts are used from then on (--prompts authors is the default once pulled).

    Example: venusctl prompts pull --yes
    """
    from venusctl.core.errors import UsageError
    from venusctl.interface.authors_prompts import FILES
    from venusctl.interface.authors_prompts import pull as pull_files
    from venusctl.interface.profile import AUTHORS_COMMIT, AUTHORS_REPO

    names = ", ".join(f.path.rsplit("/", 1)[-1] for f in FILES)
    question = (f"download {len(FILES)} files of {AUTHORS_REPO} at commit "
                f"{AUTHORS_COMMIT[:12]} ({names}) to take their prompt texts?")
    if not yes and not _consent(question):
        raise UsageError("the authors' prompts were not downloaded (pass --yes to agree "
                         "without a terminal)")
    folder = pull_files()
    print(f"pulled the authors' prompts into {folder}; runs now use them "
          "(--prompts builtin for venusctl's own)")
    return 0


@prompts_app.command("show")
def show(
    surface: Annotated[str, typer.Argument(help="mobile, desktop, browser or grounding.")],
    prompts: Annotated[
        str, typer.Option("--prompts", help="authors or builtin (default: the one in use).")
    ] = "",
) -> int:
    """Print the prompt template a run on SURFACE would use.

    Example: venusctl prompts show browser --prompts builtin
    """
    from venusctl.core.errors import UsageError
    from venusctl.interface.choice import prompt_source
    from venusctl.interface.messages import load_template
    from venusctl.interface.profile import SURFACES

    if surface not in SURFACES:
        raise UsageError(f"unknown surface '{surface}'; choose one of: {', '.join(SURFACES)}")
    source = prompt_source(prompts or None)
    print(load_template(surface, source=source))
    return 0


def _consent(question: str) -> bool:
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    sys.stderr.write(f"venusctl: {question} [y/N] ")
    sys.stderr.flush()
    try:
        return input().strip().lower() in ("y", "yes")
    except EOFError:
        return False
