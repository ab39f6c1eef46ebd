"""Desktop element facts without a display: terminals by class and process, and what a
window's accessible tree says about keys (dialog, default button, mnemonics, selection)."""

from __future__ import annotations

import pytest

from venusctl.drivers.desktop.atspi_window import (
    STATE_IS_DEFAULT,
    STATE_MODAL,
    STATE_SELECTED,
    STATE_SHOWING,
    Node,
    dialog_text,
    parse_mnemonic,
    selected_items,
    shown_text,
    window_facts,
)
from venusctl.drivers.desktop.terminals import is_terminal

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("classes", "process"), [
    (("xterm", "XTerm"), "xterm"),  # titled "Build log" or started with -e: same class
    (("gnome-terminal-server", "Gnome-terminal"), "gnome-terminal-"),  # comm is cut at 15
    (("org.wezfurlong.wezterm", "org.wezfurlong.wezterm"), "wezterm-gui"),
    (("kitty", "kitty"), "kitty"),
    (("Alacritty", "Alacritty"), "alacritty"),
    (("konsole", "konsole"), "konsole"),
    ((), "WindowsTerminal.exe"),
])
def test_terminals_are_known_by_class_or_process(classes, process):
    assert is_terminal(classes, process)
    assert is_terminal(classes, None) or is_terminal((), process)


@pytest.mark.parametrize(("classes", "process"), [
    (("Navigator", "firefox"), "firefox"),
    (("gedit", "Gedit"), "gedit"),
    (("Venustest", "Venustest"), "python3"),
    (("org.gnome.Nautilus", "org.gnome.Nautilus"), "nautilus"),
])
def test_other_windows_are_not_terminals_whatever_their_title(classes, process):
    assert not is_terminal(classes, process)


def test_an_accessible_terminal_role_is_a_terminal():
    assert is_terminal((), None, role="terminal")


def test_mnemonics_from_key_bindings():
    assert parse_mnemonic("<Alt>s") == "s"
    assert parse_mnemonic("<Alt>F;<Alt>f:n;<Control>n") == "f"
    assert parse_mnemonic("") is None
    assert parse_mnemonic(";;<Control>q") is None


SHOW = frozenset({STATE_SHOWING})


def tree() -> list[Node]:
    """A GTK message dialog "Delete?" with Cancel and OK (the default)."""
    return [
        Node(("a", "/0"), "alert", "Question", frozenset({STATE_SHOWING, STATE_MODAL}), None),
        Node(("a", "/1"), "filler", "", SHOW, 0),
        Node(("a", "/2"), "label", "Delete?", SHOW, 1),
        Node(("a", "/3"), "label", "3 files will be deleted.", SHOW, 1),
        Node(("a", "/4"), "push button", "Cancel", SHOW, 1),
        Node(("a", "/5"), "push button", "OK", SHOW | {STATE_IS_DEFAULT}, 1),
    ]


class Bus:
    def __init__(self, nodes: list[Node], bindings: dict[str, str]) -> None:
        self.nodes, self.bindings = nodes, bindings

    def walk(self, frame):
        return self.nodes

    def key_binding(self, ref):
        return self.bindings.get(ref[1], "")

    def text(self, ref):
        contents = {"/2": "Ada: see you at 7", "/3": "hunter2", "/4": "Ada: see you at 7\n"}
        if ref[1] not in contents:
            raise RuntimeError("no Text interface")
        return contents[ref[1]]


def test_a_dialog_says_its_question_buttons_and_default():
    facts = window_facts(Bus(tree(), {}), ("a", "/0"), "alert", keys=False)
    assert facts == {"dialog": "Question — Delete? — 3 files will be deleted.",
                     "form_buttons": ["Cancel", "OK"], "default_button": "OK"}
    assert dialog_text(tree()[:1]) == "Question"


def test_keys_add_mnemonics_and_the_selection():
    nodes = [
        Node(("a", "/0"), "frame", "Files", SHOW, None),
        Node(("a", "/1"), "push button", "Send", SHOW, 0),
        Node(("a", "/2"), "push button", "Pay €49", SHOW, 0),
        Node(("a", "/3"), "list box", "", SHOW, 0),
        Node(("a", "/4"), "list item", "", SHOW | {STATE_SELECTED}, 3),
        Node(("a", "/5"), "list item", "", SHOW, 3),
        Node(("a", "/6"), "label", "report.txt", SHOW, 4),
        Node(("a", "/7"), "label", "photo.png", SHOW, 5),
    ]
    bus = Bus(nodes, {"/1": "<Alt>s", "/2": "<Alt>p"})
    facts = window_facts(bus, ("a", "/0"), "frame", keys=True)
    assert "dialog" not in facts  # a plain window
    assert facts["mnemonics"] == {"s": "Send", "p": "Pay €49"}
    assert facts["selection"] == ["report.txt"]
    assert selected_items(nodes) == ["report.txt"]
    assert "mnemonics" not in window_facts(bus, ("a", "/0"), "frame", keys=False)


def test_shown_text_is_every_name_and_text_content_but_a_password():
    nodes = [
        Node(("a", "/0"), "frame", "Chat", SHOW, None),
        Node(("a", "/1"), "label", "Ada", SHOW, 0),
        Node(("a", "/2"), "text", "Message", SHOW, 0),
        Node(("a", "/3"), "password text", "PIN", SHOW, 0),
        Node(("a", "/4"), "paragraph", "", SHOW, 0),
        Node(("a", "/5"), "text", "Search", SHOW, 0),  # no Text interface: its name only
    ]
    text = shown_text(Bus(nodes, {}), nodes, deadline=float("inf"))
    assert text.splitlines() == ["Chat", "Ada", "Message", "Ada: see you at 7", "PIN",
                                 "Search"]  # a line shown twice is said once
    assert "hunter2" not in text


def test_shown_text_past_its_deadline_keeps_the_names_without_contents():
    nodes = [Node(("a", "/0"), "frame", "Chat", SHOW, None),
             Node(("a", "/2"), "text", "Message", SHOW, 0)]
    assert shown_text(Bus(nodes, {}), nodes, deadline=0.0) == "Chat\nMessage"
