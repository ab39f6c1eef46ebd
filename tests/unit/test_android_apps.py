"""LaunchApp: from a visible name to a package, with fuzzy matching and a per-device cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from venusctl.core.errors import ActionFailed
from venusctl.drivers.android.apps import (
    AppIndex,
    AppLauncher,
    LaunchTarget,
    normalise,
    parse_launchables,
    words_of_package,
)

BRIEF = """4 activities found:
  Activity #0:
    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false
    com.android.settings/.Settings
  Activity #1:
    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false
    com.example.notes/.MainActivity
  Activity #2:
    com.android.vending/com.google.android.finsky.activities.MainActivity
  Activity #3:
    com.tencent.mm/.ui.LauncherUI
"""


def index() -> AppIndex:
    return AppIndex(parse_launchables(BRIEF))


def test_launchables_from_query_activities_and_pm() -> None:
    targets = parse_launchables(BRIEF)
    assert targets[0] == LaunchTarget("com.android.settings", ".Settings")
    assert len(targets) == 4
    assert parse_launchables("package:com.a.b\npackage:com.c\n") == [
        LaunchTarget("com.a.b"), LaunchTarget("com.c")]


def test_normalise_and_package_words() -> None:
    assert normalise("The Play-Store app") == "playstore"
    assert normalise("Grüße") == "grusse"
    assert words_of_package("com.example.myNotes") == ["My Notes", "Example"]
    assert words_of_package("com.google.android.apps.maps") == ["Maps"]


@pytest.mark.parametrize("name,package", [
    ("Settings", "com.android.settings"),
    ("settings app", "com.android.settings"),
    ("Setings", "com.android.settings"),
    ("note", "com.example.notes"),
    ("Notes", "com.example.notes"),
    ("Play Store", "com.android.vending"),
    ("Google Play", "com.android.vending"),
    ("微信", "com.tencent.mm"),
    ("WeChat", "com.tencent.mm"),
])
def test_names_resolve(name: str, package: str) -> None:
    found = index().find(name)
    assert found is not None and found[1].package == package


def test_unknown_names_get_close_matches() -> None:
    apps = index()
    assert apps.find("Zzz Bank") is None
    assert apps.find("Calculator") is None, "not installed here"
    assert "Notes" in apps.suggestions("Notebook")


def test_user_aliases_win(tmp_path: Path) -> None:
    aliases = tmp_path / "android-apps.yaml"
    aliases.write_text("Bank: com.example.notes\n", encoding="utf-8")
    runs: list[str] = []
    launcher = AppLauncher("S1", lambda line: runs.append(line) or BRIEF, None, aliases)
    assert launcher.launch("bank").startswith("Bank (com.example.notes)")


class Phone:
    def __init__(self, listing: str) -> None:
        self.listing = listing
        self.lines: list[str] = []

    def run(self, line: str) -> str:
        self.lines.append(line)
        if "query-activities" in line:
            return self.listing
        return "Starting: Intent { cmp=... }"


def test_launch_uses_the_cache_and_refreshes_on_a_miss(tmp_path: Path) -> None:
    phone = Phone(BRIEF)
    AppLauncher._memory.pop("serial:1", None)
    launcher = AppLauncher("serial:1", phone.run, tmp_path, None)
    launcher.launch("Settings")
    assert (tmp_path / "serial_1-apps.json").exists()
    assert phone.lines[-1] == ("am start -a android.intent.action.MAIN -c "
                               "android.intent.category.LAUNCHER -n com.android.settings/.Settings")
    queries = sum("query-activities" in line for line in phone.lines)
    launcher.launch("notes")
    assert sum("query-activities" in line for line in phone.lines) == queries, "cached"
    phone.listing += "    com.example.bank/.Main\n"
    launcher.launch("bank")
    assert phone.lines[-1].endswith("-n com.example.bank/.Main"), "refreshed once on a miss"


def test_launch_of_an_unknown_app_lists_close_matches(tmp_path: Path) -> None:
    phone = Phone(BRIEF)
    AppLauncher._memory.pop("serial:2", None)
    launcher = AppLauncher("serial:2", phone.run, tmp_path, None)
    with pytest.raises(ActionFailed, match=r"no app called 'Notez Pro'.*close matches: Notes"):
        launcher.launch("Notez Pro")
    with pytest.raises(ActionFailed, match="apps on this phone include: Settings"):
        launcher.launch("Zzzz")
