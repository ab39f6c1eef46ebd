"""One screenshot of a tab, asked for again when Chromium loses the request.

Chromium drops a capture that is in flight when the tab commits a navigation (a form's
POST, a link followed a few milliseconds after the click) and never answers it: the
DevTools call stays open until the caller's timeout. Measured on the shop app, a capture
sent 24 ms before a form submission committed was lost that way, and the step after
the click waited the whole 15 s. The first tries are therefore short and each lost
request is simply made again, against the new document; the tries grow, so that a
page which is merely slow to paint still gets 15 s in all. A capture the browser
refuses outright (a tab that has just opened) is retried after a short pause.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

TRIES_MS = (1000, 2000, 4000, 8000)
"""The limit of each try; a capture normally takes 50-150 ms here."""
REFUSED_PAUSE_MS = 150


def capture(page: Any, options: dict[str, Any], check_gone: Callable[[BaseException], None],
            ) -> bytes:
    """The tab's screenshot (Playwright's `page.screenshot` with `options`); `check_gone`
    raises when an error means the browser itself has gone."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for limit in TRIES_MS[:-1]:
        try:
            return bytes(page.screenshot(**options, timeout=limit))
        except PlaywrightTimeout:
            continue  # lost to a navigation, or slow: ask again, for longer
        except Exception as exc:
            check_gone(exc)
            page.wait_for_timeout(REFUSED_PAUSE_MS)
    return bytes(page.screenshot(**options, timeout=TRIES_MS[-1]))
