"""`LaunchApp(app='…')`: from the name the model read on screen to a package to start.

Android's shell tools list launchable activities but not their display labels, so
the label index is built from three sources: your own aliases
(`~/.config/venusctl/android-apps.yaml`, `Label: package` lines), a table of
common apps with their usual packages per vendor, and words taken from each
package name (`com.example.notes` -> "Notes"). Matching forgives case, accents,
punctuation, a trailing "app" and small typos; an unknown name fails with the
closest labels so the model can try again. The launcher list is cached per device
(in memory and in the user cache folder) and refreshed once on a miss.
"""

from __future__ import annotations

import difflib
import json
import logging
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from venusctl.core.errors import ActionFailed

log = logging.getLogger(__name__)

LAUNCHER_QUERY = ("cmd package query-activities --brief -a android.intent.action.MAIN "
                  "-c android.intent.category.LAUNCHER")
ACCEPT = 0.75
SUGGEST = 0.35
COMPONENT = re.compile(r"^\s*([A-Za-z][\w.]*)/([\w.$]+)\s*$")
NOISE = {"com", "org", "net", "io", "android", "google", "apps", "app", "mobile", "client",
         "launcher", "activity", "main", "ui", "www", "de", "cn", "co", "uk", "free", "pro"}

KNOWN: dict[str, tuple[str, ...]] = {
    "Settings": ("com.android.settings",),
    "Chrome": ("com.android.chrome",),
    "Camera": ("com.google.android.GoogleCamera", "com.android.camera2",
               "com.sec.android.app.camera", "com.android.camera"),
    "Phone": ("com.google.android.dialer", "com.android.dialer", "com.samsung.android.dialer"),
    "Dialer": ("com.google.android.dialer", "com.android.dialer"),
    "Contacts": ("com.google.android.contacts", "com.android.contacts",
                 "com.samsung.android.app.contacts"),
    "Messages": ("com.google.android.apps.messaging", "com.android.mms",
                 "com.samsung.android.messaging", "com.android.messaging"),
    "Gmail": ("com.google.android.gm",),
    "Maps": ("com.google.android.apps.maps",),
    "YouTube": ("com.google.android.youtube",),
    "Play Store": ("com.android.vending",),
    "Google Play": ("com.android.vending",),
    "Photos": ("com.google.android.apps.photos",),
    "Gallery": ("com.sec.android.gallery3d", "com.miui.gallery", "com.android.gallery3d",
                "com.coloros.gallery3d"),
    "Calendar": ("com.google.android.calendar", "com.samsung.android.calendar",
                 "com.android.calendar"),
    "Clock": ("com.google.android.deskclock", "com.sec.android.app.clockpackage",
              "com.android.deskclock"),
    "Calculator": ("com.google.android.calculator", "com.sec.android.app.popupcalculator",
                   "com.android.calculator2", "com.miui.calculator"),
    "Files": ("com.google.android.apps.nbu.files", "com.android.documentsui"),
    "My Files": ("com.sec.android.app.myfiles",),
    "Drive": ("com.google.android.apps.docs",),
    "Keep Notes": ("com.google.android.keep",),
    "Google": ("com.google.android.googlequicksearchbox",),
    "Recorder": ("com.google.android.apps.recorder",),
    "WhatsApp": ("com.whatsapp",),
    "Telegram": ("org.telegram.messenger",),
    "Signal": ("org.thoughtcrime.securesms",),
    "Instagram": ("com.instagram.android",),
    "Facebook": ("com.facebook.katana",),
    "Messenger": ("com.facebook.orca",),
    "X": ("com.twitter.android",),
    "Twitter": ("com.twitter.android",),
    "Spotify": ("com.spotify.music",),
    "Netflix": ("com.netflix.mediaclient",),
    "Firefox": ("org.mozilla.firefox",),
    "WeChat": ("com.tencent.mm",),
    "微信": ("com.tencent.mm",),
    "Alipay": ("com.eg.android.AlipayGphone",),
    "支付宝": ("com.eg.android.AlipayGphone",),
    "Taobao": ("com.taobao.taobao",),
    "Amazon Shopping": ("com.amazon.mShop.android.shopping",),
    "Uber": ("com.ubercab",),
    "Outlook": ("com.microsoft.office.outlook",),
}


@dataclass(frozen=True)
class LaunchTarget:
    """A launchable app: package and launcher activity (None: let monkey find it)."""

    package: str
    activity: str | None = None

    @property
    def component(self) -> str | None:
        return f"{self.package}/{self.activity}" if self.activity else None


def parse_launchables(text: str) -> list[LaunchTarget]:
    """`pkg/activity` lines from `cmd package query-activities --brief`, or `package:` lines
    from `pm list packages` (no activity)."""
    found: dict[str, LaunchTarget] = {}
    for line in text.splitlines():
        match = COMPONENT.match(line)
        if match:
            found.setdefault(match.group(1), LaunchTarget(match.group(1), match.group(2)))
        elif line.startswith("package:"):
            name = line[len("package:"):].strip()
            if name:
                found.setdefault(name, LaunchTarget(name))
    return list(found.values())


def normalise(text: str) -> str:
    """Case, accents, punctuation and a trailing 'app' do not matter."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = re.sub(r"\b(the|app|application)\b", " ", text)
    return "".join(ch for ch in text if ch.isalnum())


def words_of_package(package: str) -> list[str]:
    """Label-like words from a package name, the last (most specific) first."""
    words = []
    for segment in reversed(package.split(".")):
        spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", segment).replace("_", " ").strip()
        if spaced and spaced.lower() not in NOISE and not spaced.isdigit():
            words.append(spaced[:1].upper() + spaced[1:])
    return words


def similarity(query: str, label: str) -> float:
    """How well a normalised query names a normalised label (1.0 = same)."""
    if not query or not label:
        return 0.0
    if query == label:
        return 1.0
    cover = min(len(query), len(label)) / max(len(query), len(label))
    if label.startswith(query) or query.startswith(label):
        return 0.6 + 0.4 * cover  # "note" names "Notes"; "shop" does not name "Shopping Mall"
    if query in label or label in query:
        return 0.5 + 0.4 * cover
    return difflib.SequenceMatcher(None, query, label).ratio()


@dataclass
class AppIndex:
    """Labels of the launchable apps on one phone."""

    targets: list[LaunchTarget]
    aliases: dict[str, str] = field(default_factory=dict)
    labels: list[tuple[str, LaunchTarget, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        by_package = {t.package: t for t in self.targets}
        for label, package in self.aliases.items():
            if package in by_package:
                self.labels.append((label, by_package[package], 1.0))
        for label, packages in KNOWN.items():
            target = next((by_package[p] for p in packages if p in by_package), None)
            if target is not None:
                self.labels.append((label, target, 1.0))
        for target in self.targets:
            for rank, word in enumerate(words_of_package(target.package)[:3]):
                self.labels.append((word, target, 0.97 if rank == 0 else 0.9))

    def find(self, name: str) -> tuple[str, LaunchTarget] | None:
        ranked = self.ranked(name)
        if not ranked or ranked[0][0] < ACCEPT:
            return None
        return ranked[0][1], ranked[0][2]

    def ranked(self, name: str) -> list[tuple[float, str, LaunchTarget]]:
        """(score, label, target), best first, one entry per package."""
        query = normalise(name)
        best: dict[str, tuple[float, str, LaunchTarget]] = {}
        for label, target, weight in self.labels:
            score = similarity(query, normalise(label)) * weight
            if score > best.get(target.package, (-1.0, "", target))[0]:
                best[target.package] = (score, label, target)
        return sorted(best.values(), key=lambda item: -item[0])

    def suggestions(self, name: str, limit: int = 5) -> list[str]:
        close = [label for score, label, _t in self.ranked(name) if score >= SUGGEST]
        return close[:limit]

    def all_labels(self, limit: int = 12) -> list[str]:
        seen: list[str] = []
        for label, _target, weight in self.labels:
            if weight >= 0.97 and label not in seen:
                seen.append(label)
        return seen[:limit]


def load_aliases(path: Path) -> dict[str, str]:
    """Your own `Label: package` lines; a broken file is reported, not fatal."""
    if not path.exists():
        return {}
    try:
        import yaml

        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring %s: %s", path, exc)
        return {}
    if not isinstance(data, dict):
        log.warning("ignoring %s: expected 'Label: package' lines", path)
        return {}
    return {str(k): str(v) for k, v in data.items()}


class AppLauncher:
    """Resolves and starts apps on one phone, with the launcher list cached."""

    _memory: ClassVar[dict[str, list[LaunchTarget]]] = {}

    def __init__(self, serial: str, run: Callable[[str], str], cache_dir: Path | None,
                 aliases_file: Path | None) -> None:
        self.serial = serial
        self.run = run
        self.cache_file = (cache_dir / f"{_safe(serial)}-apps.json") if cache_dir else None
        self.aliases = load_aliases(aliases_file) if aliases_file else {}

    def launch(self, name: str) -> str:
        """Start the app called `name`; return what was started."""
        if not name.strip():
            raise ActionFailed("LaunchApp needs the app's name, e.g. LaunchApp(app='Settings')")
        index, fresh = self._index(refresh=False)
        found = index.find(name)
        if found is None and not fresh:
            index, fresh = self._index(refresh=True)
            found = index.find(name)
        if found is None:
            close = index.suggestions(name)
            hint = (f"close matches: {', '.join(close)}" if close else
                    f"apps on this phone include: {', '.join(index.all_labels()) or 'none'}")
            raise ActionFailed(f"no app called '{name}' on this phone; {hint}")
        label, target = found
        self._start(target)
        return f"{label} ({target.package})"

    def _start(self, target: LaunchTarget) -> None:
        if target.component:
            command = ("am start -a android.intent.action.MAIN -c "
                       f"android.intent.category.LAUNCHER -n {target.component}")
        else:
            command = f"monkey -p {target.package} -c android.intent.category.LAUNCHER 1"
        output = self.run(command)
        if "Error" in output or "aborted" in output:
            self.forget()
            raise ActionFailed(f"could not start {target.package}: {output.strip()[:200]}")

    def _index(self, refresh: bool) -> tuple[AppIndex, bool]:
        targets = None if refresh else self._cached()
        fresh = targets is None
        if targets is None:
            targets = self._query()
            self._store(targets)
        return AppIndex(targets, self.aliases), fresh

    def _query(self) -> list[LaunchTarget]:
        try:
            targets = parse_launchables(self.run(LAUNCHER_QUERY))
        except ActionFailed:
            targets = []
        if not targets:  # Android before 7 has no `cmd package`
            targets = parse_launchables(self.run("pm list packages"))
        return targets

    def _cached(self) -> list[LaunchTarget] | None:
        if self.serial in self._memory:
            return self._memory[self.serial]
        if self.cache_file is None or not self.cache_file.exists():
            return None
        try:
            rows = json.loads(self.cache_file.read_text(encoding="utf-8"))
            targets = [LaunchTarget(str(p), str(a) if a else None) for p, a in rows]
        except (OSError, ValueError, TypeError) as exc:
            log.debug("app cache unreadable: %s", exc)
            return None
        self._memory[self.serial] = targets
        return targets

    def _store(self, targets: list[LaunchTarget]) -> None:
        self._memory[self.serial] = targets
        if self.cache_file is None:
            return
        try:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            rows = [[t.package, t.activity] for t in targets]
            self.cache_file.write_text(json.dumps(rows), encoding="utf-8")
        except OSError as exc:
            log.debug("app cache not written: %s", exc)

    def forget(self) -> None:
        self._memory.pop(self.serial, None)
        if self.cache_file is not None:
            self.cache_file.unlink(missing_ok=True)


def _safe(serial: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", serial)
