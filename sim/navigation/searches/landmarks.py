"""Landmarks: a sharper heuristic for jump point searches repeated on one unchanged array.

Octile distance ignores walls, so on a cluttered map (random512-40-0: a median optimum 2.08x
the octile distance; mazes: 7x) A* and jump point search expand a wide ellipse. A
*differential heuristic* (Goldberg & Harrelson, "Computing the shortest path: A* search meets
graph theory", SODA 2005, there called ALT; Sturtevant et al., "Memory-based heuristics for
explicit state spaces", IJCAI 2009) keeps the exact distance from a few landmark cells to every
cell; by the triangle inequality ``|d_i(goal) - d_i(n)|`` never overestimates the cost from
``n`` to the goal, and it is consistent, as is its maximum with octile. We use

    h(n) = max(octile(n, goal), max_i |d_i(goal) - d_i(n)|)

over the landmarks that reach both cells (an unreachable landmark, ``inf``, is skipped for
the pair: two cells that are neighbours both reach it or both do not, so consistency holds).
The landmarks are picked far apart (farthest-point: each the walkable cell farthest from those
picked before, starting from the cell farthest from a seed), and each distance field is the
compiled Dijkstra of `sim.navigation.field` under the Moving AI rule (exact octile costs, no
corner cutting), the costs jump point search charges. A search with it returns a path of the
same cost as without; it may be other cells of that cost, and expands fewer jump points.

The fields hold for the array they were built from only: one opened cell can make a distance
shrink, and the heuristic overestimate. So `Landmarks` keeps a copy of the array's bytes,
and the compiled search (`_jps.search_landmarks`) compares them on every call (about 10
microseconds at 512 x 512, against a query of about a millisecond): a changed array is never
searched with stale fields.

`search` is what `find_path`'s common call (`sim.navigation.hot_path`) asks. It builds fields
only where they pay: on a map of `MIN_CELLS` to `MAX_CELLS` cells, once `PROBE_QUERIES` paths
found on the same array took a median of more than `PAYS_EXPANDED` jump points (measured on
the shared maps: random and maze maps expand thousands and gain 2-4x; AR0011SR, Paris_0_512 and
the other open maps expand tens to hundreds, are fast already and would lose the content check's
time, so they keep the plain search and pay a note per query, about a microsecond). Building 8
fields costs 100-250 ms on a 512 x 512 map, in the query that decides it; `build_ms` tells what
the last build of an array took. After each decision against a build the probing waits for
twice as many queries (up to `MAX_PROBES`). Once a decision has gone against fields, the plain
search is `sim.navigation.searches.jump_cache.search`: an offline index (jump tables and
integer landmark fields) once the queries have paid for one. When an array has changed since
its fields were built, it is one the caller edits while querying: its fields are dropped and
it goes to `jump_cache` at once (`jump_cache.prefer`), whose offline index is built on a
thread and then repaired after each edit instead of rebuilt.

The Python reference (`sim.navigation.searches.jps.JumpPointSearch`, ``landmarks=``) reads the same
fields with the same operations, so C and Python expand the same jump points.

>>> walkable = np.ones((3, 5), dtype=bool)
>>> walkable[0:2, 2] = False  # a wall: from (0, 0) to (0, 4) is 6.83, octile says 4
>>> marks = build(walkable, seed=0, count=2)
>>> marks.cells, round(marks.heuristic(0, 4), 4)
((4, 0), 6.8284)
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from sim.navigation.arrays.frozen import is_frozen
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.heuristics import octile
from sim.navigation.searches import jump_cache, kernel
from sim.navigation.searches.array_cache import ArrayCache

LANDMARKS = 8
"""How many landmarks `search` builds per array (each a float64 per cell)."""
MIN_CELLS = 256 * 256
"""The smallest map `search` builds landmarks for: below it a query costs little already."""
MAX_CELLS = 1 << 21
"""The largest map `search` builds landmarks for (8 fields of 2M cells are 128 MB)."""
PROBE_QUERIES = 5
"""Found paths on an array that `search` looks at before deciding whether a build pays."""
PAYS_EXPANDED = 1000
"""The median jump points the probed queries expanded above which a build pays."""
MAX_PROBES = 1 << 10
"""The most queries the probing waits for after repeated changes of an array."""
NEAR_CELLS = 2
"""Start and goal this close (rows and columns apart at most) go to the plain search alone.

Such a query reads a few rows: the fields' and the jump table's whole-array comparisons (2-3
microseconds at 512 x 512) would be most of its time. Measured on AR0011SR, Paris_0_512 and
maze512-32-9 (30 queries per distance, the median): the plain compiled search answers a start
that is its goal in 0.4 us against 2.9-3.3 us from a table, and goals 1 or 2 cells away in
1.8-3.3 us against 3.0-3.8 us; from 4 cells on the table is as fast or faster on the open maps.
"""
MAX_ARRAYS = 4
"""The arrays `search` follows at once; the least recently queried goes first."""

Found = tuple[bool, bytes | tuple[tuple[int, int], ...], float, int]
"""What the compiled search returns: found, cells, cost, expanded."""


@dataclass(frozen=True, eq=False)
class Landmarks:
    """Distance fields from a few landmark cells of one array, and that array's bytes.

    Attributes:
        cells: the landmarks' flat cells, in the order picked.
        fields: ``[cell, landmark]`` float64, C-contiguous: the cost of an optimal path
            between the two under the Moving AI rule, ``inf`` where none exists.
        snapshot: a copy of the array the fields were built from.
        build_ms: how long building took, in milliseconds.
    """

    cells: tuple[int, ...]
    fields: NDArray[np.float64]
    snapshot: NDArray[np.bool_]
    build_ms: float

    def matches(self, walkable: NDArray[np.bool_]) -> bool:
        """Whether `walkable` holds exactly the cells the fields were built from."""
        return walkable.shape == self.snapshot.shape and bool(
            np.array_equal(walkable, self.snapshot)
        )

    def goal_terms(self, goal: int) -> tuple[tuple[int, float], ...]:
        """The landmarks that reach flat cell `goal`, each with its distance to it."""
        row = self.fields[goal]
        return tuple(
            (index, float(row[index])) for index in range(len(self.cells)) if row[index] < np.inf
        )

    def heuristic(self, cell: int, goal: int) -> float:
        """h(`cell`) toward `goal` (flat cells): octile raised by the landmarks, as C has it."""
        h = octile_of(cell, goal, self.snapshot.shape[1])
        return self.raise_by(h, cell, self.goal_terms(goal))

    def raise_by(self, h: float, cell: int, goal_terms: tuple[tuple[int, float], ...]) -> float:
        """`h` raised to the largest ``|d_goal - d_cell|`` over `goal_terms` where finite.

        The same float operations in the same order as ``h_of`` in ``_jps.c``.
        """
        distances = self.fields[cell]
        for index, goal_distance in goal_terms:
            gap = abs(goal_distance - float(distances[index]))
            if gap < math.inf and gap > h:
                h = gap
        return h


class FieldTerms(Protocol):
    """What the Python reference (`JumpPointSearch`, ``landmarks=``) reads of distance fields.

    `Landmarks` (float64 fields) and `sim.navigation.searches.offline.IndexFields` (the
    offline index's integer fields) both answer it, each with the operations its compiled
    search uses, so C and Python expand the same jump points.
    """

    def matches(self, walkable: NDArray[np.bool_]) -> bool:
        """Whether `walkable` holds exactly the cells the fields were built from."""
        ...

    def goal_terms(self, goal: int) -> tuple[tuple[int, float], ...]:
        """The fields that reach flat cell `goal`, each with its value there."""
        ...

    def raise_by(self, h: float, cell: int, goal_terms: tuple[tuple[int, float], ...]) -> float:
        """`h` raised by the fields at flat `cell` toward the goal of `goal_terms`."""
        ...


def octile_of(cell: int, goal: int, width: int) -> float:
    """The octile distance between flat cells `cell` and `goal` of a grid `width` wide.

    >>> round(octile_of(0, 7, 5), 4)  # (0, 0) to (1, 2)
    2.4142
    """
    row, col = divmod(cell, width)
    goal_row, goal_col = divmod(goal, width)
    return 1.0 * octile(abs(col - goal_col), abs(row - goal_row))


def build(walkable: NDArray[np.bool_], seed: int, count: int = LANDMARKS) -> Landmarks:
    """Pick `count` landmarks far apart in `seed`'s region of `walkable` and build their fields.

    Farthest-point: the first landmark is the walkable cell farthest from flat cell `seed`,
    each next one the cell farthest from its nearest landmark (ties: the smaller flat cell);
    a region with fewer cells than `count` gets landmarks repeated, which costs only time.

    Raises:
        ValueError: for an array `kernel.field_flat` refuses, a blocked `seed`, or a
            `count` outside 1 to 32 (what the compiled search takes).
    """
    if not 1 <= count <= 32:
        raise ValueError(f"count must be 1 to 32 landmarks, got {count!r}")
    began = time.perf_counter()
    # Built from a copy, so that the fields are those of the snapshot even if the caller's
    # array changes meanwhile (another thread). A frozen array cannot change: a view of it is
    # the snapshot, and the compiled search, given the same buffer twice, compares nothing. A
    # view, not the array: numpy hangs it on the array's base, so the fields kept for the array
    # do not keep the array itself alive (its cache entry goes when it dies).
    frozen = is_frozen(walkable) and walkable.dtype == np.bool_ and walkable.flags.c_contiguous
    snapshot = (
        walkable.view() if frozen else np.array(walkable, dtype=np.bool_, order="C", copy=True)
    )
    if snapshot.ndim != 2 or not 0 <= seed < snapshot.size or not snapshot.flat[seed]:
        raise ValueError(f"seed {seed} is not a walkable cell of a 2-D grid")
    nearest = kernel.field_flat(snapshot, None, seed, diagonal=DiagonalRule.NO_CORNER_CUTTING)
    cells: list[int] = []
    fields = np.empty((snapshot.size, count), dtype=np.float64)
    for index in range(count):
        cell = int(np.argmax(np.where(np.isfinite(nearest), nearest, -1.0)))
        cells.append(cell)
        fields[:, index] = kernel.field_flat(
            snapshot, None, cell, diagonal=DiagonalRule.NO_CORNER_CUTTING
        )
        nearest = fields[:, index] if index == 0 else np.minimum(nearest, fields[:, index])
    return Landmarks(tuple(cells), fields, snapshot, (time.perf_counter() - began) * 1000.0)


@dataclass(eq=False)
class _Entry:
    """One array's place in `search`: what its queries showed, and its fields once built."""

    expanded: list[int] = field(default_factory=list)
    probes: int = PROBE_QUERIES
    landmarks: Landmarks | None = None
    build_ms: float | None = None
    open_map: bool = False  # fields did not pay: jump tables may (`jump_cache`)
    edited: bool = False  # changed after a build: `jump_cache`'s index for good, no probing


_entries = ArrayCache(_Entry, max_arrays=MAX_ARRAYS)
_lock = _entries.lock


def search(walkable: NDArray[np.bool_], height: int, width: int, start: int, goal: int) -> Found:
    """`kernel.jps_search` (octile), with landmarks where they pay (see the module).

    The caller has made `kernel.jps_search`'s checks (a C-contiguous 2-D bool array of
    `height` x `width` with walkable flat cells `start` and `goal`). The cost is the plain
    search's; the cells may differ among paths of that cost, and `expanded` counts the jump
    points this search took off its frontier.
    """
    size = height * width
    if size < MIN_CELLS or size > MAX_CELLS or _near(start, goal, width):
        return kernel.jps_search(walkable, height, width, start, goal)
    # acquire / release: a `with` block costs twice as much, on every query.
    _lock.acquire()
    try:
        entry = _entries.entry_of(walkable)
        marks = entry.landmarks
    finally:
        _lock.release()
    if marks is not None:
        # A reshape in place keeps the bytes but moves every cell: C compares bytes only.
        same_shape = marks.snapshot.shape == (height, width)
        found = (
            kernel.jps_landmarks(walkable, height, width, start, goal, marks)
            if same_shape
            else None
        )
        if found is not None:
            return found
        with _lock:  # the array changed since the build: an edited array (see the module)
            if entry.landmarks is marks:
                entry.landmarks = None
                entry.open_map = entry.edited = True
        jump_cache.prefer(walkable)
    plain = jump_cache.search if entry.open_map else kernel.jps_search
    found = plain(walkable, height, width, start, goal)
    if found[0] and not entry.edited:
        entry.expanded.append(found[3])  # atomic: the decision below takes the lock
        if len(entry.expanded) >= entry.probes:
            _decide(walkable, entry, start)
    return found


def probes_left(walkable: NDArray[np.bool_]) -> int | None:
    """The found queries of `walkable` `search` counts before its next decision on fields.

    -1 when none is to come (an edited array); None unless `search` answers the array with
    the plain search now, fields judged not to pay (the plain lanes of
    `sim.navigation.searches.call_cache` count for it meanwhile, and hand the counts to
    `settle`).
    """
    with _lock:
        entry = _entries.get(walkable)
        if entry is None or entry.landmarks is not None or not entry.open_map:
            return None
        return -1 if entry.edited else max(entry.probes - len(entry.expanded), 1)


def probing_left(walkable: NDArray[np.bool_]) -> int | None:
    """The found queries of `walkable` before its first decision on fields; None if made."""
    with _lock:
        entry = _entries.get(walkable)
        if entry is None or entry.landmarks is not None or entry.open_map:
            return None
        return max(entry.probes - len(entry.expanded), 1)


def settle(walkable: NDArray[np.bool_], expanded: list[int], seed: int, touched: int = 0) -> None:
    """Count found queries of `walkable` that expanded `expanded` jump points, as `search` does.

    The decision their count makes due is made as `search` makes it (`seed`: the last one's
    start), the notes used at `touched` (``array_cache.clock``'s stamp of the last one).
    Nothing when the array's notes were dropped meanwhile (evicted or forgotten).
    """
    with _lock:
        entry = _entries.touch(walkable, touched)
        if entry is None or entry.edited:
            return
        entry.expanded.extend(expanded)
        due = len(entry.expanded) >= entry.probes
    if due:
        _decide(walkable, entry, seed)


def _near(start: int, goal: int, width: int) -> bool:
    """Whether flat cells `start` and `goal` lie within `NEAR_CELLS` rows and columns.

    Not counted as probes either: a query of a step or two would pull the probes' median down.
    """
    rows = start // width - goal // width
    cols = start % width - goal % width
    return -NEAR_CELLS <= rows <= NEAR_CELLS and -NEAR_CELLS <= cols <= NEAR_CELLS


def build_ms(walkable: NDArray[np.bool_]) -> float | None:
    """How long `search` took to build `walkable`'s landmarks last, in ms; None if it never did."""
    with _lock:
        entry = _entries.get(walkable)
        return None if entry is None else entry.build_ms


def landmarks_of(walkable: NDArray[np.bool_]) -> Landmarks | None:
    """The fields `search` uses for `walkable` now (None before a build, or after a change)."""
    with _lock:
        entry = _entries.get(walkable)
        return None if entry is None else entry.landmarks


def forget() -> None:
    """Drop every array's notes and fields (tests; memory)."""
    with _lock:
        _entries.clear()


def _decide(walkable: NDArray[np.bool_], entry: _Entry, seed: int) -> None:
    """Build `walkable`'s fields if its probed queries say they pay, else probe twice as long."""
    with _lock:
        if len(entry.expanded) < entry.probes:
            return  # another thread decided meanwhile
        pays = statistics.median(entry.expanded) > PAYS_EXPANDED
        entry.expanded.clear()
        if not pays:
            entry.probes = min(entry.probes * 2, MAX_PROBES)
            entry.open_map = True
            return
    # Built outside the lock (100-250 ms); a concurrent build of the same array only wastes time.
    marks = build(walkable, seed)
    with _lock:
        entry.landmarks = marks
        entry.build_ms = marks.build_ms
