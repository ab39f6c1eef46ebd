"""Kept sessions: a surface that outlives one command (`venusctl session start`).
Opening and keeping a surface between commands; what a run does with it lives above.

A web session is a Chromium run by a small background process (`daemon.py`) that
offers it only on 127.0.0.1, behind a random token, as a DevTools endpoint
(`cdp_proxy.py`); `act`, `screenshot`, `ground` and `do` with `--session NAME` connect
to it and work in the page it was left on. Android and desktop sessions are named
settings (phone, monitor, image format). Records live in `store.py`'s folder;
`manage.py` starts, finds, checks and stops them.
"""
