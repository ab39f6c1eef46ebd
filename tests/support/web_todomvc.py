"""TodoMVC's vanilla-JS example (npm package `todomvc`), served statically on 127.0.0.1.

A third-party app nobody on the project wrote: its delete button (×) is an empty
`<button class="destroy">` drawn by CSS `::after` and shown only while the pointer is
over the row. The package is fetched once with `npm pack` (scripts/test.sh does it
up front) into .cache/todomvc; without npm or the registry the tests fail loudly.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

VERSION = "0.1.1"
ROOT = Path(__file__).resolve().parents[2] / ".cache" / "todomvc"
EXAMPLE = "examples/vanillajs"


def todomvc_dir() -> Path:
    """The vanilla-JS example, fetched from npm the first time."""
    app = ROOT / EXAMPLE
    if (app / "index.html").is_file():
        return app
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not installed; run scripts/test.sh, which fetches TodoMVC",
                    pytrace=False)
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([npm, "pack", f"todomvc@{VERSION}", "--silent"], cwd=tmp,
                              capture_output=True, text=True, timeout=300)
        packed = Path(tmp) / f"todomvc-{VERSION}.tgz"
        if done.returncode != 0 or not packed.is_file():
            pytest.fail(f"npm pack todomvc@{VERSION} failed: {done.stderr.strip()[:300]}",
                        pytrace=False)
        with tarfile.open(packed) as archive:
            members = [m for m in archive.getmembers()
                       if m.name.startswith(f"package/{EXAMPLE}/") and ".." not in m.name
                       and (m.isfile() or m.isdir())]
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            archive.extractall(tmp, members=members, **safe)
        app.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(Path(tmp) / "package" / EXAMPLE), str(app))
    return app


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        return None


@contextmanager
def serve_todomvc() -> Iterator[str]:
    """The app's address while it is served."""
    handler = functools.partial(_Quiet, directory=str(todomvc_dir()))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/index.html"
    finally:
        httpd.shutdown()
        httpd.server_close()
