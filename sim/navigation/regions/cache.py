"""The regions of the masks `find_path` sees, so that an unreachable goal is answered at once.

`find_path` asks `known_unreachable` after checking its query, and tells `learn` what a search
found. The cache keeps a `RegionMap` per mask (per numpy array object, by identity), built
lazily: the first query on an array pays nothing but a note; the second query on the same
array labels it, and so does a search that comes back unreachable (so the repeat is instant).
From then on, a start and goal in different regions whose smaller region is still sealed (its
boundary cells all blocked) are unreachable, proven in time that depends on that boundary
and not on the grid; when the proof fails the map catches up with the array (a diff against
its snapshot) and decides exactly. Start and goal in the same region say nothing: the search
runs. So an answer is never stale: an array edited in place between queries is read as it is.

Arrays are held weakly (the cache never keeps one alive) in a small LRU of `MAX_ARRAYS`, and
labelled maps use at most `MAX_LABELLED_CELLS` cells between them. Clearance variants (an
agent's usable cells) are other arrays, with their own entries. Maps are keyed by the
connectivity rule too (`rule_of`): one labelling serves the "never" and "no-corner-cutting"
diagonal rules alike (`sim.navigation.regions.labels`). The rules that pass blocked corners
("one-obstacle", "always") join cells those regions keep apart, and the cache does not label
them: their queries always search (`rule_of` is None for them).

The last proof `known_apart_flat` made is also kept in C (`proven_apart`), which `find_path`
asks before any Python: a later unreachable query on the same array costs about a
microsecond.

An owner that edits an array in place and knows which cells it changed (the app's grid) may
call `cells_changed`, which keeps the labels current without a diff. Thread-safe: one lock
guards the cache.

>>> import numpy as np
>>> from sim.navigation import find_path
>>> walkable = np.array([[1, 0, 1]], dtype=bool)
>>> first = find_path(walkable, (0, 0), (0, 2))  # searches, finds nothing, labels the array
>>> again = find_path(walkable, (0, 0), (0, 2))  # proven unreachable before any search
>>> first.expanded, again.expanded, again.reason
(1, 0, <Reason.UNREACHABLE: 'unreachable'>)
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule, parse_diagonal
from sim.navigation.grid import Cell
from sim.navigation.query import PathResult, Query, Reason
from sim.navigation.regions.labels import RegionMap

APART_AVAILABLE: bool
"""Whether the compiled unreachable answer (`_apart.c`, see `proven_apart`) imported."""
try:
    from sim.navigation.regions import _apart

    APART_AVAILABLE = True
except ImportError:  # pragma: no cover - depends on the build
    APART_AVAILABLE = False

MAX_ARRAYS = 8
"""The arrays the cache follows at once; the least recently queried goes first."""
MAX_LABELLED_CELLS = 1 << 24
"""The cells the labelled maps may cover between them (about 5 bytes each)."""
NO_CORNER_CUTTING = "no-corner-cutting"
"""The connectivity rule of `find_path`'s moves, 4- and 8-connected (see `rule_of`)."""


@dataclass(eq=False)
class _Entry:
    """One array's place in the cache: a weak reference, and its maps once labelled."""

    ref: weakref.ref[NDArray[np.bool_]]
    used: int
    maps: dict[str, RegionMap] = field(default_factory=dict)


_lock = threading.Lock()
_entries: dict[int, _Entry] = {}  # by id(array), checked against the weak reference
_clock = itertools.count()


def rule_of(rule: DiagonalRule) -> str | None:
    """The connectivity rule whose regions a query moving by `rule` needs, if cached.

    "never" and "no-corner-cutting" share one: with no corner cutting, 8-connected regions
    are 4-connected regions (`sim.navigation.regions.labels`). None for "one-obstacle" and
    "always", whose regions the cache does not keep.

    >>> rule_of(DiagonalRule.NEVER), rule_of(DiagonalRule.ALWAYS)
    ('no-corner-cutting', None)
    """
    if rule in (DiagonalRule.NEVER, DiagonalRule.NO_CORNER_CUTTING):
        return NO_CORNER_CUTTING
    return None


def known_unreachable(query: Query) -> bool:
    """Whether `query`'s goal is proven unreachable from its start before any search.

    False when it may be reachable, when start or goal is blocked or the goal lies outside
    the grid (the search says why), and on the first query with an array; the second labels
    the array. Costs a dictionary lookup on an unlabelled array, two label lookups when start
    and goal share a region, one boundary check when they do not.
    """
    return known_apart(query.walkable, query.start, query.goal, query.rule)


def known_apart(walkable: NDArray[np.bool_], start: Cell, goal: Cell, rule: DiagonalRule) -> bool:
    """`known_unreachable` for a query given by its parts (`start` inside the grid)."""
    labels = rule_of(rule)
    if labels is None:
        return False
    # acquire / release: a `with` block costs twice as much, on every find_path.
    _lock.acquire()
    try:
        entry = _entries.get(id(walkable))
        if entry is None or entry.ref() is not walkable:
            _follow(walkable)
            return False
        entry.used = next(_clock)
        regions = entry.maps.get(labels)
        if regions is None:
            regions = _label(entry, walkable, labels)
        try:
            return regions.apart(walkable, start, goal)
        except ValueError:  # the array was reshaped in place since it was labelled
            return _label(entry, walkable, labels).apart(walkable, start, goal)
    finally:
        _lock.release()


def _never_proven(walkable: object, start: object, goal: object) -> bool:
    """`proven_apart` without the extension: the Python path decides every query."""
    return False


proven_apart: Callable[[Any, Any, Any], bool] = _apart.apart if APART_AVAILABLE else _never_proven
"""`proven_apart(walkable, start, goal)`: the last proof `known_apart_flat` made, asked again.

For `find_path`'s common call, before anything else: True only where `known_apart_flat` would
prove the query unreachable from the same map (the same array, its map unchanged since, both
ends walkable tuples of two ints in the grid, in different regions whose smaller one is still
sealed); False means "not proven here", never "reachable". In C (`_apart`: well under a
microsecond) when built, else always False. Takes no lock: the map moves its `version` on
before it changes, and the C call holds the GIL throughout.
"""


def known_apart_flat(walkable: NDArray[np.bool_], start_flat: int, goal_flat: int) -> bool:
    """`known_apart` under the no-corner-cutting rule for flat cells the caller has checked.

    Both cells must be walkable cells of `walkable` now (`sim.navigation.hot_path` checks
    that first); the answer is `known_apart`'s for them. A proof is remembered for
    `proven_apart`, so that the next unreachable query on the array is answered in C.
    """
    _lock.acquire()
    try:
        entry = _entries.get(id(walkable))
        if entry is None or entry.ref() is not walkable:
            _follow(walkable)
            return False
        entry.used = next(_clock)
        regions = entry.maps.get(NO_CORNER_CUTTING)
        if regions is None or regions.shape != walkable.shape:
            regions = _label(entry, walkable, NO_CORNER_CUTTING)
        apart = regions.apart_flat(walkable, start_flat, goal_flat)
        if apart and APART_AVAILABLE:
            _apart.remember(walkable, regions, *regions.proof_parts())
        return apart
    finally:
        _lock.release()


def learn(query: Query, result: PathResult) -> None:
    """Prime the cache with a search's outcome: after "unreachable" the repeat is instant.

    Labels the array (or brings its labels up to date) and builds the boundary the next
    `known_unreachable` will check. Anything but `Reason.UNREACHABLE` is ignored.
    """
    rule = rule_of(query.rule)
    if result.reason is not Reason.UNREACHABLE or rule is None:
        return
    with _lock:
        regions = _current_map(query.walkable, rule)
        regions.prepare(query.start, query.goal)


def apart_now(
    walkable: NDArray[np.bool_], start: Cell, goal: Cell, *, diagonal: bool | str
) -> bool:
    """Whether `start` cannot reach `goal` in `walkable` now, decided exactly (no search).

    Labels the array on first use and compares it with its snapshot on every call (a few
    microseconds at 512 x 512 when unchanged): for callers that pay as much already. Both
    cells must be walkable cells of the grid; else False. Also False (undecided) under the
    "one-obstacle" and "always" rules, whose regions the cache does not keep. `diagonal` is
    a rule, or True, False or a rule's name (`sim.navigation.diagonal.parse_diagonal`).
    """
    rule = rule_of(parse_diagonal(diagonal))
    if rule is None:
        return False
    with _lock:
        return _current_map(walkable, rule).apart(walkable, start, goal)


def followed_map(walkable: NDArray[np.bool_], rule: DiagonalRule) -> RegionMap | None:
    """The map of `walkable` brought up to date with it, or None on the first query.

    `known_apart`'s laziness for callers that read the labels themselves (the answer with
    links, `sim.navigation.regions.linked`): the first query on an array only follows it;
    from the second the array is labelled and kept current. None too under the rules the
    cache does not label.
    """
    labels = rule_of(rule)
    if labels is None:
        return None
    with _lock:
        entry = _entries.get(id(walkable))
        if entry is None or entry.ref() is not walkable:
            _follow(walkable)
            return None
        return _current_map(walkable, labels)


def cells_changed(walkable: NDArray[np.bool_], cells: NDArray[np.integer]) -> None:
    """Tell the cache that the flat `cells` of `walkable` (edited in place) may have changed.

    Keeps a labelled map current at the cost of those cells, without a diff later; free when
    the array is not labelled. Cells that did not change are ignored. The cache stays right
    without this call: it only saves the diff.
    """
    with _lock:
        entry = _entries.get(id(walkable))
        if entry is None or entry.ref() is not walkable:
            return
        for regions in entry.maps.values():
            if regions.shape == walkable.shape:
                regions.update(walkable, cells)


def labelled(walkable: NDArray[np.bool_], *, diagonal: bool | str = True) -> RegionMap | None:
    """The cache's map of `walkable` if it has labelled one, else None; for looking only.

    The map as it stands: maybe behind the array until the next query catches up. None
    under the rules the cache does not label ("one-obstacle", "always"). `diagonal` as for
    `apart_now`.
    """
    rule = rule_of(parse_diagonal(diagonal))
    if rule is None:
        return None
    with _lock:
        entry = _entries.get(id(walkable))
        if entry is None or entry.ref() is not walkable:
            return None
        return entry.maps.get(rule)


def clear() -> None:
    """Forget every array (tests start from an empty cache)."""
    with _lock:
        _entries.clear()
        if APART_AVAILABLE:
            _apart.forget()


def followed() -> int:
    """How many arrays the cache follows now (labelled or not)."""
    with _lock:
        return len(_entries)


def _current_map(walkable: NDArray[np.bool_], rule: str) -> RegionMap:
    """The map of `walkable` under `rule`, labelled now or brought up to date with it."""
    entry = _entries.get(id(walkable))
    if entry is None or entry.ref() is not walkable:
        entry = _follow(walkable)
    entry.used = next(_clock)
    regions = entry.maps.get(rule)
    if regions is None or regions.shape != walkable.shape:
        return _label(entry, walkable, rule)
    regions.update(walkable)
    return regions


def _follow(walkable: NDArray[np.bool_]) -> _Entry:
    """Start following `walkable` (unlabelled), dropping the least recently used past the cap."""
    key = id(walkable)

    def forget(_: object) -> None:
        # The array died: its id may be reused by the next one. Called during the array's
        # deallocation, maybe with the lock held by this thread: never wait for it.
        if _lock.acquire(blocking=False):
            try:
                entry = _entries.get(key)
                if entry is not None and entry.ref() is None:
                    del _entries[key]
            finally:
                _lock.release()

    entry = _Entry(weakref.ref(walkable, forget), next(_clock))
    _entries[key] = entry
    if len(_entries) > MAX_ARRAYS:
        oldest = min(_entries, key=lambda other: _entries[other].used)
        del _entries[oldest]
    return entry


def _label(entry: _Entry, walkable: NDArray[np.bool_], rule: str) -> RegionMap:
    """Label `walkable` for `entry`, unlabelling the oldest maps past `MAX_LABELLED_CELLS`."""
    regions = RegionMap(walkable)
    entry.maps[rule] = regions
    budget = MAX_LABELLED_CELLS
    for other in sorted(_entries.values(), key=lambda other: -other.used):
        for other_rule, other_map in list(other.maps.items()):
            budget -= other_map.shape[0] * other_map.shape[1]
            if budget < 0 and other_map is not regions:
                del other.maps[other_rule]
    return regions
