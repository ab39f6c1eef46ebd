"""A real keyring for tests: keyrings.alt's file backend, chosen through keyring's own
configuration file (keyringrc.cfg under XDG_CONFIG_HOME, which conftest points at
the test's tmp dir), so the stored file lives in the test's XDG_DATA_HOME."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.core

BACKEND = "keyrings.alt.file.PlaintextKeyring"


def file_keyring_backend() -> Iterator[Path]:
    """Configure the file backend; yields the path of the file it writes (use it in a
    fixture: `yield from file_keyring_backend()`)."""
    config = Path(os.environ["XDG_CONFIG_HOME"]) / "python_keyring" / "keyringrc.cfg"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"[backend]\ndefault-keyring={BACKEND}\n", encoding="utf-8")
    keyring.core.init_backend()
    backend = keyring.get_keyring()
    assert f"{type(backend).__module__}.{type(backend).__name__}" == BACKEND
    path = Path(backend.file_path)
    assert str(path).startswith(os.environ["XDG_DATA_HOME"])
    yield path
    config.unlink()
    keyring.core.init_backend()
