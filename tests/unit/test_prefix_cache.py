"""The snapshot store behind prefix reuse: longest match, few entries, a byte budget."""

from __future__ import annotations

from dataclasses import dataclass

from venusctl.model.llama.prefix_cache import PrefixCache, Snapshot


@dataclass(frozen=True)
class Blob:
    size: int


def snap(size: int = 10, n_past: int = 1) -> Snapshot[Blob]:
    return Snapshot(Blob(size), n_past=n_past, n_tokens=n_past)


def test_the_deepest_matching_prefix_wins_within_the_limit():
    cache: PrefixCache[Blob] = PrefixCache(max_entries=4)
    cache.put(b"a", snap(n_past=1))
    cache.put(b"c", snap(n_past=3))
    keys = [b"a", b"b", b"c", b"d"]
    assert cache.deepest(keys, limit=4)[0] == 2
    assert cache.deepest(keys, limit=2)[0] == 0  # never the whole prompt
    assert cache.deepest([b"x", b"y"], limit=2) is None


def test_least_recently_used_goes_first_and_touch_keeps_one():
    cache: PrefixCache[Blob] = PrefixCache(max_entries=2)
    cache.put(b"a", snap())
    cache.put(b"b", snap())
    cache.touch(b"a")
    cache.put(b"c", snap())
    assert b"a" in cache and b"c" in cache and b"b" not in cache
    cache.deepest([b"c"], limit=1)  # a lookup counts as a use
    cache.put(b"d", snap())
    assert b"c" in cache and b"a" not in cache


def test_the_byte_budget_caps_the_total():
    cache: PrefixCache[Blob] = PrefixCache(max_entries=10, max_bytes=25)
    for key in (b"a", b"b", b"c"):
        cache.put(key, snap(size=10))
    assert len(cache) == 2 and cache.bytes == 20
    cache.put(b"huge", snap(size=26))
    assert b"huge" not in cache


def test_a_disabled_cache_keeps_nothing():
    cache: PrefixCache[Blob] = PrefixCache(max_entries=0)
    cache.put(b"a", snap())
    assert len(cache) == 0 and cache.deepest([b"a"], limit=1) is None
