"""Every browser action against real Chromium, checked in the page itself."""

from __future__ import annotations

import io
import os
import signal
import time

import pytest
from PIL import Image

from tests.support.processes import browsers_below, wait_gone
from venusctl.core.actions import (
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
    Type,
    Wait,
)
from venusctl.core.errors import ActionFailed, DeviceError
from venusctl.core.grid import ScreenSize

EVENTS_JS = """() => { window.__ev = [];
  for (const t of ['mousedown','mouseup','click','dblclick','mouseover','mousemove'])
    document.addEventListener(t, e => window.__ev.push([t, e.clientX, e.clientY]), true); }"""


def events(web) -> list[list]:
    return web.page.evaluate("() => window.__ev")


def value(web, element_id: str) -> str:
    return web.page.evaluate(f"() => document.getElementById('{element_id}').value")


def test_screenshot_is_the_viewport_in_css_pixels(web, shop):
    """By default the authors' browser interface: a 1024x768 viewport, a lossless PNG."""
    screen = web.screenshot()
    assert screen.size == ScreenSize(1024, 768) and screen.mime == "image/png"
    assert Image.open(io.BytesIO(screen.data)).size == (1024, 768)
    assert screen.context.url == shop.url + "/" and screen.context.title == "Shop"


def test_jpeg_screenshots_when_asked(shop, browser_path):
    from venusctl.drivers.web.driver import WebDriver, WebOptions

    driver = WebDriver(WebOptions(url=shop.url + "/", browser_path=browser_path,
                                  image_format="jpeg", viewport=ScreenSize(800, 600)))
    try:
        screen = driver.screenshot()
        assert screen.mime == "image/jpeg" and screen.data.startswith(b"\xff\xd8")
        assert Image.open(io.BytesIO(screen.data)).size == (800, 600)
    finally:
        driver.close()


def test_click_focuses_and_type_enters_any_unicode(web):
    web.perform(Click((300, 120)))
    web.perform(Type("Zoë 世界 ✓"))
    assert value(web, "name") == "Zoë 世界 ✓"


def test_hotkey_select_all_then_replace(web):
    web.perform(Click((300, 120)))
    web.perform(Type("abc"))
    web.perform(Hotkey(("ctrl", "a")))
    web.perform(Type("z"))
    assert value(web, "name") == "z"


def test_native_select_lists_options_then_select_option_picks_one(web):
    result = web.perform(Click((200, 220)))
    assert result.feedback is not None
    assert "0: Red; 1: Green; 2: Blue" in result.feedback
    assert result.details["select_options"] == ["Red", "Green", "Blue"]
    web.perform(SelectOption(2))
    assert value(web, "colour") == "Blue"
    with pytest.raises(ActionFailed, match="no native select list is open"):
        web.perform(SelectOption(0))


def test_select_option_out_of_range_is_explained(web):
    web.perform(Click((200, 220)))
    with pytest.raises(ActionFailed, match="options 0 to 2"):
        web.perform(SelectOption(7))


def test_enter_submits_the_form_to_the_server(web, shop):
    web.perform(Click((300, 120)))
    web.perform(Type("Ada"))
    web.perform(PressEnter())
    web.settle(3.0)
    assert shop.state.orders == [{"name": "Ada", "colour": "Red"}]
    assert web.screenshot().context.title == "Order received"


def test_pointer_actions_reach_the_page(web):
    web.page.evaluate(EVENTS_JS)
    web.perform(Hover((700, 500)))
    web.perform(Drag(end=(900, 600), start=(720, 520)))
    web.perform(LongPress((730, 530), duration=0.3))
    web.perform(DoubleClick((710, 510)))  # last: dragging a selection would start a DnD
    kinds = [e[0] for e in events(web)]
    assert "mouseover" in kinds and "dblclick" in kinds
    downs = [e for e in events(web) if e[0] == "mousedown"]
    ups = [e for e in events(web) if e[0] == "mouseup"]
    assert [720, 520] in [d[1:] for d in downs] and [900, 600] in [u[1:] for u in ups]
    assert [730, 530] in [d[1:] for d in downs]


def test_long_press_holds_for_its_duration(web):
    started = time.monotonic()
    web.perform(LongPress((700, 700), duration=0.5))
    assert time.monotonic() - started >= 0.5


def test_scroll_moves_by_a_fraction_of_the_viewport_and_home_goes_back(web, shop):
    web.perform(Launch(shop.url + "/long"))
    web.perform(Scroll((640, 400), "down"))
    web.settle(2.0)
    scrolled = web.page.evaluate("() => window.scrollY")
    assert scrolled == pytest.approx(768 * 2 // 3, abs=2)  # two thirds, as the authors
    web.perform(PressHome())
    assert web.page.evaluate("() => window.scrollY") == 0


def test_launch_only_opens_web_addresses(web, shop):
    web.perform(Launch(shop.url + "/about"))
    assert web.page.title() == "About"
    for bad in ("javascript:alert(1)", "file:///etc/passwd", "chrome://settings"):
        with pytest.raises(ActionFailed, match="only http and https"):
            web.perform(Launch(bad))
    with pytest.raises(ActionFailed, match="could not open"):
        web.perform(Launch("http://127.0.0.1:9/"))


def test_get_url_and_press_back(web, shop):
    web.perform(Click((140, 410)))  # the "About us" link
    web.settle(3.0)
    assert web.perform(GetUrl()).feedback == f"The current URL is {shop.url}/about"
    web.perform(PressBack())
    web.settle(3.0)
    assert web.page.url == shop.url + "/"
    assert "no earlier page" in (web.perform(PressBack()).feedback or "")


def test_new_tabs_are_followed(web, shop):
    web.perform(Click((160, 470)))  # "Offers (new tab)"
    web.settle(3.0)
    assert web.page.url == shop.url + "/offers"
    screen = web.screenshot()
    assert screen.context.title == "Offers"
    assert screen.notice == "A new tab opened; you are now working in it."
    assert web.screenshot().notice is None
    web.perform(Click((350, 240)))  # Claim offer in the new tab
    web.settle(3.0)
    assert shop.state.claims == 1


def test_the_very_next_screenshot_shows_a_tab_the_click_opened(web, shop):
    """No settling between the click and the look: Chromium has made the tab when the
    click returns, Playwright lists it a few round trips later, and the screenshot must
    not show the old tab in that gap (drivers/web/tabs.py)."""
    web.perform(Click((160, 470)))  # "Offers (new tab)"
    screen = web.screenshot()
    assert screen.notice == "A new tab opened; you are now working in it."
    assert web.page.url == shop.url + "/offers"


def test_describe_reports_the_element_under_the_point(web, shop):
    button = web.describe(200, 325)
    assert button is not None
    assert (button.tag, button.role, button.name) == ("button", "button", "Submit order")
    assert button.form_action == shop.url + "/order"
    assert button.bounds == (106, 306, 200, 50)  # left/top plus the 6px CSS margin
    field = web.describe(300, 120)
    assert (field.role, field.input_type, field.name) == ("textbox", "text", "Your name")
    link = web.describe(140, 410)
    assert link.role == "link" and link.href == shop.url + "/about"


def test_wait_and_settle_return(web):
    web.perform(Wait())
    assert 0.0 <= web.settle(1.0) <= 1.5


def test_unknown_key_is_an_action_failure(web):
    with pytest.raises(ActionFailed, match="unknown key 'hyper'"):
        web.perform(Hotkey(("hyper",)))


def test_a_dead_browser_is_a_device_error(web):
    """Only this test process's own Chromium is killed: another worker's runs beside it."""
    browser = web.browser_context.browser
    pid = browser.process.pid if hasattr(browser, "process") else None
    killed = {pid} if pid is not None else browsers_below(os.getpid())
    assert killed, "no chromium process found"
    for candidate in killed:
        os.kill(candidate, signal.SIGKILL)
    assert not wait_gone(killed, 15), "the browser is still running"
    with pytest.raises(DeviceError, match="browser"):
        web.screenshot()


def test_empty_space_does_not_speak_for_the_whole_page(web):
    """A click in the page margin is not a click on 'Submit order' (a guard false alarm)."""
    element = web.describe(9, 2)
    assert element is not None
    assert "Submit order" not in (element.text or "") and not element.name
    heading = web.describe(40, 30)  # the <h1>, a leaf: its own words count
    assert heading is not None and heading.text == "Order"
