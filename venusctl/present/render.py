"""The one jinja2 environment the pages and charts venusctl writes are rendered with.

Autoescape is always on and every value passes the terminal sanitizer first (controls
and bidi overrides shown escaped), because what a page shows comes from records: a
model's and a web page's words. Templates never mark record text safe.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2
from markupsafe import Markup

from venusctl.safety.sanitize import shown


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("venusctl.present", "templates"),
        autoescape=True,
        finalize=_shown,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(template: str, **values: Any) -> str:
    """`templates/<template>` filled with `values`, every value escaped for HTML."""
    return environment().get_template(template).render(**values)


def _shown(value: Any) -> Any:
    """Numbers and already-rendered markup as they are; any other value as sanitized text."""
    if isinstance(value, Markup | int | float):
        return value
    return shown(value, newlines=True)
