"""Context decides asks (issue 37): a link that only navigates is judged by its address
as well as its words, a link into a help centre is reading, and a filter, a cookie
banner or a search box is not consequential for the word it holds
(`facts.follows_link`, `PolicyGuard._by_destination`, and the `help_address`,
`consent`, `filter_words` and `search_field` lists of policies/default.yaml)."""

from __future__ import annotations

import pytest

from tests.unit.test_safety_policy import check
from venusctl.core.actions import Surface, parse_action
from venusctl.drivers.base import Element, ScreenContext
from venusctl.safety.facts import destination_words, follows_link
from venusctl.safety.guard import Decision
from venusctl.safety.policy import load_policy
from venusctl.safety.pressing import Press

DEFAULT = load_policy("default")
SHOP = ScreenContext(url="https://shop.example/search?q=shoes", title="Shoes - Shop")
CLICK = "Click(point=(1, 1))"
NEUTRAL = "Continue with the task."


def link(text: str, href: str, **extra: object) -> Element:
    return Element(text=text, role="link", tag="a", href=href, extra=dict(extra))


def verdict(element: Element, context: ScreenContext = SHOP, action: str = CLICK):
    return check(DEFAULT, action, element, context, thought=NEUTRAL)


def press(element: Element) -> Press:
    return Press(parse_action(CLICK, Surface.BROWSER), element, "click", activates=True)


@pytest.mark.parametrize(("href", "extra", "follows"), [
    ("https://shop.example/feedback", {}, True),
    ("https://other.example/", {}, True),
    ("https://shop.example/search?q=shoes#results", {}, False),  # the same page
    ("javascript:void(0)", {}, False),
    ("mailto:help@shop.example", {}, False),
    ("https://shop.example/posts/3", {"scripted": True}, False),  # data-method, onclick
])
def test_only_a_plain_web_link_to_another_page_only_navigates(href, extra, follows):
    assert follows_link(press(link("Delete", href, **extra)), link("Delete", href, **extra),
                        SHOP) is follows
    button = Element(text="Delete", role="button", tag="button", href=None)
    assert not follows_link(press(button), button, SHOP)


def test_an_address_says_what_loading_it_does_in_words():
    assert destination_words("https://x.example/account/delete?id=3") == "/account/delete id=3"
    assert destination_words("https://x.example/%D1%83%D0%B4%D0%B0%D0%BB%D0%B8%D1%82%D1%8C"
                             ) == "/удалить"


@pytest.mark.parametrize(("text", "href"), [
    ("Delete your account: how it works", "https://shop.example/help/delete-account"),
    ("How do I delete my account?", "https://help.example/hc/articles/delete-account"),
    ("Cancel subscription", "https://support.example/kb/cancel-subscription"),
    ("Pay by card", "https://docs.example/guides/payments"),
])
def test_a_link_into_a_help_centre_is_reading_whatever_it_says(text, href):
    assert verdict(link(text, href)).decision is Decision.ALLOW


@pytest.mark.parametrize(("text", "href", "category"), [
    ("Delete account", "https://shop.example/sink/act?t=9f2c", "delete"),  # a GET that acts
    ("Send feedback", "https://shop.example/feedback", "send"),
    ("Change password", "https://accounts.example/security/password", "account"),
])
def test_a_link_elsewhere_is_still_judged_by_its_words(text, href, category):
    """A GET can act and the request gate lets GETs through: only a help address makes
    a link's words reading."""
    found = verdict(link(text, href))
    assert found.decision is Decision.CONFIRM and found.category == category, found


@pytest.mark.parametrize(("text", "href", "category"), [
    ("Continue", "https://shop.example/account/delete?confirm=1", "delete"),
    ("Go", "https://shop.example/checkout/pay", "payment"),
    ("click here", "https://news.example/unsubscribe?token=9f2c", "account"),
    ("Подробнее", "https://shop.example/%D1%83%D0%B4%D0%B0%D0%BB%D0%B8%D1%82%D1%8C", "delete"),
])
def test_a_link_whose_address_names_an_act_is_asked_about_whatever_it_says(text, href, category):
    found = verdict(link(text, href))
    assert found.decision is Decision.CONFIRM and found.category == category, found


def test_a_link_a_script_acts_on_is_judged_by_its_words():
    found = verdict(link("Delete", "https://blog.example/posts/3", scripted=True))
    assert found.decision is Decision.CONFIRM and found.category == "delete"


@pytest.mark.parametrize("element", [
    Element(text="Clear all filters", role="button", tag="button"),
    Element(text="Red ✕", name="Remove filter Red", role="button", tag="button"),
    Element(text="Delete filter", role="button", tag="button"),
])
def test_removing_a_filter_deletes_nothing(element):
    assert verdict(element).decision is Decision.ALLOW


def test_a_model_that_says_it_removes_a_filter_is_not_deleting():
    chip = Element(text="Red ✕", name="Remove filter Red", role="button", tag="button")
    assert check(DEFAULT, CLICK, chip, SHOP, thought="Remove the colour filter.").decision \
        is Decision.ALLOW
    row = Element(text="report.pdf", role="row")  # the model's word still counts elsewhere
    found = check(DEFAULT, CLICK, row, SHOP, thought="Remove the report for good.")
    assert (found.decision, found.category) == (Decision.CONFIRM, "delete")


def test_a_cookie_banner_on_a_checkout_page_is_not_a_payment():
    checkout = ScreenContext(url="https://shop.example/checkout", title="Checkout")
    banner = Element(text="Accept all", role="button", tag="button",
                     extra={"dialog": "We use cookies to improve your experience"})
    assert verdict(banner, checkout).decision is Decision.ALLOW
    ok = Element(text="OK", role="button", tag="button")  # outside the banner: still asked
    assert verdict(ok, checkout).decision is Decision.CONFIRM


def test_enter_in_a_search_box_of_a_chat_app_searches():
    chat = ScreenContext(url="https://chat.example/messages", title="Messages")
    search = Element(name="Search messages", role="searchbox", tag="input", input_type="search")
    assert verdict(search, chat, "PressEnter()").decision is Decision.ALLOW
    box = Element(name="Message #general", role="textbox", tag="div")
    assert verdict(box, chat, "PressEnter()").decision is Decision.CONFIRM
