"""A private X server (Xvfb, 1280x800) with a real Tk application on it.

Exports DISPLAY (venusctl's desktop driver uses it) and TK_LOG, the app's event log:
one JSON object per line, `{"event": "saved", "name": ...}` when Save is pressed.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from _serve import announce, wait_for_stop

from tests.support.xserver import TkApp, XServer

folder = Path(tempfile.mkdtemp(prefix="venusctl-x-"))
server = XServer.start(1280, 800)
try:
    app = TkApp.launch(server, folder / "tk-events.jsonl", geometry="800x600+100+50")
except BaseException as exc:
    server.stop()
    sys.exit(f"the Tk app did not start: {exc}")
try:
    announce(DISPLAY=server.display, XDG_SESSION_TYPE="x11", TK_LOG=str(app.log))
    wait_for_stop()
finally:
    app.stop()
    server.stop()
