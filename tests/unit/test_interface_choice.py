"""Which interface a run speaks, why, and what the command line says about it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from tests.support.cli import write_answers
from venusctl.cli import run_cli
from venusctl.core.errors import ExitCode, UsageError
from venusctl.interface.choice import resolve_interface
from venusctl.interface.profile import LEAN_IMAGE_MAX_TOKENS, choose_mode, profile_for
from venusctl.records.store import RunInfo
from venusctl.run.observers import ConsoleProgress


@pytest.mark.parametrize(("requested", "backend", "gpu", "mode", "why"), [
    (None, "server", False, "authors", "the model runs on a server"),
    (None, "local", True, "authors", "the local model runs on a GPU"),
    (None, "local", False, "lean", "CPU-only local model"),
    (None, "scripted", False, "authors", "recorded answers"),
    ("authors", "local", False, "authors", "chosen with --interface"),
    ("LEAN", "server", False, "lean", "chosen with --interface"),
])
def test_the_mode_follows_where_the_model_runs(requested, backend, gpu, mode, why):
    chosen, reason = choose_mode(requested, backend, gpu)
    assert chosen == mode and why in reason


def test_lean_keeps_prompts_and_format_but_caps_images_and_resends_none():
    for surface in ("mobile", "desktop", "browser"):
        authors, lean = profile_for(surface), profile_for(surface, "lean")
        assert (lean.history_images, lean.image_max_tokens) == (0, LEAN_IMAGE_MAX_TOKENS)
        assert (authors.history_images, authors.image_max_tokens) == (2, None)
        same = {k: v for k, v in vars(lean).items()
                if k not in ("mode", "history_images", "image_max_tokens")}
        assert same == {k: v for k, v in vars(authors).items() if k in same}


def test_a_server_gets_the_authors_interface_and_a_setting_can_choose(monkeypatch):
    run = resolve_interface({"server": "http://127.0.0.1:9/v1"}, "browser")
    assert run.profile.mode == "authors" and "server" in run.reason
    monkeypatch.setenv("VENUSCTL_INTERFACE", "lean")
    run = resolve_interface({"server": "http://127.0.0.1:9/v1"}, "browser")
    assert run.profile.mode == "lean" and run.record()["interface"] == "lean"
    with pytest.raises(UsageError, match="'huge' is not one of: authors, lean"):
        resolve_interface({"interface": "huge"}, "mobile")


def test_the_first_progress_line_says_which_interface_and_why(tmp_path):
    out = io.StringIO()
    progress = ConsoleProgress(Console(file=out, width=300, highlight=False))
    progress.run_started(RunInfo("r1", "t", "browser", "web", "llama.cpp:m.gguf", tmp_path,
                                 settings={"interface": "lean",
                                           "interface_reason": "CPU-only local model"}))
    first = out.getvalue().splitlines()[0]
    assert "interface lean (CPU-only local model)" in first and "record" in first


def bad_input(tmp_path: Path, *extra: str) -> list[str]:
    answers = write_answers(tmp_path / "a.jsonl", ["<action>Finished()</action>"])
    return ["do", "x", "--driver", "web", "--model-file", str(answers), "--runs-dir",
            str(tmp_path / "runs"), *extra]


@pytest.mark.parametrize(("extra", "message"), [
    (("--interface", "huge"), "--interface: 'huge' is not one of: authors, lean"),
    (("--prompts", "theirs"), "--prompts: 'theirs' is not one of: authors, builtin"),
    (("--prompt", "PROMPT"), "has no {task} placeholder"),
    (("--prompts", "authors"), "the authors' prompts are not pulled"),
])
def test_bad_interface_input_is_one_line_and_exit_2(tmp_path, capsys, extra, message):
    prompt = tmp_path / "mine.md"
    prompt.write_text("Be brief, no placeholder here.")
    args = [str(prompt) if a == "PROMPT" else a for a in extra]
    assert run_cli(bad_input(tmp_path, *args)) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists(), "nothing was started"
