"""The shop: a small stateful web app on 127.0.0.1, for trying tasks and for tests.

    with ShopServer() as shop:      # a free port unless ShopServer(port=N)
        shop.url                    # http://127.0.0.1:PORT
        shop.state.orders           # what it has been asked to do (also GET /state)

Pages:
  /          an order form (name field, native <select>, Submit button), a link to
             /about and a link that opens /offers in a new tab
  /about     a second page with a "Back home" link
  /offers    the new-tab page, with a "Claim" button (POST /claim)
  /long      a tall page for scrolling tests
  /state     the server-side state as JSON (what tests assert on)
"""

from __future__ import annotations

import errno
import html
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from venusctl.sim.base import Environment
from venusctl.sim.tools import busy

FORM = """<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
<style>body{font:18px sans-serif;margin:20px} input,select,button{font-size:20px;margin:6px}
#name{position:absolute;left:100px;top:100px;width:400px;height:40px}
#colour{position:absolute;left:100px;top:200px;width:200px;height:40px}
#submit{position:absolute;left:100px;top:300px;width:200px;height:50px}
#about{position:absolute;left:100px;top:400px} #offers{position:absolute;left:100px;top:460px}
</style></head><body><h1>Order</h1>
<form method="post" action="/order">
<input id="name" name="name" aria-label="Your name" autocomplete="off">
<select id="colour" name="colour"><option>Red</option><option>Green</option>
<option>Blue</option></select>
<button id="submit" type="submit">Submit order</button></form>
<a id="about" href="/about">About us</a>
<a id="offers" href="/offers" target="_blank">Offers (new tab)</a>
</body></html>"""

ABOUT = """<!doctype html><html><head><title>About</title></head><body>
<h1 id="about-title">About this shop</h1><a href="/">Back home</a></body></html>"""

OFFERS = """<!doctype html><html><head><title>Offers</title>
<style>#claim{position:absolute;left:200px;top:200px;width:300px;height:80px;font-size:24px}
</style></head><body><h1>Offers</h1>
<form method="post" action="/claim"><button id="claim">Claim offer</button></form>
</body></html>"""

DONE = """<!doctype html><html><head><title>{title}</title></head><body>
<h1>{title}</h1><p>{body}</p><a href="/">Home</a></body></html>"""


def long_page() -> str:
    rows = "".join(f'<p id="row{i}" style="height:60px">Row {i}</p>' for i in range(100))
    return f"<!doctype html><html><head><title>Long</title></head><body>{rows}</body></html>"


@dataclass
class ShopState:
    orders: list[dict[str, str]] = field(default_factory=list)
    claims: int = 0
    visits: list[str] = field(default_factory=list)


class ShopServer(Environment):
    """The app on a loopback port; `state` is what it has been asked to do."""

    kind = "web"

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self.state = ShopState()
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def _send(self, body: str, status: int = 200, kind: str = "text/html") -> None:
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", f"{kind}; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                path = urlparse(self.path).path
                with server.lock:
                    server.state.visits.append(path)
                pages = {"/": FORM, "/about": ABOUT, "/offers": OFFERS, "/long": long_page()}
                if path == "/state":
                    with server.lock:
                        self._send(json.dumps(server.state.__dict__), kind="application/json")
                elif path in pages:
                    self._send(pages[path])
                else:
                    self._send("not found", 404, "text/plain")

            def do_POST(self) -> None:
                path = urlparse(self.path).path
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
                with server.lock:
                    if path == "/order":
                        server.state.orders.append(form)
                        body = f"Thank you, {html.escape(form.get('name', ''))}"
                        self._send(DONE.format(title="Order received", body=body))
                    elif path == "/claim":
                        server.state.claims += 1
                        self._send(DONE.format(title="Offer claimed", body="Enjoy"))
                    else:
                        self._send("not found", 404, "text/plain")

        self.handler = Handler
        self.httpd: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        """The app's address (no trailing slash); known once started."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ShopServer:
        try:
            self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), self.handler)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise busy(self.port, "the shop app") from None
            raise
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True,
                         name="shop-server").start()
        return self

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None

    def variables(self) -> dict[str, str]:
        return {"SHOP_URL": self.url}

    def summary(self) -> str:
        return (f"the shop app is at {self.url}/ (what it was asked to do: {self.url}/state); "
                f"try: venusctl do \"Open the About page\" --driver web --url {self.url}/")
