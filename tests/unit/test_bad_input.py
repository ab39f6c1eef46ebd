"""Bad input is one line and exit 2: policies of the wrong shape, tasks that are not
UTF-8. Nothing is opened or recorded first."""

from __future__ import annotations

from pathlib import Path

import pytest

from venusctl.cli import run_cli
from venusctl.core.errors import UsageError
from venusctl.safety.policy import load_policy

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("body", "says"), [
    ("keywords: {payment: [[pay, buy]]}", "keywords.payment[0] must be a word, not a list"),
    ("extends: default\nkeywords: {payment: [[pay, buy]]}", "keywords.payment[0]"),
    ("extends: default\nallow_domains: [a.example, [b.example]]", "allow_domains[1]"),
    ("keywords: [pay]", "'keywords' must map list names"),
    ("keywords: {affirmative: [yes, ok]}", "is true, not a word (quote it: 'yes')"),
    ("secrets: [bank_pin]", "'secrets' must map secret names"),
    ("secrets: {bank_pin: [bank.example]}", "secrets.bank_pin must be a mapping"),
    ("secrets: {bank_pin: {domains: [[bank.example]]}}", "secrets.bank_pin.domains[0]"),
    ("rules: {a: b}", "'rules' must be a list of rules"),
    ("rules: [pay]", "rule 1 must be a mapping"),
    ("rules: [{id: [x], verdict: confirm, when: {target: pay}}]", "rule 1: id must be text"),
    ("rules: [{id: x, verdict: confirm, when: {target: [[pay]]}}]", "when.target[0]"),
    ("rules: [{id: x, verdict: confirm, when: {target: {a: b}}}]", "when.target must be a list"),
    ("rules: [{id: x, verdict: confirm, when: [target]}]", "when must be a mapping"),
    ("rules: [{id: x, verdict: confirm, when: {blind: 'yes'}}]", "'blind' must be true or false"),
    ("name: {a: 1}", "name must be text, not a mapping"),
    ("extends: [default]", "extends must be text, not a list"),
    ("otherwise: [allow]", "otherwise must be text, not a list"),
    ("deny_domains: {a: b}", "deny_domains must be a list of words, not a mapping"),
])
def test_a_policy_of_the_wrong_shape_is_one_line_and_exit_2(tmp_path: Path, capsys, body, says):
    path = tmp_path / "p.yaml"
    path.write_text(body + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match=None) as raised:
        load_policy(path)
    assert says in str(raised.value)
    assert run_cli(["policy", "show", "--policy", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("venusctl: policy ") and says in err


def test_one_word_stands_for_a_list_of_one_also_through_extends(tmp_path: Path):
    path = tmp_path / "p.yaml"
    path.write_text("extends: default\nallow_domains: shop.example\ndisable_rules: 3\n",
                    encoding="utf-8")
    assert load_policy(path).allow_domains == ("shop.example",)


def test_a_task_that_is_not_utf8_is_refused_before_anything_is_recorded(tmp_path, capsys):
    runs = tmp_path / "runs"
    task = b"buy \xff milk".decode("utf-8", "surrogateescape")  # as Python receives argv
    code = run_cli(["do", task, "--runs-dir", str(runs), "--driver", "web"])
    assert code == 2
    err = capsys.readouterr().err
    assert err == "venusctl: the task is not valid UTF-8 text (undecodable byte at position " \
                  "4); give it as UTF-8\n"
    assert not runs.exists()
