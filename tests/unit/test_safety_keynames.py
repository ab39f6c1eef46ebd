"""Key names read one way on both sides of the guard (venusctl/safety/keynames.py)."""

from __future__ import annotations

import pytest

from tests.unit.test_safety_policy import check
from venusctl.drivers.base import Element, ScreenContext
from venusctl.safety.facts import combo_of
from venusctl.safety.guard import Decision
from venusctl.safety.keynames import combo, key_name
from venusctl.safety.policy import load_policy

pytestmark = pytest.mark.unit
DEFAULT = load_policy("default")
CHAT = ScreenContext(url="https://chat.example/c/42", title="Ada - Chat")


@pytest.mark.parametrize(("spellings", "name"), [
    (("ctrl", "Control", "CTRL", "ctrlLeft", "Control_R".replace("_R", "Right")), "ctrl"),
    (("enter", "Return", "KP_Enter", "NumpadEnter", "\n"), "enter"),
    (("delete", "Del", "Forward Delete", "kp_delete"), "delete"),
    (("cmd", "Command", "Super", "Win", "Meta", "Windows"), "meta"),
    (("alt", "Option", "AltGr", "alt_left"), "alt"),
    (("pagedown", "Page_Down", "page down", "PgDn", "Next"), "pagedown"),
    (("space", "Spacebar", " "), "space"),
    (("A", "a"), "a"),
    (("-",), "-"),
])
def test_every_spelling_of_a_key_is_one_name(spellings, name):
    assert {key_name(s) for s in spellings} == {name}


def test_a_policys_combination_matches_however_either_side_spells_it():
    assert combo_of("ctrl+alt+del") == combo_of("Control+Option+Delete") == \
        combo(("CTRL", "alt", "Forward Delete"))
    assert combo_of("cmd+return") == combo(("Super", "Enter"))


@pytest.mark.parametrize("keys", [("control", "Return"), ("Ctrl", "KP_Enter"),
                                  ("Command", "Enter"), ("Meta", "Return")])
def test_ctrl_enter_sends_whatever_the_keys_are_called(keys):
    box = Element(role="textbox", name="Message", tag="textarea")
    found = check(DEFAULT, f"Hotkey(keys={list(keys)!r})", box, CHAT,
                  thought="Continue with the task.")
    assert (found.decision, found.category) == (Decision.CONFIRM, "send"), found


def test_control_alt_delete_is_a_system_key_whatever_it_is_called():
    found = check(DEFAULT, "Hotkey(keys=['Control', 'Alt', 'Del'])", None,
                  ScreenContext(app="nautilus", title="Home"), thought="Continue.")
    assert (found.decision, found.category) == (Decision.CONFIRM, "system"), found
