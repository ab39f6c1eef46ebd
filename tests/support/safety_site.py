"""The safety corpus's web pages (tests/corpus/safety/pages) served on 127.0.0.1.

Every POST is recorded in `posts` (path and form fields), so a test can tell
whether a gated action went through.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

PAGES = Path(__file__).resolve().parent.parent / "corpus" / "safety" / "pages"
DONE = "<!doctype html><html><head><title>Done</title></head><body><h1>Done</h1></body></html>"


class SafetySite:
    def __init__(self) -> None:
        self.posts: list[tuple[str, dict[str, str]]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def _send(self, body: str, status: int = 200) -> None:
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                page = PAGES / (urlparse(self.path).path.strip("/") or "index")
                if page.suffix != ".html" or not page.is_file():
                    self._send(DONE.replace("Done", "Nothing here"), 404)
                    return
                self._send(page.read_text(encoding="utf-8"))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                site.posts.append((urlparse(self.path).path, form))
                self._send(DONE)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def pages(self) -> list[str]:
        return sorted(p.name for p in PAGES.glob("*.html"))

    def __enter__(self) -> SafetySite:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
