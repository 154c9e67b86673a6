"""Offline indexes for arrays queried again and again: built once paid for, repaired after edits.

`search` is what `find_path`'s common call asks on a large open map (through
`sim.navigation.searches.landmarks.search`, once its probing has found that landmark fields do
not pay there: few jump points expanded per query). It answers with the compiled jump point
search until the array's queries have spent about as much as an offline index costs to build
(`BUILD_NS_PER_CELL`: 80-150 ms of CPU at 512 x 512), then builds one (jump tables
and landmark fields, `sim.navigation.searches.offline`) and answers from it, 2-5x faster than
the plain search on those maps (`benchmarks/RESULTS.md`). This is the ski-rental rule:
whatever the number of queries to come, building when the rent paid equals the price costs at
most twice what the better choice in hindsight would have. `prefer` counts the rent as paid
at once: for an array that is edited while queried (`landmarks.search` hands over the arrays
whose fields an edit made stale), whose index is repaired where the fields would be rebuilt.

The rent is counted, not timed (`RENT_NS_PER_QUERY` and `RENT_NS_PER_EXPANSION`: the plain
search's measured cost per call and per jump point expanded): the same queries switch to the
table at the same query on any machine, however loaded, so a run's paths (a table may return
another path of the same cost) never depend on the clock. The build runs on a thread of its own
(the C build releases the GIL) from a copy of the array taken when the rent is paid, and the
table takes over `SWITCH_AFTER_QUERIES` queries later, waiting for the thread only if it has not
finished by then: a frame loop that plans on the array does not stall for the build.

The table holds for the cells it was built from: every query compares the array with the
table's copy in C (about 10 microseconds at 512 x 512) and, when cells have flipped, repairs the
table from the difference (`OfflineIndex.update`: the rows, columns and diagonals those cells
reach, and the fields around the cells that opened; a cube's step in the editor costs well
under a millisecond at 512 x 512) before it answers. No answer is ever stale.

Build and repair times are not hidden in the queries' times: `preprocessing_s` sums them, and
`sim bench --gppc` reports them as preprocessing, with the tables' bytes as storage
(`storage_bytes`).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from sim.navigation.searches import kernel
from sim.navigation.searches.array_cache import ArrayCache
from sim.navigation.searches.jump_table import JUMP_TABLE_AVAILABLE, Found
from sim.navigation.searches.offline import OfflineIndex

BUILD_NS_PER_CELL = 600.0
"""What a build costs per cell, in nanoseconds: the rent the plain queries pay before one."""
RENT_NS_PER_QUERY = 2000.0
"""What one plain query costs apart from its expansions, in nanoseconds (512 x 512, idle)."""
RENT_NS_PER_EXPANSION = 2000.0
"""What one jump point expanded costs the plain search, in nanoseconds (open 512 x 512 maps)."""
SWITCH_AFTER_QUERIES = 256
"""Queries after the rent is paid at which the table takes over (0: build on the spot)."""
MAX_ARRAYS = 4
"""The arrays followed at once; the least recently queried goes first."""


@dataclass(eq=False)
class _Entry:
    """One array's place: the time its plain queries took, and its table once built."""

    rent_ns: float = 0.0
    queries: int = 0
    table: OfflineIndex | None = None
    building: threading.Thread | None = None
    built: list[OfflineIndex] = field(default_factory=list)  # the thread's table, once done
    switch_at: int = 0
    failed: bool = False  # the build refused this array: never tried again


_entries = ArrayCache(_Entry, max_arrays=MAX_ARRAYS)
_lock = _entries.lock
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
        entry = _entries.entry_of(walkable)
        entry.queries += 1
        if entry.building is not None and entry.queries >= entry.switch_at:
            _take_over(entry)
        table = entry.table
        if table is not None and table.shape == (height, width):
            found = table.search_if_matches(start, goal, walkable)
            if found is not None:
                return found
            table.update(walkable)
            _spent["preprocessing_s"] += (table.last_update_ms or 0.0) / 1000.0
            return table.search(start, goal)
        entry.table = None  # none yet, or the array was reshaped in place
    found = kernel.jps_search(walkable, height, width, start, goal)
    with _lock:
        _pay(entry, walkable, RENT_NS_PER_QUERY + RENT_NS_PER_EXPANSION * found[3])
    return found


def _pay(entry: _Entry, walkable: NDArray[np.bool_], rent_ns: float) -> None:
    """Add `rent_ns` to `entry`'s rent; start the build once it is paid. Under the lock."""
    entry.rent_ns += rent_ns
    if (
        entry.rent_ns < BUILD_NS_PER_CELL * walkable.size
        or entry.table is not None
        or entry.building is not None
        or entry.failed
    ):
        return
    _start_build(entry, walkable)
    if entry.queries >= entry.switch_at:
        _take_over(entry)


def rent_left(walkable: NDArray[np.bool_]) -> float | None:
    """The rent `walkable`'s plain queries still pay before its build starts, in ns.

    None unless `search` answers it with the plain search now (no table, none building) and
    will count its rent: the plain lanes of `sim.navigation.searches.call_cache` count it in C
    meanwhile, and hand it to `settle`. The array's entry is made now if new, as its next
    plain query would make it: `settle` adds a lane's counts only to notes that still exist.
    """
    if not JUMP_TABLE_AVAILABLE:
        return math.inf  # nothing is ever built: the rent is never due
    with _lock:
        entry = _entries.entry_of(walkable)
        if entry.table is not None or entry.building is not None or entry.failed:
            return None
        left = BUILD_NS_PER_CELL * walkable.size - entry.rent_ns
        return left if left > 0 else None


def settle(walkable: NDArray[np.bool_], queries: int, rent_ns: float, touched: int = 0) -> None:
    """Count `queries` plain queries of `walkable` that paid `rent_ns`, as `search` counts.

    The notes count as used at `touched` (``array_cache.clock``'s stamp of the last query).
    Nothing when the array's notes were dropped meanwhile (evicted or forgotten): the queries
    counted for notes that are gone.
    """
    if not JUMP_TABLE_AVAILABLE:
        return
    with _lock:
        entry = _entries.touch(walkable, touched)
        if entry is None:
            return
        entry.queries += queries
        _pay(entry, walkable, rent_ns)


def _start_build(entry: _Entry, walkable: NDArray[np.bool_]) -> None:
    """Build `walkable`'s table on a thread, from a copy taken now. Under the lock."""
    snapshot = np.array(walkable, dtype=np.bool_, order="C", copy=True)

    def build() -> None:
        try:
            table = OfflineIndex.build(snapshot)
        except (ValueError, RuntimeError):  # a side over MAX_SIDE: the plain search goes on
            entry.failed = True
            return
        with _lock:
            _spent["preprocessing_s"] += table.build_ms / 1000.0
        entry.built.append(table)

    entry.switch_at = entry.queries + SWITCH_AFTER_QUERIES
    entry.building = threading.Thread(target=build, name="jump-table build", daemon=True)
    entry.building.start()


def _take_over(entry: _Entry) -> None:
    """Let the built table answer from now on, waiting for its thread if needed. Under the lock.

    The thread takes the lock only for a moment after the build, so waiting for it here while
    holding the lock would deadlock: the lock is let go while waiting.
    """
    thread = entry.building
    if thread is None:
        return
    if thread.is_alive():
        _lock.release()
        try:
            thread.join()
        finally:
            _lock.acquire()
    entry.building = None
    if entry.built:
        entry.table = entry.built.pop()


def prefer(walkable: NDArray[np.bool_]) -> None:
    """Count `walkable`'s rent as paid: its next `search` starts the index's build.

    The table still takes over `SWITCH_AFTER_QUERIES` queries after that, from its thread.
    """
    with _lock:
        entry = _entries.entry_of(walkable)
        entry.rent_ns = max(entry.rent_ns, BUILD_NS_PER_CELL * walkable.size)


def table_of(walkable: NDArray[np.bool_]) -> OfflineIndex | None:
    """The table `search` answers `walkable` from (None until one has paid and taken over)."""
    with _lock:
        entry = _entries.get(walkable)
        return None if entry is None else entry.table


def preprocessing_s() -> float:
    """The seconds every build and repair of `search` took, since the process began.

    Builds still running on their threads are waited for first, so that none is left out.
    """
    wait_for_builds()
    with _lock:
        return _spent["preprocessing_s"]


def wait_for_builds() -> None:
    """Wait until every build started on a thread has finished (benches, tests)."""
    with _lock:
        threads = [e.building for e in _entries.entries() if e.building is not None]
    for thread in threads:
        thread.join()


def storage_bytes() -> int:
    """The bytes the tables kept now hold."""
    with _lock:
        return sum(e.table.nbytes for e in _entries.entries() if e.table is not None)


def forget() -> None:
    """Drop every array's notes and tables (tests; memory)."""
    with _lock:
        _entries.clear()
