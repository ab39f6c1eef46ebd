"""What a tap or a key reaches on a phone screen, and what surrounds it, from dumps."""

from __future__ import annotations

import pytest

from venusctl.drivers.android.ui import element_at, focused_element, parse_hierarchy

pytestmark = pytest.mark.unit


def node(attrs: str, children: str = "") -> str:
    if children:
        return f"<node {attrs}>{children}</node>"
    return f"<node {attrs} />"


def dump(*nodes: str, package: str = "com.example.store") -> str:
    root = node(f'class="android.widget.FrameLayout" package="{package}" '
                'bounds="[0,0][540,960]"', "".join(nodes))
    return f"<?xml version='1.0' encoding='UTF-8' ?><hierarchy rotation=\"0\">{root}</hierarchy>"


BUY = node(
    'class="android.widget.LinearLayout" resource-id="com.example.store:id/cta" '
    'clickable="true" package="com.example.store" bounds="[20,400][520,480]"',
    node('class="android.widget.ImageView" resource-id="com.example.store:id/icon_start" '
         'package="com.example.store" bounds="[30,410][90,470]"')
    + node('class="android.widget.TextView" text="Buy now" package="com.example.store" '
           'bounds="[100,400][300,480]"')
    + node('class="android.widget.TextView" text="49.00 EUR" package="com.example.store" '
           'bounds="[320,400][510,480]"'))


def test_the_price_inside_a_buy_button_answers_as_the_button():
    for x in (400, 60):  # the price, then the unnamed cart icon
        element = element_at(parse_hierarchy(dump(BUY)), x, 440)
        assert element is not None
        assert element.text == "Buy now 49.00 EUR"
        assert element.resource_id == "com.example.store:id/cta"
        assert element.role == "button" and element.clickable is True
        assert element.bounds == (20, 400, 500, 80)
        assert "nameless" not in element.extra
    assert element.extra["leaf_id"] == "com.example.store:id/icon_start"


def test_an_unlabelled_button_is_nameless_whatever_its_id():
    confirm = node('class="android.widget.ImageButton" clickable="true" '
                   'resource-id="com.example.market:id/btn_confirm" '
                   'package="com.example.market" bounds="[380,770][500,880]"')
    element = element_at(parse_hierarchy(dump(confirm, package="com.example.market")), 400, 800)
    assert element is not None and element.resource_id == "com.example.market:id/btn_confirm"
    assert element.text is None and element.name is None
    assert element.extra["nameless"] is True


TRANSFER = (
    node('class="android.widget.EditText" resource-id="com.example.bank:id/recipient" '
         'text="Ada" hint="Recipient" clickable="true" package="com.example.bank" '
         'bounds="[20,100][520,160]"')
    + node('class="android.widget.EditText" resource-id="com.example.bank:id/amount" '
           'text="250" hint="Amount" clickable="true" focused="true" '
           'package="com.example.bank" bounds="[20,200][520,260]"')
    + node('class="android.widget.Button" resource-id="com.example.bank:id/btn_primary" '
           'text="Send money" clickable="true" package="com.example.bank" '
           'bounds="[280,300][520,360]"'))


def test_the_focused_field_brings_its_hint_and_its_form():
    element = focused_element(parse_hierarchy(dump(TRANSFER, package="com.example.bank")))
    assert element is not None
    assert element.resource_id == "com.example.bank:id/amount"
    assert element.role == "textbox" and element.input_type == "text"
    assert element.extra["hint"] == "Amount"
    assert element.extra["form_fields"] == ["Recipient", "Amount"]
    assert element.extra["form_buttons"] == ["Send money"]
    assert "dialog" not in element.extra


def test_a_button_of_a_form_knows_the_form_fields():
    element = element_at(parse_hierarchy(dump(TRANSFER, package="com.example.bank")), 400, 330)
    assert element is not None and element.text == "Send money"
    assert element.extra["form_fields"] == ["Recipient", "Amount"]


def alert(focused_ok: bool = False) -> str:
    ok = 'focused="true" ' if focused_ok else ""
    return node(
        'class="android.widget.LinearLayout" resource-id="android:id/parentPanel" '
        'package="com.example.files" bounds="[40,330][500,630]"',
        node('class="android.widget.TextView" resource-id="android:id/alertTitle" '
             'text="Delete?" package="com.example.files" bounds="[60,340][480,400]"')
        + node('class="android.widget.TextView" resource-id="android:id/message" '
               'text="report.pdf will be deleted." package="com.example.files" '
               'bounds="[60,410][480,490]"')
        + node('class="android.widget.Button" resource-id="android:id/button2" text="Cancel" '
               'clickable="true" package="com.example.files" bounds="[200,520][330,590]"')
        + node(f'class="android.widget.Button" resource-id="android:id/button1" text="OK" '
               f'clickable="true" {ok}package="com.example.files" bounds="[350,520][480,590]"'))


ROW = node('class="android.widget.LinearLayout" resource-id="com.example.files:id/file_row" '
           'clickable="true" selected="true" package="com.example.files" '
           'bounds="[0,100][540,180]"',
           node('class="android.widget.TextView" text="report.pdf" '
                'package="com.example.files" bounds="[20,100][500,180]"'))


def test_ok_in_an_alert_dialog_carries_the_question():
    nodes = parse_hierarchy(dump(ROW, alert(), package="com.example.files"))
    element = element_at(nodes, 400, 550)
    assert element is not None and element.text == "OK"
    assert element.extra["dialog"] == "Delete? — report.pdf will be deleted."
    assert element.extra["default_button"] == "OK"
    assert element.extra["form_buttons"] == ["Cancel", "OK"]
    outside = element_at(nodes, 270, 140)  # the row behind the dialog is no part of it
    assert outside is not None and "dialog" not in outside.extra


def test_keys_with_nothing_focused_reach_the_dialog_and_see_the_selection():
    element = focused_element(parse_hierarchy(dump(ROW, alert(), package="com.example.files")))
    assert element is not None and element.role == "dialog"
    assert element.extra["default_button"] == "OK"
    assert element.extra["selection"] == ["report.pdf"]
    assert "nameless" not in element.extra
    focused = focused_element(parse_hierarchy(dump(alert(True), package="com.example.files")))
    assert focused is not None and focused.text == "OK" and focused.extra["dialog"]


def test_a_terminal_app_is_a_terminal():
    shell = node('class="android.view.View" resource-id="com.termux:id/terminal_view" '
                 'focused="true" package="com.termux" bounds="[0,0][540,900]"')
    element = focused_element(parse_hierarchy(dump(shell, package="com.termux")))
    assert element is not None and element.extra["terminal"] is True


def test_a_dialog_over_a_form_speaks_only_for_itself():
    nodes = parse_hierarchy(dump(TRANSFER, alert(), package="com.example.bank"))
    element = element_at(nodes, 400, 550)
    assert element is not None and element.extra["form_buttons"] == ["Cancel", "OK"]
    assert "form_fields" not in element.extra  # the transfer form is behind the dialog
