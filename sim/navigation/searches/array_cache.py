"""One entry per array queried again and again, held weakly, the least recently used dropped.

`sim.navigation.searches.landmarks` (distance fields) and `sim.navigation.searches.jump_cache`
(offline indexes) each keep notes on the few arrays their callers query: what the queries
showed, and what was built for the array. Both key them the same way, here: by ``id(array)``,
checked against a weak reference (an id is reused once its array dies, and the entry must not
keep the array alive), dropped as soon as the array dies, and the least recently used dropped
when `max_arrays` are followed already. The entries' own fields are each cache's business.

>>> import numpy as np
>>> cache = ArrayCache(list, max_arrays=1)
>>> first, second = np.ones(3, dtype=bool), np.ones(3, dtype=bool)
>>> with cache.lock:
...     cache.entry_of(first).append("seen")
...     cache.entry_of(second) is cache.get(second), cache.get(first)
(True, None)
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from numpy.typing import NDArray

Entry = TypeVar("Entry")

clock: list[Callable[[], int]] = []
"""What entries' uses are stamped with, when set (`sim.navigation.searches.call_cache`: the
clock its plain lanes stamp the queries they answer with); else each cache's own count."""

touched: list[Callable[[], dict[int, int]]] = []
"""``{id(array): clock stamp}`` of arrays used without `ArrayCache.entry_of` (the plain lanes'
queries, counted for the caches in C): eviction counts them as used then."""

dropped: list[Callable[[int | None], object]] = []
"""Told the ``id`` of an array whose entry a cache drops before the array dies (None: every
entry): `sim.navigation.searches.call_cache`'s plain lanes count for entries, and go with them."""


@dataclass(eq=False, slots=True)
class _Slot(Generic[Entry]):
    """One array's place: its weak reference, when it was last asked for, and its entry."""

    ref: weakref.ref[NDArray[Any]]
    used: int
    entry: Entry


class ArrayCache(Generic[Entry]):
    """Entries made by `make` for up to `max_arrays` live arrays, one each.

    Every method runs under `lock`, which the owner takes around its calls (and around what it
    does with the entries).

    Attributes:
        lock: what guards the entries and whatever the owner keeps in them.
    """

    def __init__(self, make: Callable[[], Entry], *, max_arrays: int) -> None:
        """An empty cache whose new entries are ``make()``, following `max_arrays` at most."""
        self.lock = threading.Lock()
        self._make = make
        self._max_arrays = max_arrays
        self._slots: dict[int, _Slot[Entry]] = {}
        self._clock = 0

    def entry_of(self, array: NDArray[Any]) -> Entry:
        """`array`'s entry, made (and the least recently used dropped) if new. Under the lock."""
        self._clock = clock[0]() if clock else self._clock + 1
        key = id(array)
        slot = self._slots.get(key)
        if slot is None or slot.ref() is not array:
            if len(self._slots) >= self._max_arrays:
                recent = touched[0]() if touched else {}
                oldest = min(
                    list(self._slots.items()),
                    key=lambda item: max(item[1].used, recent.get(item[0], 0)),
                )[0]
                self._slots.pop(oldest, None)
                for hook in dropped:
                    hook(oldest)
            slot = _Slot(weakref.ref(array, lambda dead: self._drop(key, dead)), 0, self._make())
            self._slots[key] = slot
        slot.used = self._clock
        return slot.entry

    def get(self, array: NDArray[Any]) -> Entry | None:
        """`array`'s entry if it has one, without making one or marking it used. Under the lock."""
        slot = self._slots.get(id(array))
        if slot is None or slot.ref() is not array:
            return None
        return slot.entry

    def touch(self, array: NDArray[Any], stamp: int) -> Entry | None:
        """`array`'s entry if it has one, marked used at `stamp` (a `clock` tick) if later.

        Under the lock.
        """
        slot = self._slots.get(id(array))
        if slot is None or slot.ref() is not array:
            return None
        slot.used = max(slot.used, stamp)
        return slot.entry

    def entries(self) -> list[Entry]:
        """Every entry followed now. Under the lock."""
        return [slot.entry for slot in self._slots.values()]

    def clear(self) -> None:
        """Drop every entry. Under the lock."""
        self._slots.clear()
        for hook in dropped:
            hook(None)

    def _drop(self, key: int, dead: weakref.ref[NDArray[Any]]) -> None:
        """Free a dead array's entry at once.

        No lock: it may run while the owner holds it, and one dictionary operation is atomic;
        the check keeps a newer array of the same id.
        """
        slot = self._slots.get(key)
        if slot is not None and slot.ref is dead:
            self._slots.pop(key, None)
