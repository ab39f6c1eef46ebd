"""Where an action happens or leads: web domains and app names, and lists of them.

Addresses are read as the browser reads them, with a WHATWG URL parser (`ada-url`,
the parser Node.js uses): backslashes count as slashes, `http://2130706433/`,
`http://127.1/` and `http://0x7f.1/` are 127.0.0.1, hosts are lower-cased,
internationalised names become their `xn--` form, a trailing dot is dropped, and
`http://localhost:8080\\@127.0.0.1:8080/` is localhost (as Chromium goes there), not
127.0.0.1. List entries are read the same way, so `deny_domains: [127.0.0.1]`
also catches the decimal and short forms, and `bücher.example` the `xn--` one.

Domain patterns: `example.com` covers the domain and its subdomains,
`*.example.com` only the subdomains, an IP address or `localhost` only itself.
App patterns are shell-style globs compared case-insensitively with both the
package or window class (`com.android.settings`, `firefox`) and the visible name
given to `LaunchApp` ("Settings").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from fnmatch import fnmatchcase
from functools import lru_cache

from ada_url import URL

INVALID_HOST = "(invalid address)"
NO_PLACE_SCHEMES = ("about", "data", "blob", "chrome", "chrome-error", "devtools", "javascript")
_SCHEMES_READ_AS_IS = frozenset({*NO_PLACE_SCHEMES, "http", "https", "ws", "wss", "ftp", "file",
                                 "chrome-extension", "view-source", "mailto", "tel", "intent"})
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):")
_IPV4 = re.compile(r"^\d{1,3}(\.\d{1,3}){3}$")


@lru_cache(maxsize=2048)
def _parse(url: str | None) -> URL | None:
    if not url:
        return None
    text = url.strip()
    scheme = _SCHEME.match(text)
    if scheme is None or scheme.group(1).lower() not in _SCHEMES_READ_AS_IS:
        text = "http://" + text  # `Launch(url='example.com')`, `localhost:8080/x`
    try:
        return URL(text)
    except ValueError:
        return None


def href_of(url: str | None) -> str:
    """The whole address as the browser reads it (scheme always written out); the text
    itself when it is no address at all."""
    parsed = _parse(url)
    return parsed.href if parsed is not None else (url or "")


def host_of(url: str | None) -> str | None:
    """The host as the browser reads it; None for pages that are nowhere (about:blank)."""
    if not url or not url.strip():
        return None
    parsed = _parse(url)
    if parsed is None:
        return INVALID_HOST  # matches no allow-list entry, so it is gated, never waved on
    scheme = parsed.protocol[:-1].lower()
    if scheme in NO_PLACE_SCHEMES:
        return None
    if scheme == "file":
        return "file"
    host = (parsed.hostname or "").rstrip(".").lower()
    return host or None


@lru_cache(maxsize=1024)
def _pattern(pattern: str) -> tuple[str, str]:
    """A list entry as (kind, host): kind is exact, tree (domain and subdomains),
    subdomains (`*.x`) or glob; hosts are normalised like addresses."""
    text = pattern.strip().lower()
    if not text:
        return "none", ""
    if text.startswith("*.") and not any(c in text[2:] for c in "*?["):
        return "subdomains", _host_or_text(text[2:])
    if any(c in text for c in "*?["):
        return "glob", text.rstrip(".")
    host = _host_or_text(text)
    if _IPV4.match(host) or host.startswith("[") or host in ("localhost", "file"):
        return "exact", host
    return "tree", host


def _host_or_text(text: str) -> str:
    host = host_of(text)
    if host in (None, INVALID_HOST) and ":" in text and "[" not in text:
        host = host_of(f"http://[{text}]/")  # a bare IPv6 address
    return host if host not in (None, INVALID_HOST) else text.rstrip(".")


def domain_matches(host: str, pattern: str) -> bool:
    kind, wanted = _pattern(pattern)
    if not wanted or host == INVALID_HOST:
        return False
    if kind == "subdomains":
        return host.endswith("." + wanted)
    if kind == "glob":
        return fnmatchcase(host, wanted)
    if kind == "exact" or _IPV4.match(host) or host.startswith("["):
        return host == wanted
    return host == wanted or host.endswith("." + wanted)


def in_domains(host: str, patterns: Iterable[str]) -> bool:
    return any(domain_matches(host, p) for p in patterns)


def app_matches(app: str, pattern: str) -> bool:
    return fnmatchcase(app.strip().lower(), pattern.strip().lower())


def in_apps(app: str, patterns: Iterable[str]) -> bool:
    return any(app_matches(app, p) for p in patterns)
