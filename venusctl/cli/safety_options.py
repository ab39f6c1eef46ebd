"""The safety flags shared by `do`, `act`, `replay` and `policy`, declared once."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from venusctl.safety.setup import SafetyOptions

PolicyOpt = Annotated[
    Optional[str],  # noqa: UP045 - typer reads the annotation at runtime on 3.10
    typer.Option(
        "--policy", metavar="NAME|FILE",
        help="Safety policy: 'default', 'strict' or a YAML file "
             "(default: [safety] policy in the config file, else "
             "'default')."),
]
AllowDomainOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--allow-domain", metavar="DOMAIN",
        help="Allowed web domain (repeatable); going outside the "
             "allowed ones needs confirmation."),
]
AllowAppOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--allow-app", metavar="APP",
        help="Allowed app, package or window class (repeatable); "
             "going outside them needs confirmation."),
]
AllowCategoryOpt = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--allow-category", metavar="CATEGORY",
        help="Confirm this category in advance (repeatable), "
             "e.g. payment; denials cannot be approved."),
]


def safety_options(
    policy: str | None,
    allow_domain: list[str] | None = None,
    allow_app: list[str] | None = None,
    allow_category: list[str] | None = None,
) -> SafetyOptions:
    return SafetyOptions(
        policy=policy,
        allow_domains=tuple(allow_domain or ()),
        allow_apps=tuple(allow_app or ()),
        allow_categories=tuple(allow_category or ()),
    )
