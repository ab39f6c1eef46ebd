"""Named secrets in the OS keyring, and the placeholders the model types instead of them.

The model never sees a secret. The prompt lists the names that exist; the model
writes `{{secret:NAME}}` inside a `Type` action; a driver wrapper
(`venusctl.safety.secret_driver.SecretDriver`) swaps in the value just before the
keys are pressed. Values live in the keyring (`keyring`, with whatever backend the
user configured: Secret Service, macOS Keychain, Windows Credential Locker, or a
file backend from `keyrings.alt`), under the service name "venusctl".

Keyring backends cannot list their entries, so the names are kept in one extra
entry of the same service. Names are plain identifiers; values are never logged,
printed or put in an error message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from venusctl.core.errors import UsageError

# what the model is told when a run has no password or stored secret to offer it
NO_PASSWORD = "No password for this machine is known; use CallUser if one is asked for."
NO_SECRETS = ("No stored passwords or codes are available; if one is needed, ask the person "
              "with CallUser.")

SERVICE = "venusctl"
INDEX_ENTRY = "__venusctl_secret_names__"
DESKTOP_PASSWORD = "desktop_password"
NAME_PATTERN = r"[A-Za-z][A-Za-z0-9_.-]{0,63}"
PLACEHOLDER = re.compile(r"\{\{\s*secret\s*:\s*(" + NAME_PATTERN + r")\s*\}\}")
_NAME = re.compile(NAME_PATTERN + r"\Z")


def placeholder(name: str) -> str:
    """The text the model types to mean the secret `name`."""
    return "{{secret:" + name + "}}"


def names_in(text: str) -> list[str]:
    """The secret names a text refers to, in order, without repeats."""
    return list(dict.fromkeys(m.group(1) for m in PLACEHOLDER.finditer(text)))


def check_name(name: str) -> str:
    """A valid secret name, or a usage error saying what a name may contain."""
    if not _NAME.match(name) or name == INDEX_ENTRY:
        raise UsageError(
            f"'{name[:70]}' is not a valid secret name: start with a letter, then letters, "
            "digits, '_', '.' or '-' (at most 64 characters)"
        )
    return name


class SecretError(UsageError):
    """The keyring is missing or refused; the message never holds a value."""


@dataclass
class SecretStore:
    """The user's named secrets; `backend` defaults to keyring's configured one."""

    backend: Any = None
    service: str = SERVICE

    def _keyring(self) -> Any:
        if self.backend is None:
            import keyring

            self.backend = keyring.get_keyring()
        return self.backend

    def _call(self, what: str, fn: Any, *args: str, missing_ok: bool = False) -> Any:
        from keyring.errors import KeyringError, PasswordDeleteError

        try:
            return fn(self.service, *args)
        except PasswordDeleteError:
            if missing_ok:
                return None
            raise SecretError(f"the keyring could not {what}") from None
        except KeyringError as exc:
            raise SecretError(
                f"the keyring could not {what} ({type(exc).__name__}); "
                "check `keyring diagnose`, or configure a backend such as keyrings.alt"
            ) from None

    def names(self) -> list[str]:
        raw = self._call("list secrets", self._keyring().get_password, INDEX_ENTRY)
        if not raw:
            return []
        try:
            names = json.loads(raw)
        except json.JSONDecodeError:
            return []
        return sorted(n for n in names if isinstance(n, str) and _NAME.match(n))

    def get(self, name: str) -> str | None:
        """The value, or None when no such secret is set."""
        return self._call("read a secret", self._keyring().get_password, check_name(name))

    def set(self, name: str, value: str) -> None:
        check_name(name)
        if not value:
            raise UsageError(f"refusing to store an empty value for secret '{name}'")
        self._call("store a secret", self._keyring().set_password, name, value)
        self._write_index({*self.names(), name})

    def delete(self, name: str) -> None:
        check_name(name)
        known = self.names()
        if name not in known and self.get(name) is None:
            raise UsageError(f"no secret named '{name}' (see `venusctl secret list`)")
        # already gone from the keyring: drop it from the index all the same
        self._call("delete a secret", self._keyring().delete_password, name, missing_ok=True)
        self._write_index(n for n in known if n != name)

    def _write_index(self, names: Iterable[str]) -> None:
        text = json.dumps(sorted(set(names)))
        self._call("update the list of secrets", self._keyring().set_password, INDEX_ENTRY, text)
