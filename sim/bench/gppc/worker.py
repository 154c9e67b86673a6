"""One planner of ours on some Moving AI maps, timed query by query: `sim bench --gppc`'s worker.

Run in a process of its own (``python -m sim.bench.gppc.worker ALGORITHM --passes P [--sample N
--seed S] MAP...``), so that the parent reads its peak memory from the operating system and no
cache of one planner helps another. Every query of each map's ``.scen`` (or a seeded sample)
runs `passes` times, pass after pass; a query's time is its fastest pass, a timer around the one
`find_path` call (``jps+``: the one `OfflineIndex.find_path` call on the map's offline index, jump
tables and landmark fields built before the queries and reported as preprocessing). A compiled
search's cells are laid out when first read (`sim.navigation.searches.lazy_cells`), so the same
timer read again after the call's ``cells`` gives a second time, the call with its cells read
(``query_with_cells_s``). ``auto-frozen`` and ``jps-frozen`` are ``auto`` and ``jps`` on the map
frozen (`sim.navigation.freeze`: read-only, backed by bytes, so the compiled search skips its
checks against in-place edits), as the GPPC rules allow: a map is loaded once and never
edited; the copy that freezes it is counted as preprocessing. Prints one JSON object per map.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from sim.bench.gppc import repair
from sim.navigation import find_path, freeze, read_map, read_scenarios
from sim.navigation.maps.movingai import sample_scenarios
from sim.navigation.searches import jump_cache, landmarks
from sim.navigation.searches.offline import OfflineIndex

OFFLINE = "jps+"
"""Our offline planner: jump tables and landmark fields built per map
(`sim.navigation.searches.offline`)."""
FROZEN = "-frozen"
"""The suffix of an algorithm run on the map frozen (`sim.navigation.freeze`)."""


def measure(algorithm: str, map_path: Path, passes: int, sample: int | None, seed: int) -> dict:  # type: ignore[type-arg]
    """The map's figures: queries, solved, optimal, the sum of fastest times, lengths.

    Preprocessing is reported apart from the queries, as the competition does: for ``jps+``
    the offline index's build (and its bytes as storage, and the repair after cube moves,
    `sim.bench.gppc.repair`); for ``auto`` whatever its queries built on the way (landmark
    fields, a jump table), which the fastest of the passes would otherwise leave out unseen.
    """
    walkable = read_map(map_path).walkable
    frozen = algorithm.endswith(FROZEN)
    algorithm = algorithm.removesuffix(FROZEN)
    froze = time.perf_counter()
    if frozen:
        walkable = freeze(walkable)
    freeze_s = time.perf_counter() - froze if frozen else 0.0
    scenarios = read_scenarios(map_path.with_name(map_path.name + ".scen"))
    if sample is not None and sample < len(scenarios):
        scenarios = sample_scenarios(scenarios, sample, seed)
    best = [math.inf] * len(scenarios)
    best_with_cells = [math.inf] * len(scenarios)
    costs = [math.inf] * len(scenarios)
    clock = time.perf_counter
    built_before = jump_cache.preprocessing_s()
    table = OfflineIndex.build(walkable) if algorithm == OFFLINE else None
    plan = (
        table.find_path if table is not None else partial(find_path, walkable, algorithm=algorithm)
    )
    for _ in range(passes):
        for index, scenario in enumerate(scenarios):
            start, goal = scenario.start, scenario.goal
            began = clock()
            result = plan(start, goal)
            took = clock() - began
            len(result.cells)  # the first read lays the path out
            with_cells = clock() - began
            if took < best[index]:
                best[index] = took
            if with_cells < best_with_cells[index]:
                best_with_cells[index] = with_cells
            costs[index] = result.cost
    solved = [math.isfinite(cost) for cost in costs]
    optimal = [s.accepts(cost) for s, cost in zip(scenarios, costs, strict=True)]
    found = [cost for cost, ok in zip(costs, solved, strict=True) if ok]
    # A cost within the printed optimum's rounding is optimal: its suboptimality is 0.
    worse = [
        0.0 if s.accepts(cost) else cost / s.optimal_length - 1.0
        for s, cost, ok in zip(scenarios, costs, solved, strict=True)
        if ok and s.optimal_length > 0
    ]
    return {
        "map": map_path.name.removesuffix(".map"),
        "cells": int(walkable.size),
        "queries": len(scenarios),
        "solved": sum(solved),
        "optimally_solved": sum(optimal),
        "query_s": sum(best),
        "query_with_cells_s": sum(best_with_cells),
        "path_length_sum": sum(found),
        "suboptimality_sum": sum(max(value, 0.0) for value in worse),
        **_preprocessing(algorithm, walkable, table, built_before, freeze_s),
    }


def _preprocessing(
    algorithm: str,
    walkable: NDArray[np.bool_],
    table: OfflineIndex | None,
    built_before: float,
    freeze_s: float,
) -> dict[str, float | int | None]:
    """``setup_s`` and ``storage_bytes`` of one map (and the repair figures for jps+).

    `freeze_s` is the time the map's frozen copy took (0 unless frozen), added to setup.
    """
    if table is not None:
        repairs = repair.cube_moves(walkable, table, seed=0)
        return {
            "setup_s": table.build_ms / 1000.0,
            "storage_bytes": table.nbytes,
            "repair_ms_mean": repairs.mean_ms,
            "repair_ms_max": repairs.max_ms,
        }
    if algorithm != "auto":
        return {"setup_s": freeze_s, "storage_bytes": 0}
    marks = landmarks.landmarks_of(walkable)
    fields_ms = landmarks.build_ms(walkable) or 0.0
    kept = jump_cache.table_of(walkable)
    storage = (kept.nbytes if kept else 0) + (
        marks.fields.nbytes + marks.snapshot.nbytes if marks else 0
    )
    return {
        "setup_s": jump_cache.preprocessing_s() - built_before + fields_ms / 1000.0 + freeze_s,
        "storage_bytes": storage,
    }


def main(argv: list[str]) -> int:
    """Parse the arguments, measure each map, print one JSON line per map."""
    parser = argparse.ArgumentParser(prog="python -m sim.bench.gppc.worker")
    parser.add_argument("algorithm")
    parser.add_argument("maps", nargs="+", type=Path)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--sample", type=int)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for map_path in args.maps:
        figures = measure(args.algorithm, map_path, args.passes, args.sample, args.seed)
        print(json.dumps(figures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
