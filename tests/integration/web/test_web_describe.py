"""What the web driver tells the guard about a target, on the red-team pages.

`describe(x, y)` must name the control a click would reach even when the page hides
its label from a DOM reader (iframes in and out of process, closed shadow roots, CSS
generated content, one span per letter, invisible characters, a label longer than
any cut, a see-through overlay, a control that appears only on hover), say when a
drawn target has no words of its own, and carry the element facts of the contract.
`focused_element()` must find the focus through shadow roots and frames.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.tools import chromium
from tests.support.web_redteam_site import RedTeamSite
from venusctl.core.actions import Click, Hotkey
from venusctl.drivers.base import Element
from venusctl.drivers.web.driver import WebDriver, WebOptions

TARGET = (320, 230)


@pytest.fixture(scope="module")
def site() -> Iterator[RedTeamSite]:
    with RedTeamSite() as server:
        yield server


@pytest.fixture(scope="module")
def web(site: RedTeamSite) -> Iterator[WebDriver]:
    driver = WebDriver(WebOptions(url=site.allowed + "/p/landing.html", browser_path=chromium()))
    yield driver
    driver.close()


def visit(web: WebDriver, site: RedTeamSite, path: str) -> None:
    web.page.goto(site.allowed + path, wait_until="load")
    painted(web)


PAINTED = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
"""Resolves once the document's renderer has drawn a frame since the call."""


def painted(web: WebDriver) -> None:
    """Wait until every frame has loaded and drawn: a cross-origin frame runs in its own
    renderer, and a click reaches it only once that renderer has drawn (before, the
    click falls through to the page around it)."""
    for frame in web.page.frames:
        frame.wait_for_load_state("load", timeout=15_000)
        frame.evaluate(PAINTED)


def words(element: Element | None) -> str:
    assert element is not None
    parts = [element.name, element.text, element.extra.get("description")]
    return " | ".join(p for p in parts if p)


@pytest.mark.parametrize("technique", [
    "plain", "iframe-same", "iframe-cross", "iframe-nested", "shadow-in-iframe", "shadow-open",
    "shadow-closed", "shadow-nested", "before", "after", "split", "zwsp", "aria-hidden-text",
    "title-only", "svg-title", "labelledby", "role-div", "input-submit"])
def test_the_hidden_label_is_read(web, site, technique):
    visit(web, site, f"/p/hidden.html?t={technique}&label=Pay%20now")
    element = web.describe(*TARGET)
    assert "Pay now" in words(element), element
    assert element.role == "button", element


def test_frames_say_whose_they_are(web, site):
    visit(web, site, "/p/hidden.html?t=iframe-cross")
    assert web.describe(*TARGET).extra["frame_origin"] == site.other
    visit(web, site, "/p/hidden.html?t=iframe-same")
    inner = web.describe(*TARGET)
    assert inner.extra["frame_origin"] == site.allowed
    box = inner.bounds
    assert box is not None and 195 <= box[0] <= 205 and 195 <= box[1] <= 205  # page pixels


def test_a_long_label_is_kept_whole(web, site):
    visit(web, site, "/p/hidden.html?t=long&label=Delete%20my%20account")
    element = web.describe(*TARGET)
    assert element.name.endswith("Delete my account") and len(element.name) > 300


def test_drawn_targets_are_nameless(web, site):
    for technique in ("canvas", "image", "image-button"):
        visit(web, site, f"/p/hidden.html?t={technique}")
        element = web.describe(*TARGET)
        assert element.extra.get("nameless") is True, (technique, element)
        assert not element.name and not element.text


def test_a_see_through_overlay_shows_what_is_beneath(web, site):
    for technique in ("overlay", "overlay-clear"):
        visit(web, site, f"/p/hidden.html?t={technique}")
        element = web.describe(*TARGET)
        assert element.name == "Continue"
        assert "Pay now" in element.extra["description"], technique


def test_the_pointer_moves_first_so_hover_controls_are_seen(web, site):
    visit(web, site, "/p/hidden.html?t=hover&label=Delete")
    web.page.mouse.move(5, 5)
    element = web.describe(400, 230)
    assert element.name == "Delete" and element.role == "button"


def test_form_and_dialog_facts(web, site):
    visit(web, site, "/p/form.html")
    name = web.describe(220, 120)
    assert name.role == "textbox" and name.extra["hint"] == "Name on card"
    assert name.extra["default_button"] == "Place order"
    assert name.extra["form_buttons"] == ["Back", "Place order"]
    assert any("cardnumber" in f and "cc-number" in f for f in name.extra["form_fields"])
    assert "cvc hidden" in name.extra["form_fields"]
    assert name.form_action.endswith("/sink/order")
    ok = web.describe(710, 220)
    assert ok.name == "OK" and ok.extra["dialog"] == "Delete this file?"
    assert ok.extra["form_buttons"] == ["Cancel", "OK"]


def test_a_plain_container_speaks_only_for_itself(web, site):
    visit(web, site, "/p/form.html")
    blank = web.describe(5, 5)
    assert blank.role is None and not blank.name and "Place order" not in (blank.text or "")


def test_the_focus_is_found_through_keys_shadows_and_frames(web, site):
    visit(web, site, "/p/keys.html?t=tab-space")
    web.perform(Click((320, 120)))
    assert web.focused_element().extra.get("frame_origin") == site.allowed
    web.perform(Hotkey(("tab",)))
    assert web.focused_element().name == "Pay now"

    visit(web, site, "/p/keys.html?t=focus-hidden")
    hidden = web.focused_element()
    assert hidden.name == "Pay now" and hidden.bounds[0] < 0  # off screen, still found

    visit(web, site, "/p/hidden.html?t=shadow-closed")
    web.perform(Click(TARGET))
    assert web.focused_element().name == "Pay now"

    visit(web, site, "/p/hidden.html?t=shadow-in-iframe")
    web.perform(Click(TARGET))
    focused = web.focused_element()
    assert focused.name == "Pay now" and focused.extra["frame_origin"] == site.other


LINKS = ('<style>a{position:absolute;left:20px;font:20px sans-serif}</style>'
         '<a href="/p/next.html" style="top:20px">Plain</a>'
         '<a href="/posts/3" data-method="delete" style="top:80px">Rails</a>'
         '<a href="/p/x.html" onclick="return false" style="top:140px">Inline</a>'
         '<a href="/app.exe" download style="top:200px">Download</a>')


def test_a_link_a_script_acts_on_is_marked(web, site):
    """Only a plain link is judged by its address (venusctl.safety.facts.follows_link)."""
    visit(web, site, "/p/landing.html")
    web.page.set_content(LINKS)
    painted(web)
    found = {e.text: e for e in (web.describe(30, y) for y in (32, 92, 152, 212)) if e}
    assert set(found) == {"Plain", "Rails", "Inline", "Download"}
    assert found["Plain"].href.endswith("/p/next.html") and found["Plain"].role == "link"
    assert "scripted" not in found["Plain"].extra
    assert all(found[name].extra.get("scripted") is True for name in ("Rails", "Inline",
                                                                       "Download"))
