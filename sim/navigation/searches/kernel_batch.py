"""The batch call's boundary with the compiled kernel: many pairs on one mask, one C call.

`sim.navigation.batch.find_paths` checks its options once and hands the pairs here: `flat_pairs`
turns them into flat cells in one C pass, `batch` runs the compiled best-first searches back to
back with the GIL released, each answer bit for bit `kernel.solve`'s for the same ends;
`jps_batch` does the same for the compiled jump point search.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.query import PathResult, Query, priority_terms
from sim.navigation.searches import kernel

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


def jps_batch(
    walkable: NDArray[np.bool_],
    starts: NDArray[np.int64],
    goals: NDArray[np.int64],
    heuristic_code: int,
) -> list[PathResult]:
    """`kernel.jps_search` for every pair of flat cells ``starts[i] -> goals[i]``, in one C call.

    ``_jps.batch`` checks the array, the pairs and the heuristic once, checks each row of the
    packed copies against the array once (when a search first reads it: `_jps_blocks.h`), and
    runs the searches back to back with the GIL released:
    answer ``i`` is ``jps_search``'s for those ends, bit for bit. `walkable` must be a
    C-contiguous 2-D bool array and every pair two walkable cells of it (else a ValueError
    before any search); `heuristic_code` one of `sim.navigation.query.JPS_HEURISTICS`' codes.
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
