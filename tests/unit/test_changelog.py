"""CHANGELOG.md keeps the Keep a Changelog form, so people (and tools that read it) find
what changed in each version; its newest version is the one pyproject.toml builds."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the kinds of change Keep a Changelog 1.1.0 names, and only those
KINDS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$")


def _headings(level: str) -> list[str]:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.startswith(level + " ")]


def test_versions_start_with_unreleased_then_releases_newest_first():
    versions = _headings("##")
    assert versions[0] == "## [Unreleased]"
    releases = [RELEASE.match(line) for line in versions[1:]]
    assert releases and all(releases), versions
    dates = [m.group(2) for m in releases if m]
    assert dates == sorted(dates, reverse=True)


def test_the_newest_release_is_the_version_pyproject_builds():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    newest = RELEASE.match(_headings("##")[1])
    assert newest and newest.group(1) == project["version"]


def test_changes_are_grouped_under_the_named_kinds_only():
    kinds = [line.removeprefix("### ") for line in _headings("###")]
    assert kinds and set(kinds) <= set(KINDS), kinds
