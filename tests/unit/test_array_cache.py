"""The per-array entries that landmarks and jump_cache keep: one each, weakly held, LRU."""

from __future__ import annotations

import gc

import numpy as np

from sim.navigation.searches.array_cache import ArrayCache


def cache(max_arrays: int = 2) -> ArrayCache[list[str]]:
    return ArrayCache(list, max_arrays=max_arrays)


def test_an_array_keeps_its_entry_and_another_gets_its_own() -> None:
    entries = cache()
    first, second = np.ones(4, dtype=bool), np.ones(4, dtype=bool)
    with entries.lock:
        entries.entry_of(first).append("first")
        assert entries.entry_of(first) == ["first"]
        assert entries.entry_of(second) == []
        assert entries.get(first) == ["first"]
        assert sorted(map(tuple, entries.entries())) == [(), ("first",)]


def test_get_makes_no_entry() -> None:
    entries = cache()
    array = np.ones(4, dtype=bool)
    with entries.lock:
        assert entries.get(array) is None
        assert entries.entries() == []


def test_the_least_recently_used_goes_first() -> None:
    entries = cache(max_arrays=2)
    arrays = [np.ones(4, dtype=bool) for _ in range(3)]
    with entries.lock:
        entries.entry_of(arrays[0]).append("0")
        entries.entry_of(arrays[1]).append("1")
        entries.entry_of(arrays[0])  # used again: 1 is now the oldest
        entries.entry_of(arrays[2])
        assert entries.get(arrays[0]) == ["0"]
        assert entries.get(arrays[1]) is None
        assert len(entries.entries()) == 2


def test_a_dead_array_drops_its_entry_and_its_id_starts_afresh() -> None:
    entries = cache()
    array = np.ones(4, dtype=bool)
    with entries.lock:
        entries.entry_of(array).append("old")
    del array
    gc.collect()
    with entries.lock:
        assert entries.entries() == []
        # An array that got the dead one's id must not see its entry either.
        newer = np.ones(4, dtype=bool)
        assert entries.get(newer) is None
        assert entries.entry_of(newer) == []


def test_clear_drops_every_entry() -> None:
    entries = cache()
    arrays = [np.ones(4, dtype=bool) for _ in range(2)]
    with entries.lock:
        for array in arrays:
            entries.entry_of(array)
        entries.clear()
        assert entries.entries() == []
        assert entries.get(arrays[0]) is None
