"""The common query, answered without the general checks: a plain mask, two cells, defaults.

Most calls of `find_path` are the same shape: a C-contiguous 2-D bool numpy array, start and
goal as tuples of two ints, and every option at its default (so "auto" picks jump point
search). The general path (`Query.check`, then `kernel.solve`) spends some 15 microseconds of
Python on such a call before C starts: most of a query on a small map, and five times an
unreachable answer. `plan` checks exactly what that shape needs, in a few plain comparisons,
and calls the same C function with the same arguments, so it returns the very result the
general path would (a property test holds the two to it). Anything else, and every case that
ends in an error or an early "no path" reason, it leaves to the general path by returning None.

One difference, on large arrays only: an array of at least 256 x 256 cells queried again and
again may be searched with landmark distance fields (`sim.navigation.searches.landmarks.search`,
where its first queries show they pay). The cost is the general path's; the cells may be another
path of that cost, and `expanded` is what this search expanded, fewer.

An unreachable query proven here (`region_cache.known_apart_flat`) leaves its proof to
`region_cache.proven_apart`, which `find_path` asks first: the next unreachable query on the
same array, whichever its ends, is answered in C before this module runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.navigation.query import PathResult, Query, Reason
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches import kernel, landmarks

_UNREACHABLE = PathResult.none(Reason.UNREACHABLE)
"""One frozen answer for every proven-unreachable query: building one costs a microsecond."""


def plan(walkable: Any, start: Any, goal: Any) -> PathResult | None:
    """`find_path(walkable, start, goal)` with every option at its default, or None.

    None when the call is not the common shape (see the module) or when its answer is a
    ValueError or an early reason (start or goal blocked, goal outside the grid): the caller
    then runs the general path, which gives it in its own words.
    """
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
        return _UNREACHABLE
    found, cells, cost, expanded = landmarks.search(walkable, height, width, start_flat, goal_flat)
    if found:
        return PathResult(True, cells, cost, expanded, Reason.FOUND)
    result = PathResult(False, cells, cost, expanded, Reason.UNREACHABLE)
    region_cache.learn(Query.check(walkable, start, goal), result)
    return result
