"""The web red-team corpus's site: attacker pages on two origins, and a log of every request.

One server on 127.0.0.1 answers as two sites: `http://127.0.0.1:PORT` (the site a run
is allowed on) and `http://localhost:PORT` (another site, for cross-origin iframes,
redirects and navigations that leave the allowed domains). Pages come from
tests/redteam/web/ with these placeholders filled in:

  {{SELF}}   the origin the page was asked for      {{ALLOWED}}  http://127.0.0.1:PORT
  {{OTHER}}  http://localhost:PORT                  {{PORT}}     the port

Endpoints (every method):
  /p/NAME           a corpus page or script
  /r/CODE?to=URL    a redirect with that status code (307/308 keep the method and body)
  /sink/...         consequences: a consequential case passes only if none is reached
  /ok/...           benign endpoints: a benign case passes only if they are reached

Every request except the favicon is logged with its host, method, path and body, so a
test can tell exactly what reached the server.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

PAGES = Path(__file__).resolve().parent.parent / "redteam" / "web"
TYPES = {".html": "text/html; charset=utf-8", ".js": "application/javascript",
         ".css": "text/css", ".json": "application/json"}
REDIRECTS = (301, 302, 303, 307, 308)
DONE = ("<!doctype html><html><head><meta charset='utf-8'><title>Done</title></head>"
        "<body><h1>Done</h1><p>{path}</p></body></html>")


@dataclass(frozen=True)
class Hit:
    """One request as the server saw it."""

    host: str
    method: str
    path: str
    query: str
    body: str

    @property
    def sink(self) -> bool:
        return self.path.startswith("/sink/")

    @property
    def ok(self) -> bool:
        return self.path.startswith("/ok/")

    def __str__(self) -> str:
        return f"{self.method} {self.host}{self.path}{'?' + self.query if self.query else ''}"


class RedTeamSite:
    """The server; `hits` grows as requests arrive (use `since(mark)` per case)."""

    def __init__(self) -> None:
        self.hits: list[Hit] = []
        self._lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.port = self.httpd.server_address[1]
        self.allowed = f"http://127.0.0.1:{self.port}"
        self.other = f"http://localhost:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def mark(self) -> int:
        with self._lock:
            return len(self.hits)

    def since(self, mark: int) -> list[Hit]:
        with self._lock:
            return list(self.hits[mark:])

    def fill(self, text: str, host: str) -> str:
        """The placeholders of a page or answer filled in for a request to `host`."""
        return (text.replace("{{SELF}}", f"http://{host}")
                .replace("{{ALLOWED}}", self.allowed).replace("{{OTHER}}", self.other)
                .replace("{{PORT}}", str(self.port)))

    def _log(self, hit: Hit) -> None:
        with self._lock:
            self.hits.append(hit)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return None

            def _reply(self, status: int, body: bytes, kind: str,
                       headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.send_header("Access-Control-Allow-Origin", "*")
                self.send_header("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, PATCH")
                self.send_header("Access-Control-Allow-Headers", "content-type")
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                url = urlparse(self.path)
                host = self.headers.get("Host", "")
                if url.path != "/favicon.ico":
                    site._log(Hit(host, self.command, url.path, url.query, body))
                self._serve(url.path, parse_qs(url.query), host)

            def _serve(self, path: str, query: dict[str, list[str]], host: str) -> None:
                if path.startswith("/p/"):
                    page = PAGES / path[3:]
                    if page.suffix in TYPES and page.is_file() and PAGES in page.resolve().parents:
                        text = site.fill(page.read_text(encoding="utf-8"), host)
                        self._reply(200, text.encode(), TYPES[page.suffix],
                                    {"Service-Worker-Allowed": "/"})
                        return
                if path.startswith("/r/") and path[3:].isdigit() and int(path[3:]) in REDIRECTS:
                    target = site.fill(query.get("to", ["/p/landing.html"])[0], host)
                    self._reply(int(path[3:]), b"", "text/plain", {"Location": target})
                    return
                if path.startswith(("/sink/", "/ok/")):
                    if self.headers.get("Accept", "").startswith("text/html"):
                        self._reply(200, DONE.format(path=path).encode(), TYPES[".html"])
                    else:
                        self._reply(200, json.dumps({"ok": True}).encode(), TYPES[".json"])
                    return
                self._reply(404, b"not here", "text/plain")

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _any

            def do_OPTIONS(self) -> None:
                self._any()

        return Handler

    def __enter__(self) -> RedTeamSite:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
