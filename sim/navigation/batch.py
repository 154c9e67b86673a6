"""`find_paths`: many start/goal pairs on one mask in one call, each answered as `find_path` would.

A crowd, a scenario file or a benchmark asks for hundreds of paths on the same array. One
`find_path` per pair pays its fixed cost (a microsecond or two of Python) every time; on a small
map that is most of a query. `find_paths` checks the options and the mask once, the pairs as
two integer arrays at once, labels the mask's regions once (as `find_path` does from its second
query on an array), and then runs the searches back to back: the compiled best-first kernel
takes every pair in one C loop with the GIL released (`kernel_batch.batch`), and so does jump
point search (`kernel_batch.jps_batch`) except where landmarks or jump tables may pay (one call
per pair there). Pairs that end early (a goal outside the grid, a blocked end) and searches C
does not run go through `find_path_with` one by one: the same answer, the same error, in the
same words.
"""

from __future__ import annotations

from typing import Unpack

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sim.navigation.pathfinder import SearchOptions, find_path_with
from sim.navigation.query import (
    Algorithm,
    PathResult,
    Query,
    Reason,
    SearchSettings,
)
from sim.navigation.regions import cache as region_cache

_UNREACHABLE = PathResult.none(Reason.UNREACHABLE)
"""One frozen answer for every pair proven unreachable by the regions."""


def find_paths(
    walkable: NDArray[np.bool_],
    starts: ArrayLike,
    goals: ArrayLike,
    **options: Unpack[SearchOptions],
) -> list[PathResult]:
    """Find a path for every pair ``starts[i] -> goals[i]`` on one mask: `find_path`'s answers.

    Args:
        walkable: as for `sim.navigation.find_path`.
        starts: the first cells, ``(row, col)`` each: an ``(N, 2)`` integer array or a
            sequence of N pairs.
        goals: the last cells, the same form and length as `starts`.
        **options: `find_path`'s options but `links` (`SearchOptions`: `diagonal`,
            `heuristic`, `algorithm`, `costs`, `weight`, `implementation`), with its
            defaults; they hold for every pair.

    Returns:
        One `PathResult` per pair, in order: result ``i`` is what
        ``find_path(walkable, starts[i], goals[i], ...)`` returns once the array's regions are
        labelled (from its second query): the same cells, cost, expanded count and reason; a
        pair whose goal lies in another region than its start is ``unreachable`` with
        ``expanded == 0``. With every option at its default, arrays of 256 x 256 cells or more
        may use landmark fields as `find_path` does (the same cost; cells of another shortest
        path). No pairs, no results.

    Raises:
        ValueError: the error the first failing `find_path` call of the sequence would raise
            (options, mask, costs, a start outside the grid), in its words; and for `starts` or
            `goals` that are not N pairs of integers, or not as many goals as starts.

    >>> walkable = np.array([[1, 1, 1], [0, 1, 1], [1, 1, 1]], dtype=bool)
    >>> results = find_paths(walkable, [(0, 0), (0, 0)], [(2, 0), (1, 0)])
    >>> [result.cost for result in results], results[1].reason
    ([4.0, inf], <Reason.GOAL_BLOCKED: 'goal blocked'>)
    >>> costs = find_paths(walkable, np.array([[0, 0]]), np.array([[2, 2]]), algorithm="astar")
    >>> round(costs[0].cost, 4)
    3.4142
    """
    settings = SearchSettings.parse(**options)
    start_cells, goal_cells = _pairs(starts, "starts"), _pairs(goals, "goals")
    if len(start_cells) != len(goal_cells):
        raise ValueError(f"{len(start_cells)} starts but {len(goal_cells)} goals")
    if len(start_cells) == 0:
        return []
    query = Query.check(walkable, _cell(start_cells[0]), _cell(goal_cells[0]), settings)
    # Imported here, as `find_path_with` does: importing kernel warns once when the extension
    # is not built, and importing sim.navigation should not.
    from sim.navigation.searches import kernel, kernel_batch

    grid = np.ascontiguousarray(query.walkable)
    first, starts_flat, goals_flat, searchable = kernel_batch.flat_pairs(
        grid, start_cells, goal_cells
    )
    if first >= 0:
        # The first start outside the grid: find_path_with raises its error.
        find_path_with(walkable, _cell(start_cells[first]), _cell(goal_cells[first]), settings)
    results: list[PathResult | None] = [None] * len(start_cells)
    if searchable.any():
        searchable = _apart(query, starts_flat, goals_flat, searchable, results)
    if kernel.choose(settings.implementation, query.algorithm):
        chosen = np.flatnonzero(searchable)
        found = _search(query, settings, starts_flat[chosen], goals_flat[chosen])
        if len(found) == len(results):
            return found  # every pair searched: nothing to merge
        for index, result in zip(chosen.tolist(), found, strict=True):
            results[index] = result
    for index, known in enumerate(results):
        if known is None:
            results[index] = find_path_with(
                walkable, _cell(start_cells[index]), _cell(goal_cells[index]), settings
            )
    return [result for result in results if result is not None]


def _pairs(cells: ArrayLike, name: str) -> NDArray[np.int64]:
    """`cells` as an ``(N, 2)`` int64 array, or ValueError naming `name`."""
    array = np.asarray(cells)
    if array.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if array.ndim != 2 or array.shape[1] != 2 or array.dtype.kind not in "iu":
        raise ValueError(
            f"{name} must be N (row, col) pairs of integers, got a {array.ndim}-D "
            f"{array.dtype} array of shape {array.shape}"
        )
    return np.ascontiguousarray(array, dtype=np.int64)


def _cell(pair: NDArray[np.int64]) -> tuple[int, int]:
    row, col = pair.tolist()
    return row, col


def _apart(
    query: Query,
    starts_flat: NDArray[np.int64],
    goals_flat: NDArray[np.int64],
    searchable: NDArray[np.bool_],
    results: list[PathResult | None],
) -> NDArray[np.bool_]:
    """Answer the pairs the regions prove unreachable; return the pairs left to search.

    The labels are brought up to date with the array first (`region_cache.apart_now`), so
    "another region" is exact, as it is for `find_path` on a labelled array.
    """
    if region_cache.rule_of(query.rule) is None:
        return searchable
    first = int(np.argmax(searchable))
    width = query.walkable.shape[1]
    start, goal = divmod(int(starts_flat[first]), width), divmod(int(goals_flat[first]), width)
    region_cache.apart_now(query.walkable, start, goal, diagonal=query.rule.value)
    regions = region_cache.labelled(query.walkable, diagonal=query.rule.value)
    if regions is None:  # pragma: no cover - apart_now has just labelled it
        return searchable
    labels = regions.labels.reshape(-1)
    apart = searchable & (labels[starts_flat] != labels[goals_flat])
    for index in np.flatnonzero(apart).tolist():
        results[index] = _UNREACHABLE
    left: NDArray[np.bool_] = searchable & ~apart
    return left


def _search(
    query: Query,
    settings: SearchSettings,
    starts_flat: NDArray[np.int64],
    goals_flat: NDArray[np.int64],
) -> list[PathResult]:
    """The search of every pair (walkable ends inside the grid) as `find_path` runs it in C."""
    from sim.navigation.searches import kernel, kernel_batch, landmarks

    grid = np.ascontiguousarray(query.walkable)
    height, width = grid.shape
    if query.algorithm is not Algorithm.JPS:
        return kernel_batch.batch(query, starts_flat, goals_flat)
    # The common settings go the way `sim.navigation.hot_path` sends them: landmarks and jump
    # tables, decided per array, one call per pair, on the arrays where they may pay; one C call
    # for all pairs (`kernel_batch.jps_batch`) everywhere else.
    if settings.common and landmarks.MIN_CELLS <= height * width <= landmarks.MAX_CELLS:
        pairs = zip(starts_flat.tolist(), goals_flat.tolist(), strict=True)
        return [
            kernel.path_result(landmarks.search(grid, height, width, start, goal))
            for start, goal in pairs
        ]
    return kernel_batch.jps_batch(grid, starts_flat, goals_flat, query.heuristic.code)
