"""The browser surface: Chromium driven through Playwright.

Coordinates are CSS pixels of the viewport; screenshots are taken at the viewport
size so the grid maps straight onto them. The driver follows tabs the page opens and
tells the model the options of a native `<select>` it just clicked. The parts the
safety of a run leans on live in their own modules:

  describe      what a click at a point, or a key, would really act on
  gate          every request held until the run's judge has decided
  fields        password, card and secret fields to blur or paint over
  profile       a persistent profile that keeps logins but nothing typed
"""

from __future__ import annotations

import functools
import logging
import re
import shutil
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import urlparse

from venusctl.core import interrupts
from venusctl.core.actions import (
    Action,
    Click,
    DoubleClick,
    Drag,
    GetUrl,
    Hotkey,
    Hover,
    Launch,
    LongPress,
    PressBack,
    PressEnter,
    PressHome,
    Scroll,
    SelectOption,
    Surface,
    TakeNote,
    Type,
    Upload,
    Wait,
)
from venusctl.core.actions import Download as DownloadAction
from venusctl.core.errors import ActionFailed, DeviceError, UsageError, VenusError
from venusctl.core.grid import ScreenSize
from venusctl.core.text import first_line
from venusctl.drivers.base import ActionResult, Element, Screen, ScreenContext
from venusctl.drivers.capabilities import Capability
from venusctl.drivers.settle import wait_until_stable
from venusctl.drivers.web.capture import capture
from venusctl.drivers.web.describe import SETTLE_JS, Describer
from venusctl.drivers.web.fields import SecretFields, focused_handle, sensitive_boxes
from venusctl.drivers.web.files import FileTransfers
from venusctl.drivers.web.gate import Judge, RequestHold, refresh
from venusctl.drivers.web.profile import ProfileGuard
from venusctl.drivers.web.select import OpenSelect, select_by_name
from venusctl.drivers.web.shutdown import CloseWatchdog, end_playwright_drivers
from venusctl.drivers.web.tabs import TabTargets
from venusctl.interface.profile import authors_profile

log = logging.getLogger(__name__)

PROFILE = authors_profile("browser")
SCROLL_FRACTION = PROFILE.scroll_fraction or 2 / 3
LONG_PRESS_DEFAULT_S = (PROFILE.long_press_ms or 20000) / 1000
NAV_TIMEOUT_MS = 20000
TAB_ANNOUNCE_S = 5.0  # the most to wait for Playwright to list a tab the browser opened
SYSTEM_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable",
                   "chrome")

_KEYS = {
    "ctrl": "Control", "control": "Control", "shift": "Shift", "alt": "Alt",
    "option": "Alt", "cmd": "Meta", "command": "Meta", "meta": "Meta", "win": "Meta",
    "super": "Meta", "enter": "Enter", "return": "Enter", "esc": "Escape",
    "escape": "Escape", "tab": "Tab", "backspace": "Backspace", "delete": "Delete",
    "del": "Delete", "space": "Space", "up": "ArrowUp", "down": "ArrowDown",
    "left": "ArrowLeft", "right": "ArrowRight", "pageup": "PageUp", "pagedown": "PageDown",
    "home": "Home", "end": "End", "insert": "Insert",
}

PAGE_TEXT_JS = "() => document.documentElement ? document.documentElement.innerText : ''"
_SELECT_AT_JS = """
([x, y]) => {
  const el = document.elementFromPoint(x, y);
  const sel = el && el.closest('select');
  if (!sel || sel.disabled) return null;
  return Array.from(sel.options).map(o => o.text.replace(/\\s+/g, ' ').trim());
}
"""


@dataclass
class WebOptions:
    """How to start the browser; every field has a command-line flag."""

    url: str | None = None
    headless: bool = True
    viewport: ScreenSize = field(default_factory=lambda: ScreenSize(*PROFILE.viewport or ()))
    browser_path: str | None = None
    profile: Path | None = None
    image_format: str = PROFILE.image_format
    jpeg_quality: int = 80
    connect: str | None = None  # a Playwright browser server's ws:// endpoint
    cdp_url: str | None = None  # a Chromium DevTools endpoint (http://host:9222 or ws://…)
    keep_page: bool = False  # remote: work in its open page and leave it open (kept sessions)
    upload_dir: Path | None = None  # the only folder Upload may take files from

    @property
    def remote(self) -> str | None:
        """The endpoint of a browser someone else runs, if any."""
        return self.connect or self.cdp_url


def find_browser(explicit: str | None, bundled: str | None) -> str | None:
    """The browser executable: the flag, else Playwright's own, else one on PATH.

    Returns None when Playwright's bundled browser (at `bundled`) should be used.
    """
    if explicit:
        if not Path(explicit).exists() and shutil.which(explicit) is None:
            raise UsageError(f"--browser-path {explicit} does not exist")
        return shutil.which(explicit) or explicit
    if bundled and Path(bundled).exists():
        return None
    for name in SYSTEM_BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise DeviceError(
        "no browser found: install chromium (apt install chromium) or pass --browser-path"
    )


def check_url(url: str, allow_file: bool) -> str:
    """Only http(s) pages, and `file:` when the user asked for one on the command line."""
    try:
        scheme = urlparse(url).scheme.lower()
    except ValueError:
        raise ActionFailed(f"'{url[:100]}' is not a valid address") from None
    if scheme in ("http", "https") or (allow_file and scheme == "file"):
        return url
    raise ActionFailed(f"Launch opens only http and https addresses, not '{url[:100]}'")


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _playwright_call(method: _Method) -> _Method:
    """Run a driver method with Ctrl-C held until it returns: an interrupt inside a
    Playwright call would leave every later call, closing included, waiting forever
    (see `venusctl.core.interrupts`). A second Ctrl-C abandons the call; from then on
    the driver never calls Playwright again."""
    @functools.wraps(method)
    def call(self: WebDriver, *args: Any, **kwargs: Any) -> Any:
        try:
            with interrupts.deferred():
                return method(self, *args, **kwargs)
        except interrupts.Forced:
            self._wedged = True
            raise

    return cast(_Method, call)


class WebDriver:
    """A Chromium page (and the tabs it opens) as a surface."""

    surface = Surface.BROWSER
    name = "web"
    capabilities = frozenset({
        Capability.FOCUSED_ELEMENT, Capability.SENSITIVE_REGIONS, Capability.SECRET_REGIONS,
        Capability.MARK_SECRET_FIELD, Capability.HOLD_REQUESTS, Capability.KEEP_FILES,
        Capability.SURFACE_TEXT})

    @_playwright_call
    def __init__(self, options: WebOptions, browser: Any = None) -> None:
        """Start a browser, or (with `browser`, a Playwright browser this thread already
        runs) open a new context in it; closing the driver then closes only that context."""
        self.options = options
        self.allow_file = bool(options.url and options.url.lower().startswith("file:"))
        self._pw_manager: Any = None
        self._browser: Any = None
        self._cached: Screen | None = None
        self._select: OpenSelect | None = None
        self._closed = False
        self._wedged = False  # a forced interrupt abandoned a Playwright call
        self._notice: str | None = None
        self._hold: RequestHold | None = None
        self._tabs: TabTargets | None = None
        self._profile: ProfileGuard | None = None
        self._secret_fields = SecretFields()
        if browser is not None:
            self.browser_context = browser.new_context(viewport=self._viewport_option())
        else:
            self.browser_context = self._start()
        self._describer = Describer(self.browser_context)
        self._start_hold()
        pages = self.browser_context.pages
        self.page = pages[0] if pages else self.browser_context.new_page()
        if options.keep_page:
            self.page = self._kept_page(pages)
        self.files = FileTransfers(self.browser_context, options.upload_dir)
        self._known_pages = set(map(id, self.browser_context.pages))
        if options.url:
            self._goto(check_url(options.url, self.allow_file), startup=True)

    def _start(self) -> Any:
        from playwright.sync_api import sync_playwright

        self._pw_manager = sync_playwright()
        self._pw = self._pw_manager.start()
        try:
            if self.options.remote:
                return self._connect()
            executable = find_browser(self.options.browser_path,
                                      self._pw.chromium.executable_path)
            return self._launch(executable)
        except (UsageError, DeviceError):
            self._pw_manager.__exit__(None, None, None)
            raise
        except Exception as exc:
            self._pw_manager.__exit__(None, None, None)
            raise DeviceError(f"could not start the browser: {first_line(exc)}") from None

    def _viewport_option(self) -> dict[str, int]:
        return {"width": self.options.viewport.width, "height": self.options.viewport.height}

    def _launch(self, executable: str | None) -> Any:
        viewport = self._viewport_option()
        common: dict[str, Any] = {"headless": self.options.headless}
        if executable:
            common["executable_path"] = executable
        if self.options.profile is not None:
            self.options.profile.mkdir(parents=True, exist_ok=True)
            self._profile = ProfileGuard(self.options.profile)
            return self._pw.chromium.launch_persistent_context(
                str(self.options.profile), viewport=viewport, args=self._profile.prepare(),
                **common)
        self._browser = self._pw.chromium.launch(**common)
        return self._browser.new_context(viewport=viewport)

    def _connect(self) -> Any:
        """A fresh context in a browser that runs elsewhere (a Playwright browser server,
        or any Chromium with a DevTools port); closing it leaves that browser running."""
        options = self.options
        if options.connect and options.cdp_url:
            raise UsageError("give a browser server or a CDP endpoint, not both")
        if options.profile is not None:
            raise UsageError("--profile needs a local browser; a remote one keeps its own")
        chromium = self._pw.chromium
        try:
            if options.connect:
                self._browser = chromium.connect(options.connect, timeout=NAV_TIMEOUT_MS)
            else:
                self._browser = chromium.connect_over_cdp(options.cdp_url or "",
                                                          timeout=NAV_TIMEOUT_MS)
        except Exception as exc:
            raise DeviceError(f"could not connect to the browser at {options.remote}: "
                              f"{first_line(exc)}") from None
        viewport = {"width": options.viewport.width, "height": options.viewport.height}
        if options.keep_page and self._browser.contexts:
            return self._browser.contexts[0]
        return self._browser.new_context(viewport=viewport)

    def _kept_page(self, pages: list[Any]) -> Any:
        """The tab a kept session was left on (the last visible one), at the viewport size."""
        visible = [p for p in pages if _visible(p)]
        page = (visible or pages or [self.page])[-1]
        try:
            page.set_viewport_size({"width": self.options.viewport.width,
                                    "height": self.options.viewport.height})
        except Exception as exc:
            raise DeviceError(f"the kept page does not answer: {first_line(exc)}") from None
        return page

    # ---------------------------------------------------------------- observing
    @_playwright_call
    def screenshot(self) -> Screen:
        self._raise_held()
        if self._cached is not None:
            self._pump()
            screen, self._cached = self._cached, None
        else:
            screen = self._capture(self.options.image_format, self.options.jpeg_quality)
        self._raise_held()
        notes = [n for n in (self._notice, self._hold and self._hold.take_notes(),
                             self.files.notice()) if n]
        if notes:
            screen.notice, self._notice = "\n".join(notes), None
        return screen

    def keep_files_in(self, folder: Path) -> None:
        """Where `Download` saves files (the run's folder)."""
        self.files.download_dir = folder

    def _capture(self, image_format: str, quality: int) -> Screen:
        self._follow_tabs()
        kwargs: dict[str, Any] = {"type": image_format, "scale": "css"}
        if image_format == "jpeg":
            kwargs["quality"] = quality
        data = self._call(lambda: capture(self.page, kwargs, self._raise_if_gone),
                          "take a screenshot")
        mime = "image/jpeg" if image_format == "jpeg" else "image/png"
        return Screen(data, mime, self._viewport(), self.context_info(), time.time())

    def _viewport(self) -> ScreenSize:
        size = self.page.viewport_size or {
            "width": self.options.viewport.width, "height": self.options.viewport.height}
        return ScreenSize(int(size["width"]), int(size["height"]))

    @_playwright_call
    def context_info(self) -> ScreenContext:
        title = None
        try:
            title = self.page.title()
        except Exception:  # navigating: the title is not readable for a moment
            title = None
        return ScreenContext(url=self.page.url, title=title or None)

    def context(self) -> ScreenContext:
        return self.context_info()

    @_playwright_call
    def describe(self, x: int, y: int) -> Element | None:
        """What a click at (x, y) would act on, after the pointer has moved there (see
        `describe`); an unidentified element when the browser could not tell."""
        def look() -> Element | None:
            self.page.mouse.move(x, y)
            self.page.evaluate(SETTLE_JS)  # hover styles and handlers have run
            hit = self._describer.hit(self.page, x, y)
            return self._describer.element(hit) if hit else None

        return self._described(look)

    @_playwright_call
    def focused_element(self) -> Element | None:
        """The element with the keyboard focus (where `Type`, Enter and space land),
        through shadow roots and iframes."""
        def look() -> Element | None:
            hit = self._describer.focus(self.page)
            return self._describer.element(hit) if hit else None

        return self._described(look)

    def _described(self, look: Any) -> Element | None:
        try:
            element = look()
        except Exception as exc:
            self._raise_if_gone(exc)
            log.debug("could not describe the target: %s", exc)
            element = Element(extra={"unidentified": True})
        self._raise_held()
        return element

    @_playwright_call
    def sensitive_regions(self) -> list[tuple[int, int, int, int]]:
        """Password and card fields on screen in any frame (CSS pixels), to blur."""
        try:
            return sensitive_boxes(self.page)
        except Exception as exc:
            self._raise_if_gone(exc)
            return []

    def secret_regions(self) -> list[tuple[int, int, int, int]]:
        """The fields stored secrets were typed into (CSS pixels), to paint over."""
        return self._secret_fields.boxes()

    @_playwright_call
    def mark_secret_field(self) -> str | None:
        """Remember the focused field (a secret is about to be typed into it) and return
        the origin of the frame that holds it."""
        focused = self.focused_element()
        try:
            handle = focused_handle(self.page)
        except Exception as exc:
            self._raise_if_gone(exc)
            handle = None
        if handle is not None:
            self._secret_fields.remember(handle)
        return str(focused.extra.get("frame_origin") or "") or None if focused else None

    @_playwright_call
    def surface_text(self) -> str:
        """The page's rendered text, then its source (a check may look for either)."""
        return f"{self.page.evaluate(PAGE_TEXT_JS)}\n{self.page.content()}"

    def open_select(self) -> OpenSelect | None:
        """The native select list the last click opened, while it is open."""
        return self._select

    def close_select(self) -> None:
        """Forget the open select list (an option was chosen from it)."""
        self._select = None

    @_playwright_call
    def settle(self, cap_s: float) -> float:
        """Wait for load and for two matching frames; keep the last frame for the next look."""
        start = time.monotonic()
        last: list[Screen] = []

        def grab() -> Any:
            self._raise_held()
            screen = self._capture(self.options.image_format, self.options.jpeg_quality)
            last.append(screen)
            return screen.image

        try:
            self.page.wait_for_load_state("domcontentloaded", timeout=max(cap_s, 0.1) * 1000)
        except Exception as exc:
            self._raise_if_gone(exc)
        remaining = max(cap_s - (time.monotonic() - start), 0.0)
        wait_until_stable(grab, remaining, interval_s=0.0)  # a capture takes ~50 ms itself
        self._pump()
        self._cached = last[-1] if last else None
        return time.monotonic() - start

    # ------------------------------------------------------------------- acting
    @_playwright_call
    def perform(self, action: Action) -> ActionResult:
        self._raise_held()
        self._cached = None
        self._follow_tabs()
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise ActionFailed(f"{type(action).__name__} is not a browser action")
        try:
            result = self._call(lambda: handler(self, action),
                                f"perform {type(action).__name__}", action_error=True)
        except VenusError:
            self._raise_held()  # a blocked navigation fails the action: say why instead
            raise
        self._raise_held()
        return result

    # --------------------------------------------------------- holding requests
    def hold_requests(self, judge: Judge) -> None:
        """From now on every request of this context (every tab, frame, worker and
        redirect hop) waits for `judge` before it leaves (see `gate`)."""
        assert self._hold is not None
        self._hold.judge = judge
        self._hold.stop, self._hold.stopped = None, False

    def _start_hold(self) -> None:
        """Switch the hold on (everything allowed until `hold_requests`), before the
        first page loads so that every frame's loader takes it."""
        try:
            pages = self.browser_context.pages
            page = pages[0] if pages else self.browser_context.new_page()
            session = self.browser_context.new_cdp_session(page)
            context_id = session.send("Target.getTargetInfo")["targetInfo"]["browserContextId"]
            session.detach()
            browser = self._browser or self.browser_context.browser
            self._hold = RequestHold(browser, context_id, lambda: self.page.url)
            self._tabs = TabTargets(browser, context_id)
            refresh(self.browser_context)
        except Exception as exc:
            self.close()
            raise DeviceError(f"could not hold the browser's requests: {first_line(exc)}"
                              ) from None

    def _pump(self) -> None:
        """One round trip to the browser, so requests it holds reach the judge now (the
        sync API hands over events only during a call), then raise what it raised."""
        try:
            self.page.evaluate("0")
        except Exception as exc:
            self._raise_if_gone(exc)
        self._raise_held()

    def _raise_held(self) -> None:
        """Raise what the judge raised while holding a request (no terminal to ask, an
        abort, a denial): the request was blocked and the run must stop."""
        if self._hold is not None and self._hold.stop is not None:
            stop, self._hold.stop = self._hold.stop, None
            self._hold.stopped = True
            raise stop

    def _click(self, action: Click) -> ActionResult:
        x, y = action.point or (0, 0)
        options = self.page.evaluate(_SELECT_AT_JS, [x, y])
        self.page.mouse.click(x, y)
        return self._remember_select(options, (x, y))

    def _remember_select(self, options: list[str] | None, point: tuple[int, int]) -> ActionResult:
        if not options:
            self._select = None
            return ActionResult()
        self._select = OpenSelect(point, tuple(options))
        listing = "; ".join(f"{i}: {text}" for i, text in enumerate(options))
        return ActionResult(
            f"You opened a select list with these options: {listing}. "
            "Choose one with SelectOption(index=N).",
            {"select_options": options},
        )

    def _double_click(self, action: DoubleClick) -> ActionResult:
        x, y = action.point or (0, 0)
        self.page.mouse.dblclick(x, y)
        return ActionResult()

    def _hover(self, action: Hover) -> ActionResult:
        x, y = action.point or (0, 0)
        self.page.mouse.move(x, y)
        return ActionResult()

    def _long_press(self, action: LongPress) -> ActionResult:
        x, y = action.point or (0, 0)
        self.page.mouse.move(x, y)
        self.page.mouse.down()
        try:
            time.sleep(action.duration if action.duration is not None else LONG_PRESS_DEFAULT_S)
        finally:
            self.page.mouse.up()
        return ActionResult()

    def _drag(self, action: Drag) -> ActionResult:
        sx, sy = action.start or (0, 0)
        ex, ey = action.end or (0, 0)
        self.page.mouse.move(sx, sy)
        self.page.mouse.down()
        self.page.mouse.move(ex, ey, steps=12)
        self.page.mouse.up()
        return ActionResult()

    def _scroll(self, action: Scroll) -> ActionResult:
        x, y = action.point or (0, 0)
        size = self._viewport()
        dy = round(size.height * SCROLL_FRACTION)
        dx = round(size.width * SCROLL_FRACTION)
        delta = {"up": (0, -dy), "down": (0, dy), "left": (-dx, 0), "right": (dx, 0)}
        self.page.mouse.move(x, y)
        self.page.mouse.wheel(*delta[action.direction])
        return ActionResult()

    def _type(self, action: Type) -> ActionResult:
        """Line breaks (\\n, \\r or both) are presses of Enter, as on a keyboard."""
        for index, line in enumerate(re.split(r"\r\n|\r|\n", action.content)):
            if index:
                self.page.keyboard.press("Enter")
            if line:
                self.page.keyboard.type(line)
        return ActionResult()

    def _launch_url(self, action: Launch) -> ActionResult:
        self._goto(check_url(action.url, self.allow_file))
        return ActionResult()

    def _goto(self, url: str, startup: bool = False) -> None:
        try:
            self.page.goto(url, wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
        except Exception as exc:
            self._raise_if_gone(exc)
            message = f"could not open {url}: {first_line(exc)}"
            raise (DeviceError(message) if startup else ActionFailed(message)) from None

    def _get_url(self, action: GetUrl) -> ActionResult:
        return ActionResult(f"The current URL is {self.page.url}", {"url": self.page.url})

    def _take_note(self, action: TakeNote) -> ActionResult:
        return ActionResult(details={"note": action.content})

    def _select_option(self, action: SelectOption) -> ActionResult:
        opened = self._select
        if opened is None or not opened.options:
            raise ActionFailed("no native select list is open; click one first")
        if not 0 <= action.index < len(opened.options):
            raise ActionFailed(
                f"SelectOption index {action.index} is out of range; "
                f"the list has options 0 to {len(opened.options) - 1}"
            )
        x, y = opened.point
        handle = self.page.evaluate_handle(
            "([x, y]) => { const e = document.elementFromPoint(x, y); "
            "return e && e.closest('select'); }", [x, y])
        element = handle.as_element()
        if element is None:
            raise ActionFailed("the select list is no longer on the page")
        element.select_option(index=action.index)
        chosen = opened.options[action.index]
        self._select = None
        self.page.keyboard.press("Escape")
        return ActionResult(details={"selected": chosen})

    def _hotkey(self, action: Hotkey) -> ActionResult:
        combo = "+".join(_key_name(k) for k in action.keys)
        for _ in range(action.repeat or 1):
            self.page.keyboard.press(combo)
        return ActionResult()

    def _press_back(self, action: PressBack) -> ActionResult:
        if self.page.go_back(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS) is None:
            return ActionResult("There is no earlier page in this tab's history.")
        return ActionResult()

    def _press_home(self, action: PressHome) -> ActionResult:
        self.page.evaluate("() => window.scrollTo(0, 0)")
        return ActionResult()

    def _press_enter(self, action: PressEnter) -> ActionResult:
        self.page.keyboard.press("Enter")
        return ActionResult()

    def _wait(self, action: Wait) -> ActionResult:
        try:
            self.page.wait_for_load_state("load", timeout=5000)
        except Exception as exc:
            self._raise_if_gone(exc)
        with interrupts.allowed():  # no Playwright call: Ctrl-C may cut the wait short
            time.sleep(1.0)
        return ActionResult()

    # ----------------------------------------------------------------- plumbing
    def _follow_tabs(self) -> str | None:
        """Switch to a tab the page just opened (or away from one that closed).

        Tabs open asynchronously, often during `settle`; the switch is announced to the
        model through the next screenshot's `notice`.
        """
        try:
            self._await_listed_tabs()
            pages = [p for p in self.browser_context.pages if not p.is_closed()]
        except Exception as exc:
            raise DeviceError(f"the browser is gone: {first_line(exc)}") from None
        if not pages:
            raise DeviceError("the browser has no open tab left")
        new = [p for p in pages if id(p) not in self._known_pages]
        self._known_pages = set(map(id, pages))
        if new:
            self.page = new[-1]
            self._notice = "A new tab opened; you are now working in it."
            try:
                self.page.bring_to_front()
                self.page.wait_for_load_state("load", timeout=NAV_TIMEOUT_MS)
                self.page.set_viewport_size(
                    {"width": self.options.viewport.width, "height": self.options.viewport.height})
            except Exception as exc:
                self._raise_if_gone(exc)
            return self.page.url
        if self.page.is_closed():
            self.page = pages[-1]
        return None

    def _await_listed_tabs(self) -> None:
        """Until Playwright lists every tab the browser holds for this context (see
        `tabs`); bounded, since a tab may close before it is ever listed.

        The sync API hands over events only inside a Playwright call: the browser's
        count is read first, so a tab announced meanwhile is in `pages`, and nothing can
        be announced between reading `pages` and starting to wait for the next one."""
        if self._tabs is None:
            return
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        deadline = time.monotonic() + TAB_ANNOUNCE_S
        while True:
            held = self._tabs.count()
            listed = sum(1 for p in self.browser_context.pages if not p.is_closed())
            remaining = deadline - time.monotonic()
            if listed >= held:
                return
            if remaining <= 0:
                log.debug("the browser holds %d tabs, Playwright lists %d", held, listed)
                return
            try:
                self.browser_context.wait_for_event("page", timeout=remaining * 1000)
            except PlaywrightTimeout:
                return  # the tab closed before Playwright listed it

    def _call(self, fn: Any, what: str, action_error: bool = False) -> Any:
        try:
            return fn()
        except (ActionFailed, DeviceError, UsageError):
            raise
        except Exception as exc:
            self._raise_if_gone(exc)
            if action_error:
                raise ActionFailed(f"could not {what}: {first_line(exc)}") from None
            raise DeviceError(f"could not {what}: {first_line(exc)}") from None

    def _raise_if_gone(self, exc: BaseException) -> None:
        text = str(exc).lower()
        gone = ("has been closed", "browser closed", "target closed", "connection closed",
                "browser has disconnected", "crashed")
        if any(marker in text for marker in gone) or not self._browser_alive():
            raise DeviceError(f"the browser closed or crashed: {first_line(exc)}") from None

    def _browser_alive(self) -> bool:
        if self._browser is not None:
            return bool(self._browser.is_connected())
        try:
            browser = self.browser_context.browser
            return browser is None or browser.is_connected()
        except Exception:
            return False

    @_playwright_call
    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._hold is not None:
            self._hold.stopped = True  # requests still held are refused, never sent
        if self._wedged:  # Playwright waits for an answer it dropped: never ask it again
            log.debug("a forced interrupt abandoned the browser; ending it")
            if self._pw_manager is not None:
                end_playwright_drivers()
            if self._profile is not None:
                self._profile.tidy()
            return
        # a kept session's page and browser outlive the command; only our sessions go
        closers = [self._hold and self._hold.close, self._tabs and self._tabs.close]
        if not self.options.keep_page:
            closers = [self.browser_context.close, *closers,
                       self._browser and self._browser.close]
        if self._pw_manager is not None:  # our own Playwright: stop it, and never wait forever
            closers.append(lambda: self._pw_manager.__exit__(None, None, None))
        with CloseWatchdog() if self._pw_manager is not None else nullcontext():
            for closer in closers:
                try:
                    if closer:
                        closer()
                except Exception as exc:  # already gone; nothing more to release
                    log.debug("closing the browser: %s", exc)
        if self._profile is not None:
            self._profile.tidy()


def _visible(page: Any) -> bool:
    try:
        return bool(page.evaluate("() => document.visibilityState === 'visible'"))
    except Exception:  # a closing or crashed tab is not where the session was left
        return False


def _key_name(key: str) -> str:
    lowered = key.strip().lower()
    if lowered in _KEYS:
        return _KEYS[lowered]
    if len(key) == 1:
        return key
    if lowered.startswith("f") and lowered[1:].isdigit() and 1 <= int(lowered[1:]) <= 24:
        return lowered.upper()
    raise ActionFailed(f"unknown key '{key}'")


_HANDLERS: dict[type, Any] = {
    Click: WebDriver._click,
    DoubleClick: WebDriver._double_click,
    Hover: WebDriver._hover,
    LongPress: WebDriver._long_press,
    Drag: WebDriver._drag,
    Scroll: WebDriver._scroll,
    Type: WebDriver._type,
    Launch: WebDriver._launch_url,
    GetUrl: WebDriver._get_url,
    TakeNote: WebDriver._take_note,
    SelectOption: lambda self, a: (WebDriver._select_option(self, a) if a.index is not None
                                   else select_by_name(self, a)),
    Upload: lambda self, a: self.files.upload(a),
    DownloadAction: lambda self, a: self.files.download(a),
    Hotkey: WebDriver._hotkey,
    PressBack: WebDriver._press_back,
    PressHome: WebDriver._press_home,
    PressEnter: WebDriver._press_enter,
    Wait: WebDriver._wait,
}
