"""The batch call's boundary with the compiled kernel: many pairs on one mask, one C call.

`sim.navigation.batch.find_paths` checks its options once and hands the pairs here: `flat_pairs`
turns them into flat cells in one C pass, `batch` runs the compiled best-first searches back to
back with the GIL released, each answer bit for bit `kernel.solve`'s for the same ends;
`jps_batch` does the same for the compiled jump point search.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from sim.navigation.query import Algorithm, PathResult, Query, SearchSettings, priority_terms
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches import kernel, landmarks

FlatBatch = tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes]
"""The answers of a batch as the C loops hand them back (``_flat_path.h``, ``FlatBatch``):
found (uint8), cost (float64), expanded (int64), reason (int8, a code of
`sim.navigation.batch.REASONS`) and length (int64) a pair, the paths' offsets (int64, one more
than the pairs) and the found paths' flat cells (int32) back to back: seven objects for the
whole batch, none a pair (`sim.navigation.batch.PathBatch` reads them as arrays)."""


def batch(query: Query, starts: NDArray[np.int64], goals: NDArray[np.int64]) -> list[PathResult]:
    """`solve` for every pair of flat cells ``starts[i] -> goals[i]`` under `query`'s settings.

    One C call (``_kernel.batch``) runs the searches back to back with the GIL released: result
    ``i`` is `solve`'s for the query with those ends, bit for bit. `query` is checked (its own
    start and goal are not read); every pair must be two walkable cells of its grid, else a
    ValueError before any search.

    Raises:
        ValueError: as `solve` does for an algorithm C does not run (jps included), and for
            pairs that are not walkable cells.
    """
    kernel.check_compiled(query.algorithm)
    from sim.navigation.searches import _kernel  # built: checked just above

    return _kernel.batch(*_kernel_arguments(query, starts, goals))


def batch_arrays(query: Query, starts: NDArray[np.int64], goals: NDArray[np.int64]) -> FlatBatch:
    """`batch` with the answers as arrays (`FlatBatch`): no Python object a pair."""
    kernel.check_compiled(query.algorithm)
    from sim.navigation.searches import _kernel  # built: checked just above

    return _kernel.batch_arrays(*_kernel_arguments(query, starts, goals))


def _kernel_arguments(
    query: Query, starts: NDArray[np.int64], goals: NDArray[np.int64]
) -> tuple[Any, ...]:
    """The arguments of ``_kernel.batch`` and ``_kernel.batch_arrays`` for `query`'s pairs."""
    walkable = np.ascontiguousarray(query.walkable)
    costs = None if query.costs is None else np.ascontiguousarray(query.costs)
    height, width = walkable.shape
    terms = priority_terms(query.algorithm, query.heuristic, query.weight, query.heuristic_scale)
    return (
        walkable,
        costs,
        height,
        width,
        np.ascontiguousarray(starts, dtype=np.int64),
        np.ascontiguousarray(goals, dtype=np.int64),
        query.rule.code,
        terms.heuristic.code,
        terms.h_factor,
        terms.g_weight,
        terms.unit_steps,
    )


@overload
def jps_batch(
    walkable: NDArray[np.bool_],
    starts: NDArray[np.int64],
    goals: NDArray[np.int64],
    heuristic_code: int,
    found_only: Literal[False] = ...,
) -> list[PathResult]: ...
@overload
def jps_batch(
    walkable: NDArray[np.bool_],
    starts: NDArray[np.int64],
    goals: NDArray[np.int64],
    heuristic_code: int,
    found_only: bool,
) -> list[PathResult] | None: ...
def jps_batch(
    walkable: NDArray[np.bool_],
    starts: NDArray[np.int64],
    goals: NDArray[np.int64],
    heuristic_code: int,
    found_only: bool = False,
) -> list[PathResult] | None:
    """`kernel.jps_search` for every pair of flat cells ``starts[i] -> goals[i]``, in one C call.

    ``_jps.batch`` checks the array, the pairs and the heuristic once, checks each row of the
    packed copies against the array once (when a search first reads it: `_jps_blocks.h`), and
    runs the searches back to back with the GIL released:
    answer ``i`` is ``jps_search``'s for those ends, bit for bit. `walkable` must be a
    C-contiguous 2-D bool array and every pair two walkable cells of it (else a ValueError
    before any search); `heuristic_code` one of `sim.navigation.query.JPS_HEURISTICS`' codes.
    With `found_only`, None when some pair found no path (`run_plan` then leaves the batch to
    the checked path).
    """
    from sim.navigation.searches import _jps  # the caller has checked kernel.JPS_AVAILABLE

    height, width = walkable.shape
    answers = _jps.batch(
        walkable,
        height,
        width,
        np.ascontiguousarray(starts, dtype=np.int64),
        np.ascontiguousarray(goals, dtype=np.int64),
        heuristic_code,
    )
    if kernel.KERNEL_AVAILABLE:
        from sim.navigation.searches import _kernel

        # Every PathResult built in one C call when every pair found a path.
        results = _kernel.found_results(answers)
        if results is not None or found_only:
            return results
    elif found_only and not all(answer[0] for answer in answers):
        return None
    return list(map(kernel.path_result, answers))


def jps_batch_arrays(
    walkable: NDArray[np.bool_],
    starts: NDArray[np.int64],
    goals: NDArray[np.int64],
    heuristic_code: int,
) -> FlatBatch:
    """`jps_batch` with the answers as arrays (`FlatBatch`): no Python object a pair."""
    from sim.navigation.searches import _jps  # the caller has checked kernel.JPS_AVAILABLE

    height, width = walkable.shape
    return _jps.batch_arrays(
        walkable,
        height,
        width,
        np.ascontiguousarray(starts, dtype=np.int64),
        np.ascontiguousarray(goals, dtype=np.int64),
        heuristic_code,
    )


FlatPairs = tuple[int, NDArray[np.int64], NDArray[np.int64], NDArray[np.bool_]]
"""`flat_pairs`' answer: the first start outside the grid (-1: none), the flat starts, the flat
goals (0 where outside) and whether each pair is searchable."""


def flat_pairs(
    walkable: NDArray[np.bool_], starts: NDArray[np.int64], goals: NDArray[np.int64]
) -> FlatPairs:
    """The pairs of `sim.navigation.find_paths` as flat cells, in one C call when it is built.

    `walkable` must be a C-contiguous 2-D bool array, `starts` and `goals` ``(N, 2)`` int64
    arrays of ``(row, col)``. A pair is searchable when both cells lie inside the grid and are
    walkable; a cell outside it has the flat index 0.
    """
    count = len(starts)
    starts_flat = np.empty(count, dtype=np.int64)
    goals_flat = np.empty(count, dtype=np.int64)
    searchable = np.empty(count, dtype=np.bool_)
    if kernel.KERNEL_AVAILABLE:
        from sim.navigation.searches import _kernel

        first = _kernel.pairs(walkable, starts, goals, starts_flat, goals_flat, searchable)
        return first, starts_flat, goals_flat, searchable
    height, width = walkable.shape
    flat = walkable.reshape(-1)
    ends = []
    for cells, out in ((starts, starts_flat), (goals, goals_flat)):
        rows, cols = cells[:, 0], cells[:, 1]
        inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
        out[:] = np.where(inside, rows * width + cols, 0)
        ends.append(inside & flat[out])
    searchable[:] = ends[0] & ends[1]
    outside = np.flatnonzero(~((starts >= 0) & (starts < (height, width))).all(axis=1))
    return (int(outside[0]) if len(outside) else -1), starts_flat, goals_flat, searchable


def apart(
    labels: NDArray[np.int32],
    starts_flat: NDArray[np.int64],
    goals_flat: NDArray[np.int64],
    searchable: NDArray[np.bool_],
) -> list[int]:
    """The searchable pairs whose ends lie in two regions, now cleared in `searchable`.

    `labels` holds a region a cell (`sim.navigation.regions`), the pairs are `flat_pairs`'. One
    C pass when the kernel is built: a few microseconds of numpy temporaries saved a call.
    """
    flat_labels = np.ascontiguousarray(labels, dtype=np.int32).reshape(-1)
    if kernel.KERNEL_AVAILABLE:
        from sim.navigation.searches import _kernel

        return _kernel.apart(flat_labels, starts_flat, goals_flat, searchable)
    split = searchable & (flat_labels[starts_flat] != flat_labels[goals_flat])
    searchable &= ~split
    return np.flatnonzero(split).tolist()


@dataclass(frozen=True, slots=True)
class BatchPlan:
    """A batch's options checked once (`plan_of`): what every later batch hands C with them.

    Attributes:
        settings: the options as values.
        jps: jump point search (`_jps.batch`); else the compiled best-first loop.
        labelled: the region cache labels the rule: its labels can prove pairs unreachable.
        rule_code, heuristic_code, h_factor, g_weight, unit_steps: the C loop's arguments
            (`sim.navigation.query.priority_terms` with the heuristic scale of no costs, 1).
    """

    settings: SearchSettings
    jps: bool
    labelled: bool
    rule_code: int
    heuristic_code: int
    h_factor: float
    g_weight: float
    unit_steps: bool


_PLANS: dict[tuple[Any, ...], BatchPlan | None] = {}
"""Option sets seen before, by their names, types and values; None: the checked path is theirs."""
MAX_PLANS = 256
"""Distinct option sets kept; beyond it the table starts afresh (options are few in practice)."""


def plan_of(options: dict[str, Any]) -> BatchPlan | None:
    """The checked plan of `sim.navigation.find_paths`' `options`, or None for its checked path.

    None for costs (unhashable: each batch checks them), for a search C does not run, when a
    compiled search is not built, and for options the checks refuse once an array is given
    (jump point search with manhattan, say): the checked path raises those in its words, or
    answers an empty batch. Options `SearchSettings.parse` refuses raise its error here, the
    one the checked path raises first.
    """
    try:
        key = (
            kernel.KERNEL_AVAILABLE,
            kernel.JPS_AVAILABLE,
            *((name, type(value), value) for name, value in options.items()),
        )
        return _PLANS[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable option (costs): checked on every batch
        return None
    settings = SearchSettings.parse(**options)
    plan = None
    if kernel.KERNEL_AVAILABLE and kernel.JPS_AVAILABLE and settings.costs is None:
        plan = _settle(settings)
    if len(_PLANS) >= MAX_PLANS:
        _PLANS.clear()
    _PLANS[key] = plan
    return plan


def _settle(settings: SearchSettings) -> BatchPlan | None:
    """`settings` settled without an array, as `Query.check` settles them; None if not in C."""
    try:
        # The same options on a one-cell grid: what depends on the options alone.
        probe = Query.check(np.ones((1, 2), dtype=bool), (0, 0), (0, 1), settings)
        if not kernel.choose(settings.implementation, probe.algorithm):
            return None
    except ValueError:
        return None
    jps = probe.algorithm is Algorithm.JPS
    if not jps and probe.algorithm not in kernel.COMPILED_ALGORITHMS:
        return None
    terms = priority_terms(probe.algorithm, probe.heuristic, probe.weight, 1.0)
    return BatchPlan(
        settings,
        jps,
        region_cache.rule_of(probe.rule) is not None,
        probe.rule.code,
        probe.heuristic.code if jps else terms.heuristic.code,
        terms.h_factor,
        terms.g_weight,
        terms.unit_steps,
    )


def run_plan(
    plan: BatchPlan,
    walkable: NDArray[np.bool_],
    starts: NDArray[np.int64],
    goals: NDArray[np.int64],
    *,
    as_arrays: bool,
) -> list[PathResult] | FlatBatch | None:
    """Every pair searched in one C call under `plan`, or None for the checked path.

    `walkable` must be a C-contiguous 2-D numpy bool array, `starts` and `goals` ``(N, 2)`` int64
    arrays of one length N > 0. None, before any search, when a pair has a blocked end or one
    outside the grid, when the default call may use landmarks on this array, when the array
    is not labelled yet or its labels (as they stand, maybe behind the array) put a pair's ends
    in two regions; and after the searches when a pair under a labelled rule found no path
    (the labels were behind the array). The checked path answers those, with the labels
    brought up to date, as `sim.navigation.find_paths` always has: so every answer returned
    here is the one it would return (the searches read the array as it is now).
    """
    height, width = walkable.shape
    if (
        plan.jps
        and plan.settings.common
        and landmarks.MIN_CELLS <= height * width <= landmarks.MAX_CELLS
    ):
        return None
    labels = None
    if plan.labelled:
        regions = region_cache.labelled(walkable)
        if regions is None or regions.shape != walkable.shape:
            return None
        labels = regions.proof_parts()[0]
    from sim.navigation.searches import _kernel  # plan_of has checked it is built

    starts_flat, goals_flat = np.empty(len(starts), np.int64), np.empty(len(goals), np.int64)
    if not _kernel.pairs_in_region(walkable, starts, goals, labels, starts_flat, goals_flat):
        return None
    if plan.jps:
        if as_arrays:
            flat = jps_batch_arrays(walkable, starts_flat, goals_flat, plan.heuristic_code)
            return None if b"\x00" in flat[0] else flat
        return jps_batch(walkable, starts_flat, goals_flat, plan.heuristic_code, True)
    arguments = (
        walkable,
        None,
        height,
        width,
        starts_flat,
        goals_flat,
        plan.rule_code,
        plan.heuristic_code,
        plan.h_factor,
        plan.g_weight,
        plan.unit_steps,
    )
    if as_arrays:
        flat = _kernel.batch_arrays(*arguments)
        return None if plan.labelled and b"\x00" in flat[0] else flat
    results: list[PathResult] = _kernel.batch(*arguments)
    if plan.labelled and not all(result.found for result in results):
        return None
    return results
