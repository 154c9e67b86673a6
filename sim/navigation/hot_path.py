"""The common query, answered without the general checks: a plain mask, two cells, defaults.

Most calls of `find_path` are the same shape: a C-contiguous 2-D bool numpy array, start and
goal as tuples of two ints, and every option at its default (so "auto" picks jump point
search). The general path (`Query.check`, then `kernel.solve`) spends some 15 microseconds of
Python on such a call before C starts: most of a query on a small map, and five times an
unreachable answer. `plan` checks exactly what that shape needs, in one C call
(`kernel.flat_ends`, shared with `sim.navigation.prepared`), and calls the same C function
with the same arguments, so it returns the very result the
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

from sim.navigation.query import PathResult, Query, Reason
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches import kernel, landmarks

_UNREACHABLE = PathResult.none(Reason.UNREACHABLE)
"""One frozen answer for every proven-unreachable query: building one costs a microsecond."""


def plan(walkable: Any, start: Any, goal: Any) -> PathResult | None:
    """`find_path(walkable, start, goal)` with every option at its default, or None.

    None when the call is not the common shape (`kernel.flat_ends`, the checks
    `sim.navigation.prepared` shares) or when its answer is a ValueError or an early reason
    (start or goal blocked, goal outside the grid): the caller then runs the general path,
    which gives it in its own words.
    """
    if not kernel.JPS_AVAILABLE:
        return None
    ends = kernel.flat_ends(walkable, start, goal)
    if ends is None:
        return None
    height, width, start_flat, goal_flat = ends
    if region_cache.known_apart_flat(walkable, start_flat, goal_flat):
        return _UNREACHABLE
    result = kernel.path_result(landmarks.search(walkable, height, width, start_flat, goal_flat))
    if not result.found:
        region_cache.learn(Query.check(walkable, start, goal), result)
    return result
