"""Files through the browser: `Upload(file=…)` and `Download(filename=…)`.

The authors' browser harness works in two turns. A click on a page's upload control
opens a file chooser: the model is told (status `awaiting_selection`) which files it
may pick and answers `Upload(file='relative/path')`. A click on a download link
starts a download: the model is told (status `awaiting_filename`) and answers
`Download(filename='name.ext')`, after which the file is saved (status `completed`).

Here the file chooser and the download are caught by Playwright, so no native dialog
ever opens. Uploads come only from the folder the user allowed with `--upload-dir`:
a path is resolved there and refused if it leaves the folder (`..`, a link pointing
out) or is not a regular file; without the flag every upload is refused, and the
refusal is fed back to the model. Downloads are saved into the run's folder
(`downloads/`), never over an existing file, and listed in the step's record.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from venusctl.core.actions import Download, Upload
from venusctl.core.errors import ActionFailed
from venusctl.core.text import first_line
from venusctl.drivers.base import ActionResult

log = logging.getLogger(__name__)

MANIFEST_MOST = 200
"""Files listed to the model at most (the rest are counted)."""


class FileTransfers:
    """Pending file choosers and downloads of one browser context."""

    def __init__(self, context: Any, upload_dir: Path | None) -> None:
        self.upload_dir = upload_dir.expanduser().resolve() if upload_dir else None
        self.download_dir: Path | None = None
        self._chooser: Any = None
        self._download: Any = None
        self._told: set[int] = set()
        self._watched: set[int] = set()
        context.on("page", self.watch)
        for page in context.pages:
            self.watch(page)

    def watch(self, page: Any) -> None:
        """Catch this page's file choosers and downloads (new tabs are watched too)."""
        if id(page) in self._watched:
            return
        self._watched.add(id(page))
        page.on("filechooser", self._chooser_opened)
        page.on("download", self._download_started)

    def _chooser_opened(self, chooser: Any) -> None:
        self._chooser = chooser

    def _download_started(self, download: Any) -> None:
        self._download = download

    # ------------------------------------------------------------- telling the model
    def notice(self) -> str | None:
        """What a new file chooser or download asks of the model (said once each)."""
        lines = []
        for pending, text in ((self._chooser, self._chooser_notice),
                              (self._download, self._download_notice)):
            if pending is not None and id(pending) not in self._told:
                self._told.add(id(pending))
                lines.append(text())
        return "\n".join(lines) or None

    def _chooser_notice(self) -> str:
        if self.upload_dir is None:
            return ("The page opened a file chooser (status: awaiting_selection), but no "
                    "folder is allowed for uploads, so Upload is refused in this run.")
        files = self.manifest()
        listing = "\n".join(f"- {name}" for name in files[:MANIFEST_MOST])
        more = (f"\n(and {len(files) - MANIFEST_MOST} more)" if len(files) > MANIFEST_MOST
                else "")
        return ("The page opened a file chooser (status: awaiting_selection). Files you may "
                f"upload:\n{listing or '(none)'}{more}\nAnswer with Upload(file='path') "
                "using one of these paths exactly.")

    def _download_notice(self) -> str:
        name = _suggested(self._download)
        return ("A download started (status: awaiting_filename); the site suggests "
                f"'{name}'. Name the file with Download(filename='name.ext').")

    def manifest(self) -> list[str]:
        """The files in the upload folder, as relative paths (links leaving it excluded)."""
        if self.upload_dir is None:
            return []
        found = []
        for path in sorted(self.upload_dir.rglob("*")):
            try:
                if path.is_file() and path.resolve().is_relative_to(self.upload_dir):
                    found.append(path.relative_to(self.upload_dir).as_posix())
            except OSError:
                continue
        return found

    # --------------------------------------------------------------------- acting
    def upload(self, action: Upload) -> ActionResult:
        if self.upload_dir is None:
            raise ActionFailed("uploading is not allowed in this run (no upload folder was "
                               "given); do the task without it or ask the user with CallUser")
        if self._chooser is None:
            raise ActionFailed("no file chooser is open; click the page's upload control "
                               "first")
        path = self._inside_upload_dir(action.file)
        self._chooser.set_files(str(path))
        self._chooser = None
        name = path.relative_to(self.upload_dir).as_posix()
        return ActionResult(f"Uploaded {name} (status: completed).",
                            {"uploaded": name, "bytes": path.stat().st_size})

    def _inside_upload_dir(self, relative: str) -> Path:
        assert self.upload_dir is not None
        candidate = (self.upload_dir / relative.replace("\\", "/")).resolve()
        if not candidate.is_relative_to(self.upload_dir) or not candidate.is_file():
            raise ActionFailed(f"'{relative[:100]}' is not one of the files you may upload; "
                               "use a path from the list exactly")
        return candidate

    def download(self, action: Download) -> ActionResult:
        if self._download is None:
            raise ActionFailed("no download is waiting for a name; click the page's download "
                               "control first")
        if self.download_dir is None:
            raise ActionFailed("downloads are kept only during a run (venusctl do)")
        self.download_dir.mkdir(parents=True, exist_ok=True)
        target = _free_name(self.download_dir / action.filename)
        pending, self._download = self._download, None
        try:
            pending.save_as(str(target))
        except Exception as exc:
            raise ActionFailed(f"the download failed: {first_line(exc)}") from None
        size = target.stat().st_size
        shown = f"{self.download_dir.name}/{target.name}"
        return ActionResult(f"Saved the download as {target.name} (status: completed, "
                            f"{size} bytes).",
                            {"download": {"file": shown, "bytes": size, "url": pending.url,
                                          "suggested": _suggested(pending)}})


def _suggested(download: Any) -> str:
    try:
        return str(download.suggested_filename)
    except Exception:
        return "download"


def _free_name(path: Path) -> Path:
    """`path`, or `name (2).ext`, `name (3).ext`… when it is taken: never overwrite."""
    if not path.exists():
        return path
    for number in range(2, 10000):
        candidate = path.with_name(f"{path.stem} ({number}){path.suffix}")
        if not candidate.exists():
            return candidate
    raise ActionFailed(f"too many downloads named {path.name}")
