"""`venusctl cache list|show|clear`: the stored trajectories as something to inspect."""

from __future__ import annotations

import json
import time
from typing import Annotated, Optional

import typer
from rich.console import Console

from venusctl.cache.entry import Trajectory
from venusctl.cache.options import resolve_cache
from venusctl.cache.store import CacheUnusable, Listed, TrajectoryStore
from venusctl.cli.panels import Typer
from venusctl.core.errors import UsageError
from venusctl.core.text import one_line

cache_app = Typer(help="List, inspect and clear the trajectory cache.",
                        no_args_is_help=True)
KeyArg = Annotated[str, typer.Argument(help="Entry id or a unique prefix of it "
                                            "(see `venusctl cache list`).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]


def register(app: typer.Typer) -> None:
    app.add_typer(cache_app, name="cache")


def _store() -> TrajectoryStore:
    return TrajectoryStore(resolve_cache().where())


@cache_app.command("list")
def list_command(json_out: JsonOpt = False) -> int:
    """List the stored trajectories, newest first.

    Example: venusctl cache list
    """
    store = _store()
    try:
        entries = store.entries()
    except CacheUnusable as exc:
        raise UsageError(str(exc)) from None
    if json_out:
        for entry in entries:
            print(json.dumps(_summary(entry), ensure_ascii=False))
        return 0
    if not entries:
        Console(stderr=True).print(f"no stored trajectories in {store.folder}", markup=False)
        return 0
    console = Console(highlight=False, soft_wrap=True)
    console.print(f"{'entry':<16}  {'steps':>5}  {'surface':<8}  {'app or site':<20}  "
                  f"{'screen':<9}  {'stored':<16}  task", markup=False)
    for entry in entries:
        row = _summary(entry)
        if entry.trajectory is None:
            console.print(f"{entry.id[:16]:<16}  unusable: {_plain(row['problem'])}",
                          markup=False)
            continue
        console.print(f"{row['id']:<16}  {row['steps']:>5}  {row['surface']:<8}  "
                      f"{_plain(row['place'], 20):<20}  {row['screen']:<9}  "
                      f"{_when(row['created_at']):<16}  {_plain(row['task'], 80)}", markup=False)
    return 0


@cache_app.command("show")
def show_command(key: KeyArg, json_out: JsonOpt = False) -> int:
    """Show one stored trajectory: its key, the run it came from, and every step.

    Example: venusctl cache show d947
    """
    store = _store()
    path = store.find(key)
    try:
        trajectory = store.read(path)
    except CacheUnusable as exc:
        raise UsageError(str(exc)) from None
    if trajectory is None:
        raise UsageError(f"no cache entry '{key}' in {store.folder}")
    if json_out:
        print(json.dumps({"id": trajectory.id, "path": str(path), **trajectory.payload()},
                         ensure_ascii=False, indent=2))
        return 0
    _print_entry(trajectory, str(path))
    return 0


@cache_app.command("clear")
def clear_command(
    key: Annotated[Optional[str], typer.Argument(  # noqa: UP045
        help="Entry id or unique prefix; without it, every entry.")] = None,
) -> int:
    """Remove one stored trajectory, or all of them.

    Example: venusctl cache clear d947
    """
    store = _store()
    if key is None:
        removed = store.clear()
        print(f"removed {removed} cached trajector{'y' if removed == 1 else 'ies'} "
              f"from {store.folder}")
        return 0
    path = store.find(key)
    store.remove(path)
    print(f"removed {path.name.removesuffix('.json')}")
    return 0


def _print_entry(trajectory: Trajectory, path: str) -> None:
    console = Console(highlight=False, soft_wrap=True)
    key = trajectory.key
    lines = [
        f"entry   {trajectory.id}", f"file    {path}",
        f"task    {_plain(trajectory.task)}",
        f"key     {key.surface} · {_plain(key.place) or '(no app or site)'} · {key.screen}"
        f" · {_plain(key.task)!r}",
        f"stored  {_when(trajectory.created_at)} from run {_plain(trajectory.run_id)} "
        f"(model {_plain(trajectory.model)})",
    ]
    for line in lines:
        console.print(line, markup=False)
    for step in trajectory.steps:
        target = " ".join(_plain(v, 40) for v in (step.element or {}).values())
        verdict = (step.verdict or {}).get("decision", "")
        category = (step.verdict or {}).get("category")
        verdict = f"{verdict} [{category}]" if category else verdict
        parts = [f"  {step.step:>3}", _plain(step.action, 80), target, verdict, step.source]
        console.print("  ".join(p for p in parts if p), markup=False)


def _summary(entry: Listed) -> dict[str, object]:
    trajectory = entry.trajectory
    if trajectory is None:
        return {"id": entry.id, "path": str(entry.path), "problem": entry.problem}
    key = trajectory.key
    return {"id": trajectory.id, "path": str(entry.path), "task": trajectory.task,
            "surface": key.surface, "place": key.place, "screen": key.screen,
            "steps": len(trajectory.steps), "created_at": trajectory.created_at,
            "run_id": trajectory.run_id, "model": trajectory.model}


def _when(stamp: object) -> str:
    if not isinstance(stamp, (int, float)) or not stamp:
        return ""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def _plain(value: object, limit: int = 300) -> str:
    """Text that came from a model or a page, made safe for a terminal: one line, no
    control characters (no escape sequences)."""
    text = "".join(ch if ch.isprintable() else " " for ch in str(value or ""))
    return one_line(text, limit)
