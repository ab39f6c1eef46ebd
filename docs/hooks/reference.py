"""The command reference, generated from the typer app at build time (an mkdocs hook).

A page asks for the reference of some commands with `<!-- reference: do act -->`; the
commands page asks for the table of every command with `<!-- commands table -->`. The
text comes from the same click objects `--help` draws (help, usage, panels, defaults),
so the site can never disagree with the command line; tests/integration/test_docs_site.py
compares the two on the built pages.
"""

from __future__ import annotations

import html
import inspect
import re
from collections.abc import Iterator
from typing import Any

import typer
import typer.main

from venusctl.cli import app
from venusctl.cli.panels import option_panels

MARKER = re.compile(r"<!-- reference: ([\w ]+) -->")
TABLE = "<!-- commands table -->"


def _root() -> Any:
    return typer.main.get_command(app)


def anchor(path: list[str]) -> str:
    """The id a command's heading gets: `venusctl-eval-suite` (tests look it up)."""
    return "-".join(["venusctl", *path])


def _text(value: str) -> str:
    """Help text as markdown text: what looks like a tag (`<path>`) is shown, not parsed."""
    return html.escape(value, quote=False)


def _walk(command: Any, path: list[str], parent: typer.Context | None
          ) -> Iterator[tuple[list[str], Any, typer.Context]]:
    ctx = typer.Context(command, info_name=path[-1] if path else "venusctl", parent=parent)
    yield path, command, ctx
    for name, sub in getattr(command, "commands", {}).items():
        if not sub.hidden:
            yield from _walk(sub, [*path, name], ctx)


def commands() -> Iterator[tuple[list[str], Any, typer.Context]]:
    """Every visible command and group under `venusctl`, with a context for its help."""
    yield from _walk(_root(), [], None)


def _section(path: list[str], command: Any, ctx: typer.Context) -> list[str]:
    name = " ".join(["venusctl", *path])
    out = [f"### `{name}` {{ #{anchor(path)} }}", ""]
    if command.help:
        out += [_text(inspect.cleandoc(command.help)), ""]
    usage = " ".join([name, *command.collect_usage_pieces(ctx)])
    out += ["```", usage, "```", ""]
    arguments = [record for param in command.get_params(ctx)
                 if param.param_type_name == "argument"
                 and (record := param.get_help_record(ctx)) is not None]
    panels = [("Arguments", arguments)] + [
        (panel, [r for o in options if (r := o.get_help_record(ctx)) is not None])
        for panel, options in option_panels(command, ctx).items()]
    for panel, records in panels:
        if records:
            out += [f"**{panel}**", ""]
            out += [f"- `{names}`: {_text(' '.join(text.split()))}" if text else f"- `{names}`"
                    for names, text in records]
            out.append("")
    subcommands = [sub for sub in getattr(command, "commands", {}).values() if not sub.hidden]
    if subcommands:
        out += ["Commands: " + ", ".join(
            f"[`{sub.name}`](#{anchor([*path, sub.name])})" for sub in subcommands), ""]
    return out


def reference(names: list[str]) -> str:
    """The reference of these top-level commands and everything under them."""
    out: list[str] = []
    for path, command, ctx in commands():
        if path and path[0] in names:
            out += _section(path, command, ctx)
    return "\n".join(out)


def _pages(files: Any) -> dict[str, str]:
    """Which page holds each top-level command's reference, from the pages' markers."""
    found: dict[str, str] = {}
    for file in files.documentation_pages():
        for marker in MARKER.finditer(file.content_string):
            for name in marker.group(1).split():
                found[name] = file.src_uri
    return found


def table(files: Any, here: str) -> str:
    """Every command with its one-line help and a link to its reference."""
    pages = _pages(files)
    rows = ["| command | what it does |", "| --- | --- |"]
    for path, command, _ in commands():
        if not path:
            continue
        page = pages.get(path[0])
        if page is None:
            raise ValueError(f"no docs page has the reference of `venusctl {path[0]}`")
        target = page.removeprefix(here.rsplit("/", 1)[0] + "/") if "/" in here else page
        summary = _text(" ".join(command.get_short_help_str(limit=300).split()))
        rows.append(f"| [`venusctl {' '.join(path)}`]({target}#{anchor(path)}) | {summary} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    markdown = MARKER.sub(lambda m: reference(m.group(1).split()), markdown)
    if TABLE in markdown:
        markdown = markdown.replace(TABLE, table(files, page.file.src_uri))
    return markdown
