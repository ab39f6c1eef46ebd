"""A small GTK 3 window for the AT-SPI tests (GTK publishes its widgets on the bus).

Run with the system Python, which has PyGObject: `/usr/bin/python3 tests/support/gtkapp.py`.
It shows a button "Delete everything" above a password field, at 200,100 (300x200).
"""

from __future__ import annotations

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import Gtk  # noqa: E402 - the version must be chosen before the import


def main() -> None:
    window = Gtk.Window(title="Danger Zone")
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    box.pack_start(Gtk.Button(label="Delete everything"), True, True, 0)
    secret = Gtk.Entry()
    secret.set_visibility(False)
    box.pack_start(secret, True, True, 0)
    window.add(box)
    window.move(200, 100)
    window.resize(300, 200)
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
