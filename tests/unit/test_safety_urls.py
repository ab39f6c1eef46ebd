"""Addresses as the browser reads them, in lists, Launch checks and replayed records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from venusctl.cli import run_cli
from venusctl.safety.places import host_of, href_of, in_domains

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("url", "host"), [
    ("http://2130706433/", "127.0.0.1"),
    ("http://127.1/", "127.0.0.1"),
    ("http://0x7f.1/", "127.0.0.1"),
    ("http://0177.0.0.1/", "127.0.0.1"),
    ("HTTPS://Shop.EXAMPLE./x", "shop.example"),
    ("http:\\\\evil.example\\x", "evil.example"),
    ("http://localhost:8080\\@127.0.0.1:8080/", "localhost"),
    ("http://bücher.example/", "xn--bcher-kva.example"),
    ("http://b%61nk.example/", "bank.example"),
    ("shop.example/cart", "shop.example"),
    ("localhost:8080/x", "localhost"),
    ("http://[::1]:80/", "[::1]"),
    ("about:blank", None),
    ("javascript:alert(1)", None),
    ("file:///etc/passwd", "file"),
    ("http://a b/", "(invalid address)"),
])
def test_hosts_are_read_as_chromium_reads_them(url: str, host: str | None):
    assert host_of(url) == host


def test_list_entries_are_read_the_same_way():
    assert in_domains("127.0.0.1", ["127.1"]) and in_domains("[::1]", ["::1"])
    assert in_domains("xn--bcher-kva.example", ["BÜCHER.example."])
    assert in_domains("www.shop.example", ["shop.example"])
    assert in_domains("www.shop.example", ["*.shop.example"])
    assert not in_domains("shop.example", ["*.shop.example"])
    assert not in_domains("127.0.0.1", ["0.0.1"]) and not in_domains("110.0.0.1", ["10.0.0.1"])
    assert not in_domains("(invalid address)", ["*"])
    assert href_of("example.com") == "http://example.com/"


def write_run(runs: Path, url: str) -> Path:
    run = runs / "20260101-000000-replayed-0000"
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({
        "run_id": run.name, "task": "look", "surface": "browser", "driver": "web",
        "model": "m", "settings": {"url": url}, "started_at": 1.0,
        "outcome": {"status": "finished"}}), encoding="utf-8")
    (run / "steps.jsonl").write_text(json.dumps({
        "step": 1, "raw": "<think>x</think><action>Finished(content='ok')</action>"}) + "\n",
        encoding="utf-8")
    return run


def test_a_replayed_records_start_address_is_checked_like_a_launch(tmp_path, capsys):
    runs = tmp_path / "runs"
    run = write_run(runs, "http://2130706433/admin")
    policy = tmp_path / "p.yaml"
    policy.write_text("extends: default\ndeny_domains: [127.0.0.1]\n", encoding="utf-8")
    code = run_cli(["replay", str(run), "--runs-dir", str(runs), "--policy", str(policy)])
    assert code == 4
    assert "recorded start address http://2130706433/admin is denied" in capsys.readouterr().err
    assert len(list(runs.iterdir())) == 1  # nothing was run, no new record


def test_a_replayed_records_non_web_start_address_needs_a_person(tmp_path, capsys):
    runs = tmp_path / "runs"
    run = write_run(runs, "file:///home/ada/.ssh/id_rsa")
    assert run_cli(["replay", str(run), "--runs-dir", str(runs)]) == 3
    assert "needs confirmation (leave-domain)" in capsys.readouterr().err


@pytest.mark.parametrize("url", [
    "javascript:document.forms[0].submit()",
    "file:///home/ada/.ssh/id_rsa",
    "data:text/html,<form%20action=https://evil.example>",
    "shop.example/cart",
])
def test_a_launch_to_anything_but_a_web_address_never_reaches_the_guard(url):
    """The parser refuses it (the refusal is fed back to the model), so no policy has to
    know every scheme a browser could run."""
    from venusctl.core.actions import Surface, parse_action
    from venusctl.core.errors import ParseError

    with pytest.raises(ParseError, match=r"http or https|not a valid address"):
        parse_action(f"Launch(url='{url}')", Surface.BROWSER)
