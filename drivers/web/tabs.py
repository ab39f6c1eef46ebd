"""The tabs Chromium has opened for one browser context, before Playwright announces them.

A click on a link that opens a tab returns once the page has handled the click. By then
Chromium has made the new tab's target (the page asks for the window synchronously while
it handles the click), but Playwright lists the tab in `context.pages` only after a few
more round trips that set it up. A screenshot taken in that gap shows the old tab while
the new one is in front, and the model would answer for a page it never saw; so the
driver asks the browser how many tabs there are and waits for Playwright to catch up.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


class TabTargets:
    """The browser's own list of this context's tabs (DevTools `Target.getTargets`)."""

    def __init__(self, browser: Any, context_id: str) -> None:
        self._context_id = context_id
        self._session = browser.new_browser_cdp_session()

    def count(self) -> int:
        """Tabs of this context the browser holds now (prerendered pages, which
        Playwright never lists, are left out)."""
        infos = self._session.send("Target.getTargets")["targetInfos"]
        return sum(1 for info in infos if info.get("type") == "page" and not info.get("subtype")
                   and info.get("browserContextId") == self._context_id)

    def close(self) -> None:
        try:
            self._session.detach()
        except Exception as exc:  # the browser is already gone
            log.debug("releasing the tab list: %s", exc)
