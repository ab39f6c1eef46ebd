"""A small stand-in for the Hugging Face hub on 127.0.0.1, reached through HF_ENDPOINT.

It answers the four requests huggingface_hub makes for `venusctl model pull`: repo
info (the commit), the recursive tree listing (names, sizes, LFS SHA-256), and HEAD
and GET on `resolve/` URLs, with Range support so that resumed downloads can be
observed. `requests` records what was asked; `corrupt` serves bytes that do not
match the listed checksum; `cut_after` drops the connection after that many bytes
of a file's body (the first time), as a flaky network would.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlparse

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class FakeRepo:
    repo: str
    files: dict[str, bytes]
    commit: str = COMMIT
    corrupt: set[str] = field(default_factory=set)
    cut_after: dict[str, int] = field(default_factory=dict)

    def entry(self, path: str) -> dict[str, Any]:
        data = self.files[path]
        sha = hashlib.sha256(data).hexdigest()
        blob = hashlib.sha1(f"blob {len(data)}\0".encode() + data).hexdigest()
        item: dict[str, Any] = {"type": "file", "oid": blob, "size": len(data), "path": path}
        if path.endswith(".gguf"):
            item["lfs"] = {"oid": sha, "size": len(data), "pointerSize": 134}
        return item


@dataclass
class Request:
    method: str
    path: str
    range: str | None


class FakeHub:
    """`with FakeHub([FakeRepo(...)]) as hub:` then set HF_ENDPOINT=hub.url."""

    def __init__(self, repos: list[FakeRepo]) -> None:
        self.repos = {r.repo: r for r in repos}
        self.requests: list[Request] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def downloads(self, name: str) -> list[Request]:
        return [r for r in self.requests if r.method == "GET" and r.path.endswith("/" + name)]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_GET(self) -> None:
                hub._serve(self, "GET")

            def do_HEAD(self) -> None:
                hub._serve(self, "HEAD")

        return Handler

    # ------------------------------------------------------------------ routes
    def _serve(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        path = unquote(urlparse(handler.path).path)
        self.requests.append(Request(method, path, handler.headers.get("Range")))
        api = re.match(r"^/api/models/([^/]+/[^/]+)(?:/revision/[^/]+)?$", path)
        tree = re.match(r"^/api/models/([^/]+/[^/]+)/tree/([^/]+)(?:/(.*))?$", path)
        resolve = re.match(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$", path)
        if tree:
            self._tree(handler, tree.group(1))
        elif api:
            self._info(handler, api.group(1))
        elif resolve:
            self._file(handler, method, resolve.group(1), resolve.group(3))
        else:
            self._missing(handler, "EntryNotFound")

    def _repo(self, handler: BaseHTTPRequestHandler, name: str) -> FakeRepo | None:
        repo = self.repos.get(name)
        if repo is None:
            self._missing(handler, "RepoNotFound")
        return repo

    def _info(self, handler: BaseHTTPRequestHandler, name: str) -> None:
        repo = self._repo(handler, name)
        if repo is not None:
            siblings = [{"rfilename": p} for p in repo.files]
            _json(handler, {"id": repo.repo, "sha": repo.commit, "siblings": siblings})

    def _tree(self, handler: BaseHTTPRequestHandler, name: str) -> None:
        repo = self._repo(handler, name)
        if repo is not None:
            _json(handler, [repo.entry(p) for p in sorted(repo.files)])

    def _file(self, handler: BaseHTTPRequestHandler, method: str, name: str, path: str) -> None:
        repo = self._repo(handler, name)
        if repo is None:
            return
        if path not in repo.files:
            self._missing(handler, "EntryNotFound")
            return
        data = repo.files[path]
        body = bytes(len(data)) if path in repo.corrupt else data
        start = _range_start(handler.headers.get("Range"))
        handler.send_response(206 if start else 200)
        handler.send_header("X-Repo-Commit", repo.commit)
        handler.send_header("ETag", f'"{repo.entry(path).get("lfs", {}).get("oid", "x")}"')
        handler.send_header("Content-Length", str(len(body) - start))
        if start:
            handler.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        handler.end_headers()
        if method == "HEAD":
            return
        cut = repo.cut_after.pop(path, None)
        handler.wfile.write(body[start:start + cut] if cut is not None else body[start:])
        if cut is not None:
            handler.wfile.flush()
            handler.close_connection = True

    def _missing(self, handler: BaseHTTPRequestHandler, code: str) -> None:
        handler.send_response(404)
        handler.send_header("X-Error-Code", code)
        handler.send_header("Content-Length", "0")
        handler.end_headers()


def _range_start(header: str | None) -> int:
    match = re.match(r"bytes=(\d+)-", header or "")
    return int(match.group(1)) if match else 0


def _json(handler: BaseHTTPRequestHandler, value: Any) -> None:
    body = json.dumps(value).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)
