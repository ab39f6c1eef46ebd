"""A whole run built by `run_task`: the policy guard by default, secrets typed unseen."""

from __future__ import annotations

import json

import pytest

from tests.support.fakes import FakeDriver
from tests.support.keyring_env import file_keyring_backend
from venusctl.core.actions import Type
from venusctl.core.errors import UsageError
from venusctl.drivers.base import Element, ScreenContext
from venusctl.drivers.factory import DriverOptions
from venusctl.model.base import Completion
from venusctl.model.scripted import ScriptedModel
from venusctl.records.store import load_run
from venusctl.run.build import RunRequest, run_task
from venusctl.safety.confirm import NonInteractiveConfirmer
from venusctl.safety.secrets import SecretStore
from venusctl.safety.setup import SafetyOptions

VALUE = "Wq9-canary-7781"


@pytest.fixture
def file_keyring():
    yield from file_keyring_backend()


def answer(action: str, thought: str = "t") -> Completion:
    return Completion(text=f"<think>{thought}</think><action>{action}</action>")


def run(tmp_path, answers, driver, **fields):
    model = ScriptedModel(answers)
    request = RunRequest(task="log in and pay", driver=DriverOptions(driver="web"),
                         runs_dir=tmp_path / "runs", output="quiet", **fields)
    outcome = run_task(request, confirmer=NonInteractiveConfirmer(), driver=driver, model=model)
    runs = list((tmp_path / "runs").iterdir())
    return outcome, model, load_run(runs[0])


def test_the_policy_guard_is_the_default(tmp_path, file_keyring):
    pay = FakeDriver(element=Element(text="Pay now", role="button"),
                     context_value=ScreenContext(url="https://shop.example/checkout"))
    outcome, _, stored = run(tmp_path, [answer("Click(point=(5, 5))")], pay)
    assert outcome.exit_code == 3 and pay.performed == []
    assert stored.record.settings["policy"] == "default"
    assert stored.record.settings["confirm"] == "policy"
    link = FakeDriver(element=Element(text="About us", role="link"))
    outcome, _, _ = run(tmp_path / "2", [answer("Click(point=(5, 5))"),
                                         answer("Finished(content='ok')")], link)
    assert outcome.exit_code == 0 and len(link.performed) == 1


def test_flags_reach_the_guard(tmp_path, file_keyring):
    driver = FakeDriver(element=Element(text="Partner site", role="link",
                                        href="https://elsewhere.example/"))
    safety = SafetyOptions(allow_domains=("x",), config={})
    outcome, _, stored = run(tmp_path, [answer("Click(point=(5, 5))")], driver, safety=safety)
    assert outcome.exit_code == 3
    assert stored.steps()[0].verdict["category"] == "leave-domain"
    with pytest.raises(UsageError, match="unknown category"):
        run(tmp_path / "b", [], driver, safety=SafetyOptions(allow_categories=("nope",)))


def test_a_secret_is_typed_but_never_seen_or_recorded(tmp_path, file_keyring):
    SecretStore().set("site_pw", VALUE)

    class Echo(FakeDriver):
        def describe(self, x, y):
            typed = [a.content for a in self.performed if isinstance(a, Type)]
            return Element(text=f"Welcome back ({' '.join(typed)})", role="text")

    driver = Echo(context_value=ScreenContext(url="https://site.example/login"))
    answers = [answer("Type(content='{{secret:site_pw}}')", "Type the stored password."),
               answer("Click(point=(5, 5))", "Look at the greeting."),
               answer("Finished(content='logged in')")]
    safety = SafetyOptions(allow_categories=("secret",), config={})
    outcome, model, stored = run(tmp_path, answers, driver, safety=safety)
    assert outcome.exit_code == 0
    assert driver.performed[0] == Type(VALUE)
    system = model.calls[0][0].text
    assert "{{secret:site_pw}}" in system and VALUE not in system
    assert all(VALUE not in m.text for call in model.calls for m in call)
    for path in stored.path.rglob("*"):
        assert VALUE.encode() not in path.read_bytes(), path
    steps = stored.steps()
    assert steps[0].action == "Type(content='{{secret:site_pw}}')"
    assert "[secret:site_pw]" in json.dumps(steps[1].element)


def test_policy_show_and_check_a_recorded_run(tmp_path, file_keyring, capsys, monkeypatch):
    from venusctl.cli import run_cli

    link = FakeDriver(element=Element(text="About us", role="link"),
                      context_value=ScreenContext(url="https://shop.example/"))
    outcome, _, stored = run(tmp_path, [answer("Click(point=(5, 5))"),
                                        answer("Finished(content='ok')")], link)
    assert outcome.exit_code == 0
    monkeypatch.setenv("VENUSCTL_RUNS_DIR", str(tmp_path / "runs"))
    assert run_cli(["policy", "check", "last"]) == 0
    default_check = capsys.readouterr().out
    assert "0 of 2 actions would be gated" in default_check
    assert run_cli(["policy", "check", stored.run_id, "--policy", "strict"]) == 0
    strict_check = capsys.readouterr().out
    assert "! step   1      allow → confirm  Click(point=(5, 5))" in strict_check
    assert "1 of 2 actions would be gated (1 confirm, 0 deny)" in strict_check
    assert run_cli(["policy", "check", "last", "--json"]) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[0])
    assert line["verdict"]["decision"] == "allow" and line["recorded"]["decision"] == "allow"

    assert run_cli(["policy", "show", "--policy", "strict", "--allow-domain", "shop.example",
                    "--allow-category", "payment"]) == 0
    shown = capsys.readouterr().out
    assert "policy     strict — strict (shipped)" in shown
    assert "allowed: shop.example" in shown and "approved   payment" in shown
    assert "deny    wrecking-command [system]" in shown
    assert run_cli(["policy", "show", "--yaml"]) == 0
    effective = tmp_path / "effective.yaml"
    effective.write_text(capsys.readouterr().out, encoding="utf-8")
    assert run_cli(["policy", "show", "--policy", str(effective)]) == 0
    assert "policy     default — " in capsys.readouterr().out
    assert run_cli(["policy", "show", "--policy", "nope.yaml"]) == 2
    assert "policy file" in capsys.readouterr().err
