"""TodoMVC's vanillajs example, from the npm package `todomvc`, served on 127.0.0.1.

The package is fetched once with `npm pack` (the npm registry is reachable in CI)
into pytest's cache folder, and only the example's folder is unpacked. Missing npm
fails loudly: this is a real third-party app, not something we could fake.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import subprocess
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PACKAGE = "todomvc@0.1.1"
EXAMPLE = "package/examples/vanillajs/"


def todomvc_app(cache: Path) -> Path:
    """The vanillajs example's folder (index.html, js/, bower_components/)."""
    app = cache / "vanillajs"
    if (app / "index.html").exists():
        return app
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is needed to fetch TodoMVC (apt install npm)")
    cache.mkdir(parents=True, exist_ok=True)
    subprocess.run([npm, "pack", PACKAGE, "--silent"], cwd=cache, check=True,
                   capture_output=True, timeout=300)
    tarball = next(cache.glob("todomvc-*.tgz"))
    staging = cache / "staging"
    with tarfile.open(tarball) as archive:
        members = [m for m in archive.getmembers()
                   if m.name.startswith(EXAMPLE) and "/test/" not in m.name and m.isfile()]
        archive.extractall(staging, members=members, filter="data")
    (staging / EXAMPLE).rename(app)
    shutil.rmtree(staging, ignore_errors=True)
    tarball.unlink()
    return app


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """A static server for `folder` on 127.0.0.1 (a free port); yields its URL."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
