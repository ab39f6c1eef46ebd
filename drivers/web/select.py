"""`SelectOption(value=…)` and `SelectOption(text=…)`: an option of a native select by name.

The authors' browser extension lets the model pick an option of the native select
it just clicked by its position, its value or its visible text. The position is
handled by the web driver itself; this module picks by value or text, in the same
select (the one under the point of the last click), and refuses a disabled option
or one that is not there, naming the options it has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from venusctl.core.actions import SelectOption
from venusctl.core.errors import ActionFailed
from venusctl.drivers.base import ActionResult


@dataclass(frozen=True)
class OpenSelect:
    """A native select list a click opened: where it was clicked, its options' texts."""

    point: tuple[int, int]
    options: tuple[str, ...]


class SelectHost(Protocol):
    """What picking an option needs of the web driver: its page and its open list."""

    page: Any

    def open_select(self) -> OpenSelect | None: ...

    def close_select(self) -> None: ...

_OPTIONS_JS = """
([x, y]) => {
  const el = document.elementFromPoint(x, y);
  const sel = el && el.closest('select');
  if (!sel || sel.disabled) return null;
  return Array.from(sel.options).map(o => ({
    value: o.value, text: o.text.replace(/\\s+/g, ' ').trim(), disabled: o.disabled}));
}
"""


def select_by_name(driver: SelectHost, action: SelectOption) -> ActionResult:
    """Choose the option whose value (or visible text) matches, in the select clicked last."""
    opened = driver.open_select()
    if opened is None or not opened.options:
        raise ActionFailed("no native select list is open; click one first")
    point = opened.point
    options = driver.page.evaluate(_OPTIONS_JS, list(point)) or []
    index = _matching(options, action)
    handle = driver.page.evaluate_handle(
        "([x, y]) => { const e = document.elementFromPoint(x, y); "
        "return e && e.closest('select'); }", list(point))
    element = handle.as_element()
    if element is None:
        raise ActionFailed("the select list is no longer on the page")
    element.select_option(index=index)
    driver.close_select()
    driver.page.keyboard.press("Escape")
    chosen = options[index]
    return ActionResult(details={"selected": chosen["text"], "value": chosen["value"]})


def _matching(options: list[dict[str, Any]], action: SelectOption) -> int:
    """The index of the option `action` names: by value first, then by visible text
    (exact, then ignoring case and surrounding spaces)."""
    wanted = [("value", action.value), ("text", action.text)]
    for key, value in wanted:
        if value is None:
            continue
        for exact in (True, False):
            for index, option in enumerate(options):
                found = option[key] == value if exact else (
                    option[key].strip().lower() == value.strip().lower())
                if found:
                    if option["disabled"]:
                        raise ActionFailed(f"the option '{option['text'][:60]}' is disabled")
                    return index
    listing = "; ".join(f"{o['text']!r} (value {o['value']!r})" for o in options[:20])
    asked = action.value if action.value is not None else action.text
    raise ActionFailed(f"no option '{str(asked)[:60]}' in this list; it has: {listing}")
