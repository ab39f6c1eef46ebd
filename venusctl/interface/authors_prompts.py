"""The model authors' own prompt texts: fetched once with consent, checked, cached.

venusctl ships prompts in its own words (`prompts/`). The authors' exact wording
can be used instead (`--prompts authors`), but it is theirs to publish, so
venusctl does not copy it: `venusctl prompts pull` downloads their files from the
public repository at one pinned commit, checks each file against a SHA-256 pinned
here, and takes out the prompt string constants by reading the Python source with
`ast` (a string literal only: nothing downloaded is ever run). The texts are cached
under the user data dir, with their placeholders renamed to venusctl's and
venusctl's safety lines added after the instructions when a run loads them.

Any failure (a network error, a changed file, a missing or non-literal constant)
is one line and leaves the cache as it was.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import string
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from venusctl.core.errors import DeviceError, UsageError
from venusctl.interface.profile import AUTHORS_COMMIT, AUTHORS_REPO

URL_ENV = "VENUSCTL_PROMPTS_URL"
DEFAULT_BASE = "https://raw.githubusercontent.com/{repo}/{commit}/"
TIMEOUT_S = 30.0
MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class AuthorsFile:
    """One file of the authors' repository and the prompt constant it holds."""

    surface: str
    path: str
    constant: str
    sha256: str
    fields: tuple[str, ...]


FILES: tuple[AuthorsFile, ...] = (
    AuthorsFile("mobile", "models/mobile/mobile_example.py", "SYSTEM_PROMPT",
                "7210de8fbe52a6f02d2eacf022050a8c32b4886e453039b204c6400592c01375",
                ("user_task",)),
    AuthorsFile("desktop", "models/computer/computer_example.py", "SYSTEM_PROMPT",
                "844cb2efb504c7febca83cede6dd28a55c46c5701cd32c627d01e300df6bf812",
                ("sudo_password", "user_task")),
    AuthorsFile("browser", "models/browser/venus_browser.py", "PROMPT",
                "901666654c360d091e74c6f4c72af1555d132a922bead8a04fd3071f777885f0",
                ("current_date", "task")),
    AuthorsFile("grounding", "models/grounding/ui_venus2_gd.py", "DEFAULT_USER_PROMPT",
                "9c109ed6a80e3a564b7369cb1e400468cb8f429ae63e642639e4deeec528c554",
                ("instruction",)),
)
"""Pinned: the SHA-256 of each file at `AUTHORS_COMMIT`; a file that differs is refused."""

RENAMES = {"user_task": "{task}", "task": "{task}", "current_date": "{date}",
           "instruction": "{instruction}"}
PASSWORD_SENTENCE = "The password of the computer is {sudo_password}."

Fetch = Callable[[str], bytes]


class PromptsError(UsageError):
    """A pulled file is not what was pinned (checksum, constant, placeholders)."""


# ------------------------------------------------------------------ the cache


def cache_dir() -> Path:
    """Where pulled texts live: `<user data dir>/prompts/authors-<commit>`."""
    return platformdirs.user_data_path("venusctl") / "prompts" / f"authors-{AUTHORS_COMMIT[:12]}"


def pulled() -> bool:
    """Whether the authors' texts of the pinned commit are in the cache."""
    manifest = cache_dir() / "manifest.json"
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return data.get("commit") == AUTHORS_COMMIT and all(
        (cache_dir() / f"{f.surface}.txt").is_file() for f in FILES)


def authors_template(surface: str) -> str:
    """The authors' prompt of `surface` as a venusctl template, safety lines added."""
    path = cache_dir() / f"{surface}.txt"
    if not pulled():
        raise UsageError("the authors' prompts are not pulled: run `venusctl prompts pull` "
                         "or use --prompts builtin")
    text = path.read_text(encoding="utf-8")
    return with_safety_lines(surface, text)


# ------------------------------------------------------------------ pulling


def pull(fetch: Fetch | None = None, base_url: str | None = None,
         files: tuple[AuthorsFile, ...] = FILES) -> Path:
    """Download, check and cache every pinned file; returns the cache folder.

    `VENUSCTL_PROMPTS_URL` points at a mirror of the repository at the pinned commit
    (the checksums still have to match)."""
    base = base_url or os.environ.get(URL_ENV) or DEFAULT_BASE.format(
        repo=AUTHORS_REPO, commit=AUTHORS_COMMIT)
    fetch = fetch or _http_fetch
    texts: dict[str, str] = {}
    for file in files:
        url = base.rstrip("/") + "/" + file.path
        data = fetch(url)
        texts[file.surface] = template_from(file, data)
    return _store(texts, files)


def template_from(file: AuthorsFile, data: bytes) -> str:
    """The checked, converted template inside one downloaded file."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != file.sha256:
        raise PromptsError(f"{file.path} does not match its pinned SHA-256 (got "
                           f"{digest[:12]}…, expected {file.sha256[:12]}…); nothing was cached")
    try:
        source = data.decode("utf-8")
        tree = ast.parse(source, filename=file.path)
    except (UnicodeDecodeError, SyntaxError, ValueError) as exc:
        raise PromptsError(f"{file.path} is not readable Python ({exc}); "
                           "nothing was cached") from None
    return convert(file, literal_constant(tree, file))


def literal_constant(tree: ast.Module, file: AuthorsFile) -> str:
    """The string a top-level `NAME = "..."` assigns, read without running anything."""
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        if not any(isinstance(t, ast.Name) and t.id == file.constant for t in targets):
            continue
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
        raise PromptsError(f"{file.path}: {file.constant} is not a plain string literal; "
                           "nothing was cached")
    raise PromptsError(f"{file.path} has no {file.constant}; nothing was cached")


def convert(file: AuthorsFile, text: str) -> str:
    """Placeholders renamed to venusctl's (`{task}`, `{date}`, `{password}`)."""
    found = _fields(file, text)
    if found != set(file.fields):
        raise PromptsError(f"{file.path}: {file.constant} has placeholders "
                           f"{sorted(found)}, expected {sorted(file.fields)}; "
                           "nothing was cached")
    if file.surface == "grounding":
        return text  # filled by plain replacement, not str.format: braces are literal
    if "sudo_password" in file.fields:
        if PASSWORD_SENTENCE not in text:
            raise PromptsError(f"{file.path}: the password sentence is not where expected; "
                               "nothing was cached")
        text = text.replace(PASSWORD_SENTENCE, "{password}")
    for name, placeholder in RENAMES.items():
        text = text.replace("{" + name + "}", placeholder)
    return text.replace("{{", "{").replace("}}", "}")


def _fields(file: AuthorsFile, text: str) -> set[str]:
    if file.surface == "grounding":
        return {"instruction"} if "{instruction}" in text else set()
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}
    except ValueError:
        raise PromptsError(f"{file.path}: {file.constant} is not a format template; "
                           "nothing was cached") from None


def _store(texts: dict[str, str], files: tuple[AuthorsFile, ...]) -> Path:
    """Write every text into a fresh folder, then swap it in: all or nothing."""
    final = cache_dir()
    staging = final.with_name(final.name + f".new-{os.getpid()}")
    staging.mkdir(parents=True, exist_ok=True)
    for surface, text in texts.items():
        (staging / f"{surface}.txt").write_text(text, encoding="utf-8")
    manifest = {"repo": AUTHORS_REPO, "commit": AUTHORS_COMMIT, "pulled_at": time.time(),
                "files": {f.path: f.sha256 for f in files}}
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    if final.exists():
        old = final.with_name(final.name + f".old-{os.getpid()}")
        final.replace(old)
        staging.replace(final)
        for child in old.iterdir():
            child.unlink()
        old.rmdir()
    else:
        staging.replace(final)
    return final


def _http_fetch(url: str) -> bytes:
    import httpx

    try:
        response = httpx.get(url, timeout=TIMEOUT_S, follow_redirects=True)
    except httpx.HTTPError as exc:
        raise DeviceError(f"cannot download {url}: {type(exc).__name__}; nothing was "
                          "cached") from None
    if response.status_code != 200:
        raise DeviceError(f"cannot download {url}: HTTP {response.status_code}; nothing "
                          "was cached")
    if len(response.content) > MAX_BYTES:
        raise PromptsError(f"{url} is larger than expected; nothing was cached")
    return response.content


# ------------------------------------------------------------------ safety lines


def with_safety_lines(surface: str, text: str) -> str:
    """The authors' template with venusctl's safety lines after its instructions (the
    same lines as in venusctl's own template of that surface)."""
    if surface == "grounding":
        return text
    lines = safety_lines(surface)
    marker = "\n### Output Format"
    at = text.find(marker)
    if at < 0 or not lines:
        return text
    head = text[:at].rstrip("\n")
    separator = "\n\n" if lines[0].endswith(":") else "\n"
    return head + separator + "\n".join(lines) + "\n" + text[at:]


def safety_lines(surface: str) -> list[str]:
    """venusctl's safety lines of a surface, taken from its own template: from the line
    holding `{secrets}` (and a `Safety:` heading just above it) to the next blank line."""
    from venusctl.interface.messages import builtin_template

    lines = builtin_template(surface).splitlines()
    start = next((i for i, line in enumerate(lines) if "{secrets}" in line), None)
    if start is None:
        return []
    if start > 0 and lines[start - 1].strip().endswith(":"):
        start -= 1
    end = start
    while end < len(lines) and lines[end].strip():
        end += 1
    return lines[start:end]


# ------------------------------------------------------------------ doctor


def describe_status() -> tuple[bool, str]:
    """(pulled, one line) for `venusctl doctor`."""
    if pulled():
        return True, (f"the authors' own texts (commit {AUTHORS_COMMIT[:7]}, checked "
                      f"SHA-256) are pulled in {cache_dir()}")
    return False, ("venusctl's own wording (builtin); `venusctl prompts pull` fetches the "
                   "authors' own texts")
