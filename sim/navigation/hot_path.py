"""The common query, answered without the general checks: a plain mask, two cells, defaults.

Most calls of `find_path` are the same shape: a C-contiguous 2-D bool numpy array, start and
goal as tuples of two ints, and every option at its default (so "auto" picks jump point
search). The general path (`Query.check`, then `kernel.solve`) spends some 15 microseconds of
Python on such a call before C starts: most of a query on a small map, and five times an
unreachable answer. `plan` checks exactly what that shape needs, in a few plain comparisons,
and calls the same C function with the same arguments, so it returns the very result the
general path would (a property test holds the two to it). Anything else, and every case that
ends in an error or an early "no path" reason, it leaves to the general path by returning
None.

An unreachable query asked again and again, as a script or a benchmark does, keeps its proof
(the boundary of the smaller region, `sim.navigation.regions`) from its second asking: the
next ones check that the boundary is still all blocked and both ends still walkable, and
answer. Different unreachable queries each ask `region_cache`.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation import kernel, region_cache
from sim.navigation.query import PathResult, Query, Reason
from sim.navigation.regions import all_blocked

_UNREACHABLE = PathResult.none(Reason.UNREACHABLE)
"""One frozen answer for every proven-unreachable query: building one costs a microsecond."""


class _Proof:
    """The last unreachable query and what proves it: its array, ends and sealed boundary."""

    __slots__ = ("array", "boundary", "goal", "goal_flat", "shape", "start", "start_flat")

    def __init__(
        self,
        walkable: NDArray[np.bool_],
        start: tuple[int, int],
        goal: tuple[int, int],
        start_flat: int,
        goal_flat: int,
        boundary: NDArray[np.int64],
    ) -> None:
        self.array = weakref.ref(walkable)
        self.shape = walkable.shape
        self.start, self.goal = start, goal
        self.start_flat, self.goal_flat = start_flat, goal_flat
        self.boundary = boundary

    def holds(self, walkable: Any, start: Any, goal: Any) -> bool:
        """Whether this proof answers `find_path(walkable, start, goal)` now: unreachable."""
        array = self.array()
        if not (
            array is not None
            and array is walkable
            and self.start == start
            and self.goal == goal
            and array.shape == self.shape
            and array.item(self.start_flat)
            and array.item(self.goal_flat)
        ):
            return False
        try:
            return all_blocked(array, self.boundary)
        except ValueError:  # its strides were changed in place: no longer C-contiguous
            return False


_last_proof: _Proof | None = None
_last_unreachable: tuple[int, tuple[int, int], tuple[int, int]] | None = None
"""The last query `region_cache` proved unreachable: a proof is kept once one repeats."""


def plan(walkable: Any, start: Any, goal: Any) -> PathResult | None:
    """`find_path(walkable, start, goal)` with every option at its default, or None.

    None when the call is not the common shape (see the module) or when its answer is a
    ValueError or an early reason (start or goal blocked, goal outside the grid): the caller
    then runs the general path, which gives it in its own words.
    """
    global _last_proof
    proof = _last_proof
    if proof is not None and proof.holds(walkable, start, goal):
        return _UNREACHABLE
    if not (
        kernel.JPS_AVAILABLE
        and type(walkable) is np.ndarray
        and walkable.ndim == 2
        and walkable.dtype.char == "?"
        and walkable.flags.c_contiguous
        and type(start) is tuple
        and type(goal) is tuple
        and len(start) == 2
        and len(goal) == 2
    ):
        return None
    start_row, start_col = start
    goal_row, goal_col = goal
    if not (
        type(start_row) is int
        and type(start_col) is int
        and type(goal_row) is int
        and type(goal_col) is int
    ):
        return None
    height, width = walkable.shape
    if not (
        0 <= start_row < height
        and 0 <= start_col < width
        and 0 <= goal_row < height
        and 0 <= goal_col < width
    ):
        return None
    start_flat = start_row * width + start_col
    goal_flat = goal_row * width + goal_col
    if not (walkable.item(start_flat) and walkable.item(goal_flat)):
        return None
    if region_cache.known_apart_flat(walkable, start_flat, goal_flat):
        global _last_unreachable
        asked = (id(walkable), start, goal)
        if _last_unreachable == asked:  # asked twice in a row: keep its proof for the next
            _last_proof = _prove(walkable, start, goal, start_flat, goal_flat)
        _last_unreachable = asked
        return _UNREACHABLE
    found, cells, cost, expanded = kernel.jps_search(walkable, height, width, start_flat, goal_flat)
    if found:
        return PathResult(True, cells, cost, expanded, Reason.FOUND)
    result = PathResult(False, cells, cost, expanded, Reason.UNREACHABLE)
    region_cache.learn(Query.check(walkable, start, goal), result)
    return result


def _prove(
    walkable: NDArray[np.bool_],
    start: tuple[int, int],
    goal: tuple[int, int],
    start_flat: int,
    goal_flat: int,
) -> _Proof | None:
    """The proof `region_cache` just used for an unreachable answer, kept for the repeat."""
    regions = region_cache.labelled(walkable)
    if regions is None:
        return None
    start_region, goal_region = regions.region_of(start), regions.region_of(goal)
    if start_region < 0 or goal_region < 0 or start_region == goal_region:
        return None
    smaller = start if regions.size_of(start_region) <= regions.size_of(goal_region) else goal
    return _Proof(walkable, start, goal, start_flat, goal_flat, regions.boundary(smaller))
