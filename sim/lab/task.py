"""What a Dask worker runs: one chunk's searches, timed, judged against the optimum.

The worker reads the map from the chunk's path itself (and keeps the last few it read, for
the next chunk of the same map). Each search is timed alone with ``perf_counter``; the first
search of a process loads the compiled kernel, so a throw-away search of each kind runs
first. A path's
optimum is the published (or generated .scen's) length for 8-connected searches, and our
Dijkstra's, searched here, for 4-connected ones.
"""

from __future__ import annotations

import functools
import math
import os
import time
from typing import Final

import numpy as np
from numpy.typing import NDArray

from sim.lab.chunks import Chunk
from sim.lab.experiment import SearchSpec
from sim.lab.maps import DIJKSTRA
from sim.lab.rows import Row, suboptimality
from sim.navigation import Cell, Scenario, find_path, read_map

DIJKSTRA_TOLERANCE: Final = 1e-9
"""Relative precision of an optimum we compute: float sums of 1 and sqrt(2) steps."""


def run_chunk(chunk: Chunk) -> list[Row]:
    """Run `chunk.search` on each of `chunk.scenarios`; one row each, in order."""
    walkable = _walkable(chunk.map_path, *_stamp(chunk.map_path))
    _warm_up(chunk.search)
    return [
        _row(chunk, chunk.first + offset, scenario, walkable)
        for offset, scenario in enumerate(chunk.scenarios)
    ]


def turns(cells: tuple[Cell, ...]) -> int:
    """How often a path changes direction (cells may also be jump points, far apart).

    >>> turns(((0, 0), (0, 1), (1, 2), (2, 3), (2, 4)))
    2
    """
    if len(cells) < 3:
        return 0
    steps = np.sign(np.diff(np.asarray(cells), axis=0))
    return int(np.any(steps[1:] != steps[:-1], axis=1).sum())


def length_cells(cells: tuple[Cell, ...]) -> int:
    """Cells on a path, both ends included, counting those between far-apart jump points.

    >>> length_cells(((0, 0), (0, 3), (2, 5))), length_cells(())
    (6, 0)
    """
    if not cells:
        return 0
    return 1 + int(np.abs(np.diff(np.asarray(cells), axis=0)).max(axis=1).sum())


def _row(chunk: Chunk, index: int, scenario: Scenario, walkable: NDArray[np.bool_]) -> Row:
    search = chunk.search
    began = time.perf_counter()
    result = search.plan(walkable, scenario.start, scenario.goal)
    time_ms = (time.perf_counter() - began) * 1e3
    if search.connectivity == 8:
        optimal, tolerance = scenario.optimal_length, scenario.tolerance
        source = chunk.optimal_source
    else:
        reference = find_path(
            walkable, scenario.start, scenario.goal, algorithm="dijkstra", diagonal=False
        )
        optimal, tolerance = reference.cost, DIJKSTRA_TOLERANCE * reference.cost
        source = DIJKSTRA
    return Row(
        map=chunk.map_name,
        scenario=index,
        algorithm=search.algorithm,
        heuristic=search.heuristic,
        weight=search.weight,
        connectivity=search.connectivity,
        found=result.found,
        cost=result.cost if result.found else None,
        optimal=optimal if math.isfinite(optimal) else None,
        suboptimality=suboptimality(result.cost, optimal, tolerance),
        expanded=result.expanded,
        time_ms=time_ms,
        length_cells=length_cells(result.cells),
        turns=turns(result.cells),
        search=search.label,
        implementation=search.implementation,
        bucket=scenario.bucket,
        start_x=scenario.start_x,
        start_y=scenario.start_y,
        goal_x=scenario.goal_x,
        goal_y=scenario.goal_y,
        optimal_source=source,
    )


def _stamp(path: str) -> tuple[int, int]:
    """The file's modification time and size: a map rewritten since is read again."""
    status = os.stat(path)
    return status.st_mtime_ns, status.st_size


@functools.lru_cache(maxsize=8)
def _walkable(path: str, mtime_ns: int, size: int) -> NDArray[np.bool_]:
    return read_map(path).walkable


@functools.cache
def _warm_up(search: SearchSpec) -> None:
    search.plan(np.ones((2, 2), dtype=bool), (0, 0), (1, 1))
