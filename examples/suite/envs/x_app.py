"""A private X server (Xvfb, 1280x800) with the Venus Test App (Tk) on it.

Exports DISPLAY (venusctl's desktop driver uses it), XDG_SESSION_TYPE and TK_LOG, the
app's event log: one JSON object per line, `{"event": "saved", "name": ...}` when Save
is pressed. The log is a temporary file, removed when the environment stops (pass
`log=Path(...)` to keep it).
"""

from venusctl.sim import Desktop, serve

serve(Desktop(size=(1280, 800)))
