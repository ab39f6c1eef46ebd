"""A policy's words, one keyword file per language.

The default policy's vocabulary in each language lives in `policies/words/<code>.yaml`
(ISO 639-1 codes), a mapping of keyword list names to the words of that language:

    payment: [결제, 결제하기, ...]
    delete: [삭제, ...]

A policy names the languages it reads with `languages: [en, zh, ...]`; each file's lists
are added to the policy's own `keywords` of the same name, so a rule's `$payment` covers
every language listed. A policy may also name a keyword file of its own by path
(`./words/th.yaml`, relative to the policy file). Adding a language is adding a file:
no rule changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from venusctl.core.errors import UsageError
from venusctl.safety.policy_shape import check_keyword_file

FOLDER = "words"
FILE_SUFFIX = ".yaml"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def shipped_languages() -> tuple[str, ...]:
    """The codes of the keyword files shipped with venusctl, sorted."""
    folder = resources.files("venusctl.policies").joinpath(FOLDER)
    return tuple(sorted(entry.name.removesuffix(FILE_SUFFIX) for entry in folder.iterdir()
                        if entry.name.endswith(FILE_SUFFIX)))


def is_path(entry: str) -> bool:
    """A `languages` entry naming a keyword file rather than a shipped language."""
    return entry.endswith(FILE_SUFFIX)


def anchored(entries: Iterable[str], folder: Path) -> list[str]:
    """The entries with relative keyword-file paths made absolute against `folder` (the
    policy file's), so they still resolve once policies are merged."""
    return [str((folder / Path(e).expanduser()).resolve()) if is_path(e) else e
            for e in entries]


def language_words(entries: Iterable[str], where: str) -> dict[str, list[str]]:
    """Every keyword list of the named languages, in the order named."""
    words: dict[str, list[str]] = {}
    for entry in entries:
        for name, listed in _read(entry, where).items():
            words.setdefault(name, []).extend(listed)
    return words


def _read(entry: str, where: str) -> dict[str, list[str]]:
    if is_path(entry):
        return _read_file(entry)
    if entry not in shipped_languages():
        raise UsageError(f"{where}: unknown language '{entry}' (shipped: "
                         f"{', '.join(shipped_languages())}; or a path to a keyword file "
                         f"ending in {FILE_SUFFIX})")
    return _shipped(entry)


@cache
def _shipped(code: str) -> dict[str, list[str]]:
    text = (resources.files("venusctl.policies").joinpath(FOLDER, code + FILE_SUFFIX)
            .read_text("utf-8"))
    return _parse(text, f"keyword file {FOLDER}/{code}{FILE_SUFFIX}")


def _read_file(path: str) -> dict[str, list[str]]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"keyword file {path} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read keyword file {path}: {exc}") from None
    return _parse(text, f"keyword file {path}")


def _parse(text: str, where: str) -> dict[str, list[str]]:
    try:
        raw: Any = yaml.load(text, Loader=_LOADER)  # a safe loader (libyaml when built)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise UsageError(f"{where} is not valid YAML{line}") from None
    check_keyword_file(raw, where)
    return {str(name): _words(listed) for name, listed in (raw or {}).items()}


def _words(listed: Any) -> list[str]:
    if listed is None:
        return []
    return [str(w) for w in listed] if isinstance(listed, list) else [str(listed)]


def merged(own: Mapping[str, list[str]], languages: Mapping[str, list[str]]
           ) -> dict[str, list[str]]:
    """The policy's own lists with each language's words added, without repeats."""
    out = {name: list(words) for name, words in own.items()}
    for name, words in languages.items():
        out[name] = list(dict.fromkeys([*out.get(name, []), *words]))
    return out
