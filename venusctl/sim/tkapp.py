"""A small Tk window that logs every event it receives, for desktop driver tests.

Run as a program: `python -m venusctl.sim.tkapp LOG [--geometry 800x600+100+50]`.
Each line of LOG is one JSON object. The first is `{"event": "ready", "widgets":
{name: [x, y, width, height]}}` with root-window coordinates of every widget, so a
test can aim at them; then one line per X event (press, release, motion with a
button held, wheel, keys, enter/leave) and `saved` when the Save button is pressed.
Tests read what arrived from this log, not from pyautogui.
"""

from __future__ import annotations

import json
import sys
import time
import tkinter as tk
from pathlib import Path
from typing import IO, Any

TITLE = "Venus Test App"
CLASS = "Venustest"  # Tk capitalises only the first letter of a class name
LAYOUT = {  # name: (x, y, width, height) inside the window
    "alpha": (20, 20, 120, 40),
    "beta": (160, 20, 120, 40),
    "name": (20, 80, 300, 30),
    "save": (340, 80, 60, 30),
    "notes": (20, 130, 380, 120),
    "status": (20, 270, 380, 30),
    "pad": (420, 20, 360, 360),
}


class EventLog:
    """Writes events as JSON lines, flushed at once so a test sees them immediately."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def write(self, record: dict[str, Any]) -> None:
        record["t"] = round(time.monotonic(), 4)
        self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.out.flush()


def build(root: tk.Tk, log: EventLog) -> dict[str, tk.Widget]:
    status = tk.StringVar(value="ready")
    widgets: dict[str, tk.Widget] = {}
    widgets["alpha"] = tk.Button(root, name="alpha", text="Alpha",
                                 command=lambda: log.write({"event": "command", "widget": "alpha"}))
    widgets["beta"] = tk.Button(root, name="beta", text="Beta",
                                command=lambda: log.write({"event": "command", "widget": "beta"}))
    entry = tk.Entry(root, name="name")
    widgets["name"] = entry
    notes = tk.Text(root, name="notes")
    widgets["notes"] = notes

    def save() -> None:
        value = entry.get()
        status.set(f"Saved: {value}")
        log.write({"event": "saved", "name": value, "notes": notes.get("1.0", "end-1c")})

    widgets["save"] = tk.Button(root, name="save", text="Save", command=save)
    widgets["status"] = tk.Label(root, name="status", textvariable=status, anchor="w")
    widgets["pad"] = tk.Canvas(root, name="pad", background="#dde8ff")
    for name, (x, y, w, h) in LAYOUT.items():
        widgets[name].place(x=x, y=y, width=w, height=h)
    return widgets


def bind_events(root: tk.Tk, widgets: dict[str, tk.Widget], log: EventLog) -> None:
    """Raw events on the 'all' tag; multi-clicks on each widget, so a double click still
    logs both raw presses (Tk runs only the most specific binding per tag)."""
    def record(kind: str) -> Any:
        def handler(event: tk.Event) -> None:
            log.write({
                "event": kind, "widget": _name(event.widget), "x_root": event.x_root,
                "y_root": event.y_root, "num": _int(event.num), "keysym": event.keysym
                if kind.startswith("Key") else None, "char": event.char if kind == "KeyPress"
                else None, "state": _int(event.state), "delta": _int(event.delta),
            })
        return handler

    for kind in ("ButtonPress", "ButtonRelease", "KeyPress", "KeyRelease", "Enter",
                 "MouseWheel"):
        root.bind_all(f"<{kind}>", record(kind), add="+")
    root.bind_all("<B1-Motion>", record("Drag"), add="+")
    for widget in widgets.values():
        widget.bind("<Double-Button-1>", record("DoubleClick"), add="+")
        widget.bind("<Triple-Button-1>", record("TripleClick"), add="+")


def report_ready(root: tk.Tk, widgets: dict[str, tk.Widget], log: EventLog) -> None:
    root.update_idletasks()
    bounds = {name: [w.winfo_rootx(), w.winfo_rooty(), w.winfo_width(), w.winfo_height()]
              for name, w in widgets.items()}
    log.write({"event": "ready", "widgets": bounds,
               "window": [root.winfo_rootx(), root.winfo_rooty(), root.winfo_width(),
                          root.winfo_height()]})


def _name(widget: Any) -> str:
    return str(widget).rsplit(".", 1)[-1] if widget is not None else ""


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def main(argv: list[str]) -> None:
    log_path = Path(argv[0])
    geometry = argv[argv.index("--geometry") + 1] if "--geometry" in argv else "800x600+100+50"
    root = tk.Tk(className=CLASS)
    root.title(TITLE)
    root.geometry(geometry)
    with log_path.open("a", encoding="utf-8") as out:
        log = EventLog(out)
        widgets = build(root, log)
        bind_events(root, widgets, log)
        root.wait_visibility()
        root.after(150, lambda: report_ready(root, widgets, log))
        root.mainloop()


if __name__ == "__main__":
    main(sys.argv[1:])
