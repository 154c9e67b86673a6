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
same words. With ``as_arrays=True`` the answers come back as one `PathBatch` of numpy arrays,
which the C loops write themselves (``_flat_path.h``): no Python object a pair.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Unpack, overload

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

if TYPE_CHECKING:
    from sim.navigation.searches.kernel import FlatAnswer
    from sim.navigation.searches.kernel_batch import FlatBatch

_UNREACHABLE = PathResult.none(Reason.UNREACHABLE)
"""One frozen answer for every pair proven unreachable by the regions."""

REASONS: tuple[Reason, ...] = tuple(Reason)
"""`PathBatch.reason`'s codes: code ``k`` is ``REASONS[k]`` (0 is `Reason.FOUND`)."""
_CODE = {reason: code for code, reason in enumerate(REASONS)}


@dataclass(frozen=True, slots=True, eq=False)
class PathBatch:
    """`find_paths`' answers as numpy arrays: what a crowd or a numpy user reads, pair by pair.

    Pair ``i``'s answer is ``found[i]``, ``cost[i]``, ``expanded[i]``, ``REASONS[reason[i]]``
    and the path ``cells[offsets[i]:offsets[i + 1]]``: its flat cells (``row * width + col``),
    start and goal included, none when not found. ``batch[i]`` is the `PathResult` the list form
    of `find_paths` returns for that pair, equal field by field. Where the search runs in C the
    arrays are filled there: no Python object is made a pair until one is asked for. The arrays
    are read-only: the answers of one call, not a buffer to reuse.

    Attributes:
        width: the grid's width, to turn a flat cell into ``(row, col)`` (``divmod``).
        found: bool, whether pair ``i`` has a path.
        cost: float64, the path's cost (``inf`` when not found).
        expanded: int64, cells expanded by pair ``i``'s search.
        reason: int8, a code of `REASONS`: how pair ``i``'s search ended.
        lengths: int64, cells in pair ``i``'s path (0 when not found).
        offsets: int64, ``len(found) + 1`` starts in `cells`: ``offsets[0] == 0`` and
            ``offsets[i + 1] - offsets[i] == lengths[i]``.
        cells: int32, every found path's flat cells, path after path in pair order.

    >>> walkable = np.array([[1, 1, 1], [0, 1, 1], [1, 1, 1]], dtype=bool)
    >>> batch = find_paths(walkable, [(0, 0), (0, 0)], [(2, 0), (1, 0)], as_arrays=True)
    >>> batch.found, batch.cost, batch.lengths
    (array([ True, False]), array([ 4., inf]), array([5, 0]))
    >>> batch.path(0).tolist()
    [[0, 0], [0, 1], [1, 1], [2, 1], [2, 0]]
    >>> REASONS[batch.reason[1]], batch[1] == PathResult.none(Reason.GOAL_BLOCKED)
    (<Reason.GOAL_BLOCKED: 'goal blocked'>, True)
    """

    width: int
    found: NDArray[np.bool_]
    cost: NDArray[np.float64]
    expanded: NDArray[np.int64]
    reason: NDArray[np.int8]
    lengths: NDArray[np.int64]
    offsets: NDArray[np.int64]
    cells: NDArray[np.int32]

    @classmethod
    def of(cls, results: Sequence[PathResult], width: int) -> PathBatch:
        """The answers `results` (of a grid `width` cells wide) as a batch.

        A flat path a C search left in a result is copied as it is, never laid out as pairs.
        """
        from sim.navigation.searches import lazy_cells

        paths = [lazy_cells.flat_cells(result, width) for result in results]
        lengths = np.array([len(path) for path in paths], dtype=np.int64)
        cells = np.concatenate(paths) if paths else np.empty(0, dtype=np.int32)
        return cls._frozen(
            width,
            np.array([result.found for result in results], dtype=np.bool_),
            np.array([result.cost for result in results], dtype=np.float64),
            np.array([result.expanded for result in results], dtype=np.int64),
            np.array([_CODE[result.reason] for result in results], dtype=np.int8),
            lengths,
            cells.astype(np.int32, copy=False),
        )

    @classmethod
    def _frozen(
        cls,
        width: int,
        found: NDArray[np.bool_],
        cost: NDArray[np.float64],
        expanded: NDArray[np.int64],
        reason: NDArray[np.int8],
        lengths: NDArray[np.int64],
        cells: NDArray[np.int32],
    ) -> PathBatch:
        """A batch of these arrays, its offsets summed from `lengths`, every array read-only."""
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        arrays = (found, cost, expanded, reason, lengths, offsets, cells)
        for array in arrays:
            array.flags.writeable = False
        return cls(width, *arrays)

    def __len__(self) -> int:
        return len(self.found)

    def __getitem__(self, index: int) -> PathResult:
        """Pair `index`'s answer as the `PathResult` of the list form (negative counts back)."""
        at = range(len(self.found))[index]  # IndexError in Python's words
        reason = REASONS[self.reason[at]]
        expanded = int(self.expanded[at])
        if reason is not Reason.FOUND:
            return PathResult.none(reason, expanded)
        from sim.navigation.searches import kernel

        flat = np.empty(self.lengths[at] + 1, dtype=np.int32)
        flat[0] = self.width
        flat[1:] = self.cells[self.offsets[at] : self.offsets[at + 1]]
        # A flat path, laid out as (row, col) pairs when first read, as the C searches answer.
        return kernel.path_result((True, flat.tobytes(), float(self.cost[at]), expanded))

    def path(self, index: int) -> NDArray[np.int64]:
        """Pair `index`'s path as an ``(L, 2)`` array of ``(row, col)``; ``(0, 2)`` when none."""
        at = range(len(self.found))[index]
        flat = self.cells[self.offsets[at] : self.offsets[at + 1]].astype(np.int64)
        return np.stack(np.divmod(flat, max(self.width, 1)), axis=1)

    def results(self) -> list[PathResult]:
        """Every pair's `PathResult`, in order: what the list form of `find_paths` returns."""
        return [self[index] for index in range(len(self.found))]


@overload
def find_paths(
    walkable: NDArray[np.bool_],
    starts: ArrayLike,
    goals: ArrayLike,
    *,
    as_arrays: Literal[False] = ...,
    **options: Unpack[SearchOptions],
) -> list[PathResult]: ...
@overload
def find_paths(
    walkable: NDArray[np.bool_],
    starts: ArrayLike,
    goals: ArrayLike,
    *,
    as_arrays: Literal[True],
    **options: Unpack[SearchOptions],
) -> PathBatch: ...


def find_paths(
    walkable: NDArray[np.bool_],
    starts: ArrayLike,
    goals: ArrayLike,
    *,
    as_arrays: bool = False,
    **options: Unpack[SearchOptions],
) -> list[PathResult] | PathBatch:
    """Find a path for every pair ``starts[i] -> goals[i]`` on one mask: `find_path`'s answers.

    Args:
        walkable: as for `sim.navigation.find_path`.
        starts: the first cells, ``(row, col)`` each: an ``(N, 2)`` integer array or a
            sequence of N pairs.
        goals: the last cells, the same form and length as `starts`.
        as_arrays: answer with one `PathBatch` (numpy arrays) instead of a list.
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
        path). No pairs, no results. With `as_arrays`, the same answers as one `PathBatch`
        (``batch[i] == results[i]``), filled in C where the searches run there.

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
    fast = _planned(walkable, starts, goals, as_arrays, options)
    if fast is not None:
        return fast
    settings = SearchSettings.parse(**options)
    start_cells, goal_cells = _pairs(starts, "starts"), _pairs(goals, "goals")
    if len(start_cells) != len(goal_cells):
        raise ValueError(f"{len(start_cells)} starts but {len(goal_cells)} goals")
    if len(start_cells) == 0:
        return PathBatch.of([], 0) if as_arrays else []
    query = Query.check(walkable, _cell(start_cells[0]), _cell(goal_cells[0]), settings)
    # Imported here, as `find_path_with` does: importing kernel warns once when the extension
    # is not built, and importing sim.navigation should not.
    from sim.navigation.searches import kernel, kernel_batch

    grid = np.ascontiguousarray(query.walkable)
    width = grid.shape[1]
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
        if as_arrays:
            if len(chosen) == len(results):  # every pair searched: nothing to merge
                flat = _search_arrays(query, settings, starts_flat, goals_flat)
                return _merged(flat, chosen, [], width)
            for index in np.flatnonzero(~searchable).tolist():
                if results[index] is None:
                    results[index] = find_path_with(
                        walkable, _cell(start_cells[index]), _cell(goal_cells[index]), settings
                    )
            flat = _search_arrays(query, settings, starts_flat[chosen], goals_flat[chosen])
            return _merged(flat, chosen, results, width)
        found = _search(query, settings, starts_flat[chosen], goals_flat[chosen])
        if len(found) == len(results) and not as_arrays:
            return found  # every pair searched: nothing to merge
        for index, result in zip(chosen.tolist(), found, strict=True):
            results[index] = result
    for index, known in enumerate(results):
        if known is None:
            results[index] = find_path_with(
                walkable, _cell(start_cells[index]), _cell(goal_cells[index]), settings
            )
    answers = [result for result in results if result is not None]
    return PathBatch.of(answers, width) if as_arrays else answers


def _planned(
    walkable: Any, starts: ArrayLike, goals: ArrayLike, as_arrays: bool, options: SearchOptions
) -> list[PathResult] | PathBatch | None:
    """`find_paths` for options seen before and a plain mask: one C call, few checks; else None.

    The options are checked once (`kernel_batch.plan_of`), the array here as `flat_ends` checks
    it, the pairs as always; whatever `kernel_batch.run_plan` leaves (a blocked or outside end,
    labels that put a pair's ends apart, a pair that found no path) the checked path answers.
    """
    if not (
        type(walkable) is np.ndarray
        and walkable.ndim == 2
        and walkable.dtype == np.bool_
        and walkable.flags.c_contiguous
        and walkable.size > 0
    ):
        return None
    from sim.navigation.searches import kernel_batch

    plan = kernel_batch.plan_of(dict(options))
    if plan is None:
        return None
    start_cells, goal_cells = _pairs(starts, "starts"), _pairs(goals, "goals")
    if len(start_cells) != len(goal_cells) or len(start_cells) == 0:
        return None
    found = kernel_batch.run_plan(plan, walkable, start_cells, goal_cells, as_arrays=as_arrays)
    if found is None or isinstance(found, list):
        return found
    # Every pair searched in C: its arrays are the batch's as they are (`_merged`'s first case).
    return PathBatch(walkable.shape[1], *map(np.frombuffer, found, _FLAT_TYPES))


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

    `searchable` is changed in place (it is `kernel_batch.flat_pairs`' own array).

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
    from sim.navigation.searches import kernel_batch

    for index in kernel_batch.apart(regions.labels, starts_flat, goals_flat, searchable):
        results[index] = _UNREACHABLE
    return searchable


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
    if not _in_one_loop(query, settings, height * width):
        pairs = zip(starts_flat.tolist(), goals_flat.tolist(), strict=True)
        return [
            kernel.path_result(landmarks.search(grid, height, width, start, goal))
            for start, goal in pairs
        ]
    return kernel_batch.jps_batch(grid, starts_flat, goals_flat, query.heuristic.code)


def _in_one_loop(query: Query, settings: SearchSettings, cells: int) -> bool:
    """Whether `_search` runs every pair in one C loop (not one landmark call a pair)."""
    from sim.navigation.searches import landmarks

    return query.algorithm is not Algorithm.JPS or not (
        settings.common and landmarks.MIN_CELLS <= cells <= landmarks.MAX_CELLS
    )


def _search_arrays(
    query: Query,
    settings: SearchSettings,
    starts_flat: NDArray[np.int64],
    goals_flat: NDArray[np.int64],
) -> FlatBatch:
    """`_search`'s answers as arrays (`FlatBatch`): written by the C loop where one runs them."""
    from sim.navigation.searches import kernel_batch, landmarks

    grid = np.ascontiguousarray(query.walkable)
    height, width = grid.shape
    if query.algorithm is not Algorithm.JPS:
        return kernel_batch.batch_arrays(query, starts_flat, goals_flat)
    if _in_one_loop(query, settings, height * width):
        return kernel_batch.jps_batch_arrays(grid, starts_flat, goals_flat, query.heuristic.code)
    pairs = zip(starts_flat.tolist(), goals_flat.tolist(), strict=True)
    return _flat_batch([landmarks.search(grid, height, width, s, g) for s, g in pairs])


def _flat_batch(answers: list[FlatAnswer]) -> FlatBatch:
    """C searches' answers, one a pair, as the arrays a C loop writes (`FlatBatch`).

    Each found path is a flat path (the grid's width, then its cells: `lazy_cells`): joined
    once and their headers dropped, never laid out as pairs.
    """
    flags, flats, costs, expanded = zip(*answers, strict=True) if answers else ((), (), (), ())
    found = np.array(flags, dtype=np.bool_)
    # A C search answers a found path flat and no path as an empty tuple.
    paths = [path for path in flats if isinstance(path, bytes)]
    lengths = np.zeros(len(answers), dtype=np.int64)
    lengths[found] = [len(path) // 4 - 1 for path in paths]
    offsets = np.zeros(len(answers) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    headers = offsets[:-1][found] + np.arange(len(paths))
    joined = np.frombuffer(b"".join(paths), dtype=np.int32)
    reason = np.where(found, _CODE[Reason.FOUND], _CODE[Reason.UNREACHABLE])
    return (
        found.tobytes(),
        np.array(costs, dtype=np.float64).tobytes(),
        np.array(expanded, dtype=np.int64).tobytes(),
        reason.astype(np.int8).tobytes(),
        lengths.tobytes(),
        offsets.tobytes(),
        np.delete(joined, headers).tobytes(),
    )


def _merged(
    flat: FlatBatch,
    chosen: NDArray[np.intp],
    results: list[PathResult | None],
    width: int,
) -> PathBatch:
    """The searches' answers (`flat`) for the pairs `chosen` and `results`' for the rest, as one.

    No `results` (an empty list): every pair was searched. The rest are never found
    (unreachable by the regions, a blocked or outside end), so the searches' cells are the
    batch's cells as they are.
    """
    arrays: list[NDArray[Any]] = [
        np.frombuffer(data, dtype) for data, dtype in zip(flat, _FLAT_TYPES, strict=True)
    ]
    found, cost, expanded, reason, lengths, offsets, cells = arrays
    count = len(results)
    if count == 0:  # every pair was searched in C
        return PathBatch(width, found, cost, expanded, reason, lengths, offsets, cells)
    all_found = np.zeros(count, dtype=np.bool_)
    all_cost = np.full(count, math.inf)
    all_expanded = np.zeros(count, dtype=np.int64)
    all_reason = np.empty(count, dtype=np.int8)
    all_lengths = np.zeros(count, dtype=np.int64)
    for index, result in enumerate(results):
        if result is not None:
            all_expanded[index] = result.expanded
            all_reason[index] = _CODE[result.reason]
    all_found[chosen], all_cost[chosen], all_expanded[chosen] = found, cost, expanded
    all_reason[chosen], all_lengths[chosen] = reason, lengths
    return PathBatch._frozen(
        width, all_found, all_cost, all_expanded, all_reason, all_lengths, cells
    )


_FLAT_TYPES = (np.bool_, np.float64, np.int64, np.int8, np.int64, np.int64, np.int32)
"""The items of `kernel_batch.FlatBatch`'s seven arrays, in order."""
