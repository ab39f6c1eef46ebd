"""Plain-text helpers for one-line messages (errors, prompts, pictures, records).

Every message venusctl shows a person is one line; these two helpers are how text
of any shape (a page's label, a model's thought, a library's exception) gets there.
"""

from __future__ import annotations


def one_line(text: str, limit: int) -> str:
    """`text` with its whitespace runs made single spaces, cut to `limit` with '…'."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def first_line(value: object, limit: int = 300) -> str:
    """The first line of an exception's message or a tool's output (else its type name).

    Libraries such as Playwright put a call log under the first line; a person needs
    only that first line.
    """
    lines = str(value).strip().splitlines()
    return lines[0][:limit] if lines else type(value).__name__
