"""Jump tables for arrays queried again and again: built once they have paid, repaired after edits.

`search` is what `find_path`'s common call asks on a large open map (through
`sim.navigation.searches.landmarks.search`, once its probing has found that landmark fields do
not pay there: few jump points expanded per query). It answers with the compiled jump point
search until the array's queries have spent as much time as a jump table costs to build
(`BUILD_NS_PER_CELL`: 15-30 ms at 512 x 512 on an idle machine; under load builds and queries
slow down alike), then builds one (`sim.navigation.searches.jump_table`) and answers from it,
2-3.5x faster than the plain search on those maps (`benchmarks/RESULTS.md`). This is
the ski-rental rule: whatever the number of queries to come, building when the rent paid equals
the price costs at most twice what the better choice in hindsight would have.

The table holds for the cells it was built from: every query compares the array with the
table's copy in C (about 10 microseconds at 512 x 512) and, when cells have flipped, repairs the
table from the difference (`JumpTable.update`: the rows, columns and diagonals those cells
reach; a cube's step in the editor costs about 0.1 ms at 512 x 512) before it answers. No
answer is ever stale.

Build and repair times are not hidden in the queries' times: `preprocessing_s` sums them, and
`sim bench --gppc` reports them as preprocessing, with the tables' bytes as storage
(`storage_bytes`).
"""

from __future__ import annotations

import threading
import time
import weakref
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.navigation.searches import kernel
from sim.navigation.searches.jump_table import JUMP_TABLE_AVAILABLE, Found, JumpTable

BUILD_NS_PER_CELL = 100.0
"""What a build costs per cell, in nanoseconds: the rent the plain queries pay before one."""
MAX_ARRAYS = 4
"""The arrays followed at once; the least recently queried goes first."""


@dataclass(eq=False)
class _Entry:
    """One array's place: the time its plain queries took, and its table once built."""

    ref: weakref.ref[NDArray[np.bool_]]
    used: int = 0
    spent_s: float = 0.0
    table: JumpTable | None = None


_lock = threading.Lock()
_entries: dict[int, _Entry] = {}  # by id(array), checked against the weak reference
_clock = [0]
_spent = {"preprocessing_s": 0.0}


def search(walkable: NDArray[np.bool_], height: int, width: int, start: int, goal: int) -> Found:
    """`kernel.jps_search` (octile), from a jump table once the array's queries paid for one.

    The caller has made `kernel.jps_search`'s checks (a C-contiguous 2-D bool array of
    `height` x `width` with walkable flat cells `start` and `goal`). The cost is the plain
    search's; the cells may be another path of that cost.
    """
    if not JUMP_TABLE_AVAILABLE:
        return kernel.jps_search(walkable, height, width, start, goal)
    # The lock covers the repair too: another thread must not search a half-repaired table.
    with _lock:
        entry = _entry_of(walkable)
        table = entry.table
        if table is not None and table.shape == (height, width):
            found = table.search_if_matches(start, goal, walkable)
            if found is not None:
                return found
            table.update(walkable)
            _spent["preprocessing_s"] += (table.last_update_ms or 0.0) / 1000.0
            return table.search(start, goal)
        entry.table = None  # none yet, or the array was reshaped in place
    began = time.perf_counter()
    found = kernel.jps_search(walkable, height, width, start, goal)
    spent = time.perf_counter() - began
    with _lock:
        entry.spent_s += spent
        if entry.spent_s < BUILD_NS_PER_CELL * 1e-9 * height * width or entry.table is not None:
            return found
        entry.table = JumpTable.build(walkable)
        _spent["preprocessing_s"] += entry.table.build_ms / 1000.0
    return found


def table_of(walkable: NDArray[np.bool_]) -> JumpTable | None:
    """The table `search` keeps for `walkable` (None before it has paid for one)."""
    with _lock:
        entry = _entries.get(id(walkable))
        if entry is None or entry.ref() is not walkable:
            return None
        return entry.table


def preprocessing_s() -> float:
    """The seconds every build and repair of `search` took, since the process began."""
    with _lock:
        return _spent["preprocessing_s"]


def storage_bytes() -> int:
    """The bytes the tables kept now hold."""
    with _lock:
        return sum(e.table.nbytes for e in _entries.values() if e.table is not None)


def forget() -> None:
    """Drop every array's notes and tables (tests; memory)."""
    with _lock:
        _entries.clear()


def _drop(key: int, dead: weakref.ref[NDArray[np.bool_]]) -> None:
    """Free a dead array's table at once (no lock: one dictionary operation is atomic)."""
    entry = _entries.get(key)
    if entry is not None and entry.ref is dead:
        _entries.pop(key, None)


def _entry_of(walkable: NDArray[np.bool_]) -> _Entry:
    """`walkable`'s entry, made (and the least recently used dropped) if new. Under the lock."""
    _clock[0] += 1
    entry = _entries.get(id(walkable))
    if entry is None or entry.ref() is not walkable:
        if len(_entries) >= MAX_ARRAYS:
            oldest = min(list(_entries.items()), key=lambda item: item[1].used)[0]
            _entries.pop(oldest, None)
        key = id(walkable)
        entry = _Entry(weakref.ref(walkable, lambda dead: _drop(key, dead)))
        _entries[key] = entry
    entry.used = _clock[0]
    return entry
