"""Where an action happens or leads: web domains and app names, and lists of them.

Domain patterns: `example.com` covers the domain and its subdomains,
`*.example.com` only the subdomains, an IP address or `localhost` only itself.
App patterns are shell-style globs compared case-insensitively with both the
package or window class (`com.android.settings`, `firefox`) and the visible name
given to `LaunchApp` ("Settings").
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from urllib.parse import urlparse

INVALID_HOST = "(invalid address)"
NO_PLACE_SCHEMES = ("about", "data", "blob", "chrome", "chrome-error", "devtools", "javascript")


def host_of(url: str | None) -> str | None:
    """The lower-case host of a URL; None for pages that are nowhere (about:blank)."""
    if not url:
        return None
    text = url.strip()
    if "://" not in text and not text.lower().startswith(NO_PLACE_SCHEMES):
        text = "http://" + text  # `Launch(url='example.com')`
    try:
        parsed = urlparse(text)
        hostname, _ = parsed.hostname, parsed.port
    except ValueError:
        return INVALID_HOST  # matches no allow-list entry, so it is gated, never waved on
    if parsed.scheme.lower() in NO_PLACE_SCHEMES:
        return None
    if parsed.scheme.lower() == "file":
        return "file"
    host = (hostname or "").rstrip(".").lower()
    return host or None


def domain_matches(host: str, pattern: str) -> bool:
    pattern = pattern.strip().lower().rstrip(".")
    if not pattern:
        return False
    if "://" in pattern:
        pattern = host_of(pattern) or ""
    if pattern.startswith("*."):
        return host.endswith(pattern[1:])
    if any(c in pattern for c in "*?["):
        return fnmatchcase(host, pattern)
    return host == pattern or host.endswith("." + pattern)


def in_domains(host: str, patterns: Iterable[str]) -> bool:
    return any(domain_matches(host, p) for p in patterns)


def app_matches(app: str, pattern: str) -> bool:
    return fnmatchcase(app.strip().lower(), pattern.strip().lower())


def in_apps(app: str, patterns: Iterable[str]) -> bool:
    return any(app_matches(app, p) for p in patterns)
