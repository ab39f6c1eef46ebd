"""Model files on the Hugging Face hub: find them in a repo's listing, download, verify.

Repos name their files differently (`UI-Venus-2-9B-Q4_K_M.gguf`,
`inclusionAI_UI-Venus-2-9B-Q4_K_M.gguf`, split `-00001-of-00002.gguf` parts,
`mmproj-…-f16.gguf`), so nothing here is hard-coded: the text model is the GGUF whose
name carries the requested quantisation, the projector the GGUF with `mmproj` in
its name. Files land in the standard hub cache, so other tools share them.

Downloads resume across runs: huggingface_hub deletes its partial file when a
download is interrupted, so we keep our own `<sha256>.partial` blob, continue it
with a plain Range request (httpx), check its SHA-256 against the listing, and only
then move it into place and let huggingface_hub link it into the snapshot. Only the
hub's public API is used (`HfApi`, `hf_hub_download`, `get_hf_file_metadata`,
`try_to_load_from_cache`, `scan_cache_dir`, `get_token`), so its internals may change.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO
from urllib.parse import urlsplit

from venusctl.core.errors import ModelError, UsageError
from venusctl.core.text import first_line

Say = Callable[[str], None]

_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_SPLIT = re.compile(r"-(\d{5})-of-(\d{5})\.gguf$", re.IGNORECASE)
_QUANT = re.compile(
    r"(?<![A-Za-z0-9])(I?Q\d+(?:_[0-9A-Z]+)*|BF16|F16|F32|MXFP4(?:_MOE)?)(?![A-Za-z0-9])",
    re.IGNORECASE,
)
PROJECTOR_PREFERENCE = ("F16", "BF16", "Q8_0", "F32")
CHUNK = 8 << 20
DOWNLOAD_ATTEMPTS = 5


@dataclass(frozen=True)
class HubFile:
    """One file of a repo listing; `sha256` is set for LFS files (all GGUFs on the hub)."""

    path: str
    size: int
    sha256: str | None = None
    blob_id: str | None = None


@dataclass(frozen=True)
class Selection:
    """The files that make one model: text model (maybe in parts) and projector.

    The projector comes from `projector_repo` at `projector_revision` when the model's
    own repo has none (the default model's quantisations ship without one).
    """

    repo: str
    revision: str
    quant: str
    model_files: tuple[HubFile, ...]
    projector: HubFile
    projector_repo: str | None = None
    projector_revision: str | None = None

    @property
    def files(self) -> tuple[HubFile, ...]:
        return (*self.model_files, self.projector)

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)


@dataclass(frozen=True)
class LocalModel:
    """A text model and its projector on this machine."""

    model_path: Path
    mmproj_path: Path | None
    repo: str | None = None
    quant: str | None = None
    revision: str | None = None
    size_bytes: int = 0

    @property
    def reference(self) -> str:
        return f"{self.repo}:{self.quant}" if self.repo else str(self.model_path)


# ------------------------------------------------------------------- names


def parse_reference(text: str) -> tuple[str, str | None] | None:
    """`owner/name[:QUANT]` as (repo, quant); None when `text` is not a repo reference."""
    repo, _, quant = text.strip().partition(":")
    if not _REPO_ID.match(repo) or repo.lower().endswith(".gguf"):
        return None
    return repo, (quant.strip().upper() or None)


def quant_of(path: str) -> str | None:
    """The quantisation a file name announces (`…-Q4_K_M.gguf` -> Q4_K_M)."""
    name = _SPLIT.sub(".gguf", path.rsplit("/", 1)[-1])
    found = _QUANT.findall(name.removesuffix(".gguf"))
    if not found and "/" in path:  # some repos keep each quant in its own folder
        found = _QUANT.findall(path.rsplit("/", 1)[0])
    return found[-1].upper() if found else None


def is_projector(path: str) -> bool:
    return "mmproj" in path.rsplit("/", 1)[-1].lower()


def _ggufs(files: Iterable[HubFile]) -> list[HubFile]:
    return [f for f in files if f.path.lower().endswith(".gguf")]


def available_quants(files: Iterable[HubFile]) -> list[str]:
    quants = {quant_of(f.path) for f in _ggufs(files) if not is_projector(f.path)}
    return sorted(q for q in quants if q)


PROJECTOR_FALLBACKS = {
    "bartowski/UI-Venus-2-9B-GGUF": "prithivMLmods/inclusionAI-UI-Venus-2-9B-GGUF",
}
"""Where a repo's missing projector comes from (the same model, another quantiser)."""


def remote_selection(repo: str, quant: str, say: Say) -> Selection:
    """The model and projector to download for `repo:quant`, a projector from the
    repo's fallback (`PROJECTOR_FALLBACKS`) when the repo has none, said to the user."""
    commit, files = remote_files(repo)
    fallback = PROJECTOR_FALLBACKS.get(repo)
    if fallback is None or any(is_projector(f.path) for f in _ggufs(files)):
        return select_files(files, repo, commit, quant)
    other_commit, other_files = remote_files(fallback)
    projectors = [f for f in _ggufs(other_files) if is_projector(f.path)]
    if not projectors:
        raise UsageError(f"neither {repo} nor {fallback} has a projector (mmproj) GGUF; "
                         f"pass --mmproj PATH")
    selection = select_files(files, repo, commit, quant, projector=_best_projector(projectors))
    say(f"{repo} has no projector (mmproj); using {selection.projector.path} from {fallback}")
    return replace(selection, projector_repo=fallback, projector_revision=other_commit)


def select_files(files: list[HubFile], repo: str, revision: str, quant: str,
                 projector: HubFile | None = None) -> Selection:
    """Pick the text model with `quant` and the best projector from a repo listing
    (`projector`: one from elsewhere, for a repo that has none)."""
    wanted = quant.upper()
    ggufs = _ggufs(files)
    text = [f for f in ggufs if not is_projector(f.path) and quant_of(f.path) == wanted]
    if not text:
        have = ", ".join(available_quants(files)) or "none"
        raise UsageError(f"{repo} has no {wanted} GGUF (quantisations there: {have})")
    groups = _group_parts(text)
    if len(groups) > 1:
        names = ", ".join(group[0].path for group in groups)
        raise UsageError(f"{repo} has several {wanted} models ({names}); "
                         f"download one with --model PATH after fetching it yourself")
    projectors = [f for f in ggufs if is_projector(f.path)]
    if projector is None and not projectors:
        raise UsageError(f"{repo} has no projector (mmproj) GGUF; venusctl needs one to see "
                         f"screenshots — choose a repo that ships it")
    return Selection(repo, revision, wanted, tuple(groups[0]),
                     _best_projector(projectors) if projectors else projector)  # type: ignore[arg-type]


def _group_parts(files: list[HubFile]) -> list[list[HubFile]]:
    """Whole files alone; the parts of a split GGUF together, in order."""
    groups: dict[str, list[HubFile]] = {}
    for f in sorted(files, key=lambda f: f.path):
        groups.setdefault(_SPLIT.sub("", f.path), []).append(f)
    return list(groups.values())


def _best_projector(projectors: list[HubFile]) -> HubFile:
    return min(projectors, key=lambda f: _projector_rank(f.path))


def _projector_rank(path: str) -> tuple[int, str]:
    """f16 first (the precision projectors are published in), then bf16, q8_0, f32."""
    quant = quant_of(path) or ""
    return (PROJECTOR_PREFERENCE.index(quant) if quant in PROJECTOR_PREFERENCE else 99, path)


# ------------------------------------------------------------------- places


def hub_cache_dir() -> Path:
    """The hub cache, read from the environment now (huggingface_hub reads it at import)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "huggingface" / "hub"


def hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


# ------------------------------------------------------------------- remote


def remote_files(repo: str, revision: str | None = None) -> tuple[str, list[HubFile]]:
    """The commit `revision` points at and the files there (with checksums)."""
    from huggingface_hub import HfApi

    api = HfApi(endpoint=hub_endpoint())
    try:
        commit = api.model_info(repo, revision=revision).sha or revision or "main"
        entries = api.list_repo_tree(repo, revision=commit, recursive=True)
        files = [
            HubFile(e.path, int(e.size or 0), e.lfs.sha256 if e.lfs else None, e.blob_id)
            for e in entries if hasattr(e, "blob_id")
        ]
    except Exception as exc:
        raise hub_error(exc, repo) from None
    return commit, files


def hub_error(exc: Exception, repo: str) -> Exception:
    """One line for each way the hub can fail; `unreachable` errors are `ModelError`s."""
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    if isinstance(exc, GatedRepoError):
        return UsageError(f"{repo} is gated: accept its terms on the hub and log in "
                          f"(`hf auth login` or HF_TOKEN)")
    if isinstance(exc, RepositoryNotFoundError):
        return UsageError(f"no model repo '{repo}' on {hub_endpoint()}")
    if isinstance(exc, RevisionNotFoundError):
        return UsageError(f"{repo} has no such revision")
    if isinstance(exc, OfflineModeIsEnabled) or is_network_error(exc):
        return HubUnreachable(f"the Hugging Face hub ({hub_endpoint()}) is unreachable: "
                              f"{first_line(exc)}")
    if isinstance(exc, HfHubHTTPError):
        return ModelError(f"the hub refused a request for {repo}: {first_line(exc)}")
    return exc


class HubUnreachable(ModelError):
    """No network, DNS failure, refused connection, timeout, offline mode."""


def is_network_error(exc: BaseException) -> bool:
    """Transport failures, whichever HTTP library huggingface_hub uses today."""
    if isinstance(exc, (ConnectionError, TimeoutError)):
        return True
    module = type(exc).__module__.split(".")[0]
    kinds = {cls.__name__ for cls in type(exc).__mro__}
    return module.startswith(("httpx", "httpcore", "requests", "urllib3")) and bool(
        kinds & {"TransportError", "ConnectionError", "Timeout", "TimeoutException",
                 "NetworkError", "ConnectError", "ProtocolError"})


# ------------------------------------------------------------------- download


def download(selection: Selection, cache_dir: Path, say: Say) -> LocalModel:
    """Fetch every file of `selection` into the hub cache; each one is verified."""
    paths = [fetch(selection.repo, selection.revision, f, cache_dir, say)
             for f in selection.model_files]
    paths.append(fetch(selection.projector_repo or selection.repo,
                       selection.projector_revision or selection.revision,
                       selection.projector, cache_dir, say))
    return LocalModel(paths[0], paths[-1], selection.repo, selection.quant,
                      selection.revision, selection.total_bytes)


def fetch(repo: str, revision: str, file: HubFile, cache_dir: Path, say: Say) -> Path:
    """One file into the cache, resuming a partial download, checksum verified."""
    from huggingface_hub import hf_hub_download, try_to_load_from_cache

    cached = try_to_load_from_cache(repo, file.path, cache_dir=str(cache_dir), revision=revision)
    if isinstance(cached, str):
        say(f"{file.path}: in the cache, verifying its checksum")
        verify(Path(cached), file)
        return Path(cached)
    try:
        blob = _download_blob(repo, revision, file, cache_dir, say)
        linked = hf_hub_download(repo, file.path, revision=revision, cache_dir=str(cache_dir),
                                 endpoint=hub_endpoint())
    except (ModelError, UsageError):
        raise
    except Exception as exc:
        raise hub_error(exc, repo) from None
    if Path(linked).resolve() != blob.resolve():
        verify(Path(linked), file)
    return Path(linked)


def _download_blob(repo: str, revision: str, file: HubFile, cache_dir: Path, say: Say) -> Path:
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    url = hf_hub_url(repo, file.path, revision=revision, endpoint=hub_endpoint())
    meta = get_hf_file_metadata(url, endpoint=hub_endpoint())
    etag = meta.etag or file.sha256 or file.blob_id
    if not etag:
        raise ModelError(f"the hub gave no checksum for {repo}/{file.path}")
    blob = repo_folder(cache_dir, repo) / "blobs" / etag
    if blob.exists():
        return blob
    blob.parent.mkdir(parents=True, exist_ok=True)
    partial = blob.with_name(blob.name + ".partial")
    done = partial.stat().st_size if partial.exists() else 0
    size = meta.size or file.size
    _check_space(blob.parent, size - done)
    verb = f"resuming at {human_size(done)}" if done else "downloading"
    say(f"{file.path}: {verb} ({human_size(size)})")
    ranged_get(meta.location, partial, size, file.path.rsplit("/", 1)[-1])
    try:
        verify(partial, file)
    except ModelError:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(blob)
    return blob


def repo_folder(cache_dir: Path, repo: str) -> Path:
    """A model repo's folder in the hub cache (`models--owner--name`, the documented
    layout every hub client shares)."""
    return cache_dir / ("models--" + repo.replace("/", "--"))


def ranged_get(url: str, partial: Path, size: int, name: str) -> None:
    """Append the rest of `url` to `partial`, from the bytes it already holds: a Range
    request, tried again from where it stopped when the connection drops."""
    import httpx
    from huggingface_hub.utils import tqdm

    with partial.open("ab") as out, tqdm(total=size, initial=out.tell(), unit="B",
                                         unit_scale=True, desc=name) as bar:
        for attempt in range(DOWNLOAD_ATTEMPTS):
            try:
                _stream_into(url, out, bar)
                return
            except httpx.TransportError:
                if attempt + 1 == DOWNLOAD_ATTEMPTS:
                    raise


def _stream_into(url: str, out: BinaryIO, bar: Any) -> None:
    import httpx

    start = out.tell()
    headers = {"User-Agent": "venusctl", **_token_header(url)}
    if start:
        headers["Range"] = f"bytes={start}-"
    with httpx.stream("GET", url, headers=headers, follow_redirects=True,
                      timeout=httpx.Timeout(30.0, read=120.0)) as response:
        response.raise_for_status()
        if start and response.status_code != 206:  # the server sent the whole file
            out.seek(0)
            out.truncate()
            bar.reset()
        for chunk in response.iter_bytes():  # as it arrives: a drop loses nothing
            out.write(chunk)
            bar.update(len(chunk))
        out.flush()


def _token_header(url: str) -> dict[str, str]:
    """The user's hub token, for the hub itself only (a signed CDN address needs none)."""
    from huggingface_hub import get_token

    token = get_token()
    same_host = urlsplit(url).netloc == urlsplit(hub_endpoint()).netloc
    return {"Authorization": f"Bearer {token}"} if token and same_host else {}


def _check_space(folder: Path, needed: int) -> None:
    free = shutil.disk_usage(folder).free
    if needed > free:
        raise ModelError(f"not enough disk space in {folder}: {human_size(needed)} needed, "
                         f"{human_size(free)} free")


def verify(path: Path, file: HubFile) -> None:
    """Compare the file with the listing's SHA-256 (LFS) or git blob id, else raise."""
    if file.sha256:
        digest = hashlib.sha256()
        expected = file.sha256
    elif file.blob_id:
        digest = hashlib.sha1()
        digest.update(f"blob {path.stat().st_size}\0".encode())
        expected = file.blob_id
    else:
        raise ModelError(f"the hub listing has no checksum for {file.path}")
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    if digest.hexdigest() != expected.lower():
        raise ModelError(f"{file.path}: checksum mismatch (the download is corrupt and was "
                         f"removed; run the command again)")


def human_size(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{size:.1f} GB"


# ------------------------------------------------------------------- local


def cached_models(cache_dir: Path) -> list[LocalModel]:
    """Every text model with its projector in the hub cache, newest snapshot per repo."""
    from huggingface_hub import scan_cache_dir
    from huggingface_hub.errors import CacheNotFound

    if not cache_dir.is_dir():
        return []
    try:
        info = scan_cache_dir(cache_dir)
    except CacheNotFound:
        return []
    found: list[LocalModel] = []
    for repo in sorted(info.repos, key=lambda r: r.repo_id):
        if repo.repo_type != "model":
            continue
        for revision in sorted(repo.revisions, key=lambda r: -r.last_modified):
            found.extend(_models_in(repo.repo_id, revision))
    return found


def _models_in(repo: str, revision: Any) -> list[LocalModel]:
    paths = {str(Path(f.file_path).relative_to(revision.snapshot_path)): f
             for f in revision.files}
    projectors = sorted((p for p in paths if p.lower().endswith(".gguf") and is_projector(p)),
                        key=_projector_rank)
    models = []
    for group in _group_parts([HubFile(p, paths[p].size_on_disk) for p in paths
                               if p.lower().endswith(".gguf") and not is_projector(p)]):
        first = group[0].path
        total = sum(f.size for f in group)
        split = _SPLIT.search(first)
        if split and len(group) != int(split.group(2)):
            continue  # a split model with parts missing is not usable
        mmproj = Path(paths[projectors[0]].file_path) if projectors else None
        size = total + (paths[projectors[0]].size_on_disk if projectors else 0)
        models.append(LocalModel(Path(paths[first].file_path), mmproj, repo, quant_of(first),
                                 revision.commit_hash, size))
    return models


def find_cached(repo: str, quant: str, cache_dir: Path) -> LocalModel | None:
    """The newest cached snapshot of `repo` that holds a `quant` model and a projector
    (its own, else one cached from its fallback repo)."""
    models = cached_models(cache_dir)
    for model in models:
        if model.repo == repo and model.quant == quant.upper() and model.mmproj_path:
            return model
    fallback = PROJECTOR_FALLBACKS.get(repo)
    projector = cached_projector(fallback, cache_dir) if fallback else None
    for model in models:
        if model.repo == repo and model.quant == quant.upper() and projector is not None:
            return replace(model, mmproj_path=projector,
                           size_bytes=model.size_bytes + projector.stat().st_size)
    return None


def cached_projector(repo: str, cache_dir: Path) -> Path | None:
    """The best projector cached from `repo` (any snapshot), if there is one."""
    snapshots = repo_folder(cache_dir, repo) / "snapshots"
    found = [p for p in snapshots.glob("*/**/*.gguf") if is_projector(p.name) and p.exists()]
    if not found:
        return None
    return min(found, key=lambda p: _projector_rank(p.name))
