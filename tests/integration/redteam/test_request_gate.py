"""The request gate as a user meets it: `venusctl do` from a script, and a person answering.

A "Continue" button posts a card number: the guard cannot tell, the request gate
can. Without a terminal the run stops with exit 3, the pending request in the
record and nothing at the server; `--allow-category payment` lets it go. A person
who answers no has the request blocked and the model told; yes lets it through.
A navigation to a denied address stops the run with exit 4.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import VENUSCTL, only_run, write_answers
from tests.support.tools import chromium
from tests.support.web_redteam import VIEWPORT
from tests.support.web_redteam_site import RedTeamSite
from venusctl.core.actions import Surface
from venusctl.core.grid import to_grid
from venusctl.drivers.factory import DriverOptions
from venusctl.drivers.web.driver import WebDriver, WebOptions
from venusctl.loop.agent import AgentSettings
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.run.build import RunRequest, run_task
from venusctl.safety.confirm import TerminalConfirmer
from venusctl.safety.setup import SafetyOptions

CONTINUE = to_grid((320, 230), VIEWPORT, Surface.BROWSER)
CLICK = f"<think>Continue.</think><action>Click(point={CONTINUE})</action>"
DONE = "<think>Done.</think><action>Finished(content='done')</action>"


@pytest.fixture
def site() -> Iterator[RedTeamSite]:
    with RedTeamSite() as server:
        yield server


def venusctl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([VENUSCTL, *args], capture_output=True, text=True, timeout=180,
                          env=dict(os.environ), stdin=subprocess.DEVNULL)


def test_without_a_terminal_the_request_is_held_and_recorded(site, tmp_path):
    answers = write_answers(tmp_path / "answers.jsonl", [CLICK, DONE])
    common = ["do", "go on", "--driver", "web", "--url", site.allowed + "/p/requests.html",
              "--browser-path", chromium(), "--model-file", str(answers)]
    held = venusctl(*common, "--runs-dir", str(tmp_path / "runs"))
    assert held.returncode == 3, held.stderr
    assert "needs confirmation (payment)" in held.stderr
    assert [h for h in site.hits if h.sink] == []
    step = json.loads((only_run(tmp_path / "runs") / "steps.jsonl").read_text().splitlines()[-1])
    assert step["verdict"]["decision"] == "allow"  # the guard saw only "Continue"
    pending = step["requests"][-1]
    assert pending["url"].endswith("/sink/checkout") and pending["method"] == "POST"
    assert pending["category"] == "payment" and pending["reply"] == "unanswered"

    allowed = venusctl(*common, "--runs-dir", str(tmp_path / "runs2"),
                       "--allow-category", "payment")
    assert allowed.returncode == 0, allowed.stderr
    assert [h.path for h in site.hits if h.sink] == ["/sink/checkout"]


def test_a_denied_address_however_written_stops_the_run(site, tmp_path):
    policy = tmp_path / "policy.yaml"
    policy.write_text("extends: default\ndeny_domains: [127.0.0.1]\n")
    answers = write_answers(tmp_path / "answers.jsonl", [CLICK, DONE])
    done = venusctl("do", "go on", "--driver", "web", "--url",
                    site.other + "/p/deny.html?t=js-decimal", "--browser-path", chromium(),
                    "--model-file", str(answers), "--policy", str(policy),
                    "--runs-dir", str(tmp_path / "runs"))
    assert done.returncode == 4, done.stderr
    assert [h for h in site.hits if h.host.startswith("127.0.0.1")] == []


def run_answering(site: RedTeamSite, tmp_path: Path, reply: str) -> tuple[int, ScriptedModel, str]:
    url = site.allowed + "/p/requests.html?t=messages"
    driver = WebDriver(WebOptions(url=url, viewport=VIEWPORT, browser_path=chromium()))
    shown = io.StringIO()
    confirmer = TerminalConfirmer(read_line=lambda: reply + "\n", out=shown)
    model = ScriptedModel([Completion(text=CLICK), Completion(text=DONE)])
    request = RunRequest(task="go on", driver=DriverOptions(driver="web", url=url),
                         settings=AgentSettings(max_steps=3, settle_cap_s=1.5),
                         safety=SafetyOptions(config={}), runs_dir=tmp_path, output="quiet")
    outcome = run_task(request, confirmer=confirmer, driver=driver, model=model)
    return int(outcome.exit_code), model, shown.getvalue()


def test_a_person_declines_or_allows_the_request(site, tmp_path):
    code, model, shown = run_answering(site, tmp_path / "no", "n")
    assert code == 0
    assert "POST" in shown and "/sink/messages" in shown and "[send]" in shown
    assert [h for h in site.hits if h.sink] == []
    told = model.calls[1][-1].text  # the model learns its click's request was refused
    assert "declined" in told and "/sink/messages" in told

    code, _model, _shown = run_answering(site, tmp_path / "yes", "y")
    assert code == 0
    assert [h.path for h in site.hits if h.sink] == ["/sink/messages"]


def test_act_judges_the_requests_of_its_one_action(site):
    done = venusctl("act", f"Click(point={CONTINUE})", "--driver", "web", "--url",
                    site.allowed + "/p/requests.html?t=fetch-delete", "--browser-path",
                    chromium())
    assert done.returncode == 3, done.stderr
    assert "needs confirmation (delete)" in done.stderr
    assert [h for h in site.hits if h.sink] == []
