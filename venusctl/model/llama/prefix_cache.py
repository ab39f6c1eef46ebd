"""Sequence-state snapshots keyed by prompt prefix, for reuse across agent steps.

The hybrid `qwen35` architecture keeps recurrent state that cannot be rolled back
to an earlier token, so llama.cpp's own prefix matching re-evaluates everything.
Instead we copy the whole sequence state out at chosen unit boundaries and, for
the next prompt, restore the deepest snapshot whose key (a rolling hash of the
prompt up to that boundary) matches, then evaluate only the rest.

Snapshots are large (for a 9B model tens of MB of recurrent state plus the KV
cells), so the cache holds few of them: the least recently used goes first, and
a byte budget caps the total.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar


class _Sized(Protocol):
    size: int


S = TypeVar("S", bound=_Sized)


@dataclass(frozen=True)
class Snapshot(Generic[S]):
    """A saved state and where the prompt stood when it was taken."""

    state: S
    n_past: int  # position after the boundary
    n_tokens: int  # KV cells filled up to the boundary

    @property
    def size(self) -> int:
        return self.state.size


class PrefixCache(Generic[S]):
    """Few, large snapshots; least recently used evicted first."""

    def __init__(self, max_entries: int = 2, max_bytes: int = 2 << 30) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._items: OrderedDict[bytes, Snapshot[S]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: bytes) -> bool:
        return key in self._items

    @property
    def bytes(self) -> int:
        return sum(item.size for item in self._items.values())

    def deepest(self, keys: Sequence[bytes], limit: int) -> tuple[int, Snapshot[S]] | None:
        """The snapshot for the longest matching prefix among keys[:limit], with its index."""
        for index in range(min(limit, len(keys)) - 1, -1, -1):
            found = self._items.get(keys[index])
            if found is not None:
                self._items.move_to_end(keys[index])
                return index, found
        return None

    def touch(self, key: bytes) -> None:
        """Mark a snapshot as wanted again (it moves to the back of the eviction queue)."""
        if key in self._items:
            self._items.move_to_end(key)

    def put(self, key: bytes, snapshot: Snapshot[S]) -> None:
        if self.max_entries <= 0 or snapshot.size > self.max_bytes:
            return
        self._items[key] = snapshot
        self._items.move_to_end(key)
        while len(self._items) > self.max_entries or self.bytes > self.max_bytes:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()
