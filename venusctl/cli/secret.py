"""`secret set/list/delete`: named secrets in the OS keyring, typed by placeholder."""

from __future__ import annotations

import getpass
import json
import sys
from typing import Annotated

import typer

from venusctl.cli.panels import Typer
from venusctl.core.errors import UsageError
from venusctl.safety.secrets import SecretStore, check_name, placeholder

secret_app = Typer(
    help="Store secrets the agent can type without ever seeing them ({{secret:NAME}}).",
    no_args_is_help=True,
)

NameArg = Annotated[str, typer.Argument(help="The secret's name, e.g. bank_pin.")]


def register(app: typer.Typer) -> None:
    app.add_typer(secret_app, name="secret")


@secret_app.command("set")
def set_command(name: NameArg) -> int:
    """Store a secret: typed hidden at a terminal, or read from standard input.

    Example: venusctl secret set bank_pin
    Example: printf '%s' "$PIN" | venusctl secret set bank_pin
    """
    check_name(name)
    value = _read_value(name)
    store = SecretStore()
    store.set(name, value)
    sys.stderr.write(f"stored secret '{name}'; the model types it as {placeholder(name)}\n")
    return 0


def _read_value(name: str) -> str:
    if sys.stdin.isatty():
        try:
            first = getpass.getpass(f"value for {name} (hidden): ")
            second = getpass.getpass("again: ")
        except EOFError:
            raise UsageError("no value given") from None
        if first != second:
            raise UsageError("the two values differ; nothing was stored")
        return first
    value = sys.stdin.read()
    if value.endswith("\r\n"):
        return value[:-2]
    return value[:-1] if value.endswith("\n") else value


@secret_app.command("list")
def list_command(
    json_out: Annotated[bool, typer.Option("--json", help="A JSON list of names.")] = False,
) -> int:
    """List the names of stored secrets (never their values).

    Example: venusctl secret list
    """
    names = SecretStore().names()
    if json_out:
        print(json.dumps(names))
    elif names:
        print("\n".join(f"{n}\t{placeholder(n)}" for n in names))
    else:
        sys.stderr.write("no secrets stored; add one with `venusctl secret set NAME`\n")
    return 0


@secret_app.command("delete")
def delete_command(name: NameArg) -> int:
    """Remove a secret from the keyring.

    Example: venusctl secret delete bank_pin
    """
    SecretStore().delete(name)
    sys.stderr.write(f"deleted secret '{name}'\n")
    return 0
