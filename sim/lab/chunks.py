"""Cut an experiment into chunks: one Dask task per (map, search, block of scenarios).

A chunk carries the map's path, not its cells: each worker reads the map itself
(`sim.lab.task`), so nothing big goes through the scheduler, and workers on other machines
need the files at the same path. Its scenarios are a few numbers each and travel with it.

Each chunk has a key naming it in ``OUT/partial`` (`sim.lab.store`): the map, the search's
index, the first scenario's index, and a hash of everything that decides its rows (the map's
cells, the search, the scenarios), so `--resume` never reuses a chunk of a map, search or
sample that has since changed.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Final

from sim.lab.experiment import SearchSpec
from sim.lab.maps import PreparedMap
from sim.navigation import Scenario

# Chunk size, measured on this 2-core machine: a Dask task costs 4 to 7 ms on a local cluster
# (submit, schedule, run, return the rows, save them: the demo took 5 s longer in 750 chunks
# of 2 scenarios than in 24 by this rule), and a search with the C kernel costs roughly
# 3e-5 ms per cell of the map (0.02-0.08 ms on arena's 2,401 cells, 3-12 ms on a 512 x 512
# map). A chunk of CHUNK_CELLS / map cells scenarios is about 0.25 s of searching, so the
# task's cost stays near 2 %: 32 scenarios a chunk on a 512 x 512 map, a whole sample on a
# small one. The Python reference search is some 25 times slower, so its chunks are smaller.
CHUNK_CELLS: Final = 8_000_000
PYTHON_SLOWDOWN: Final = 25
MIN_BLOCK: Final = 4
"""Fewer scenarios than this in a chunk, and the task's cost shows again."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """One task: `search` on `scenarios` of one map.

    Attributes:
        key: the chunk's unique, stable name (see the module).
        map_name: the map's name in the results.
        map_path: the ``.map`` file the worker reads.
        map_index: the map's place in the experiment (rows sort by it).
        search_index: the search's place in the experiment.
        search: the search.
        first: the index of ``scenarios[0]`` in the map's sample.
        scenarios: the scenarios, in sample order.
        optimal_source: where the 8-connected optimal lengths come from (`PreparedMap`).
    """

    key: str
    map_name: str
    map_path: str
    map_index: int
    search_index: int
    search: SearchSpec
    first: int
    scenarios: tuple[Scenario, ...]
    optimal_source: str


def block_size(cells: int, implementation: str, count: int) -> int:
    """Scenarios per chunk on a map of `cells` cells, for `count` scenarios in all.

    >>> block_size(512 * 512, "auto", 100), block_size(49 * 49, "auto", 100)
    (31, 100)
    """
    budget = CHUNK_CELLS / (PYTHON_SLOWDOWN if implementation == "python" else 1)
    return max(1, min(count, max(MIN_BLOCK, math.ceil(budget / max(cells, 1)))))


def make_chunks(
    maps: list[PreparedMap], searches: tuple[SearchSpec, ...], *, block: int | None = None
) -> list[Chunk]:
    """Every chunk of `maps` x `searches`, in map, search and scenario order.

    Args:
        maps: the prepared maps, in experiment order.
        searches: the searches, in experiment order.
        block: scenarios per chunk; None picks `block_size` per map and search.
    """
    chunks = []
    for map_index, prepared in enumerate(maps):
        for search_index, search in enumerate(searches):
            count = len(prepared.scenarios)
            size = block or block_size(prepared.cells, search.implementation, count)
            for first in range(0, count, size):
                scenarios = prepared.scenarios[first : first + size]
                key = _key(prepared, search_index, search, first, scenarios)
                chunks.append(
                    Chunk(
                        key,
                        prepared.name,
                        str(prepared.path),
                        map_index,
                        search_index,
                        search,
                        first,
                        scenarios,
                        prepared.optimal_source,
                    )
                )
    return chunks


def _key(
    prepared: PreparedMap,
    search_index: int,
    search: SearchSpec,
    first: int,
    scenarios: tuple[Scenario, ...],
) -> str:
    decides = repr(
        (
            prepared.digest,
            prepared.optimal_source,
            search,
            first,
            [(s.start, s.goal, s.optimal_length, s.tolerance, s.bucket) for s in scenarios],
        )
    )
    digest = hashlib.sha1(decides.encode("utf-8")).hexdigest()[:12]
    return f"{prepared.name}.s{search_index}.{first:06d}.{digest}"
