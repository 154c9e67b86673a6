"""One planner of ours on some Moving AI maps, timed query by query: `sim bench --gppc`'s worker.

Run in a process of its own (``python -m sim.bench.gppc.worker ALGORITHM --passes P [--sample N
--seed S] MAP...``, or with ``--serve`` a pass at a time on the parent's word, `serve`), so
that the parent reads its peak memory from the operating system and no cache of one planner
helps another. Every query of each map's ``.scen`` (or a seeded sample)
runs `passes` times, pass after pass; a query's time is its fastest pass, a timer around the one
`find_path` call (``jps+``: the one `OfflineIndex.find_path` call on the map's offline index, jump
tables and landmark fields built before the queries and reported as preprocessing). A compiled
search's cells are laid out when first read (`sim.navigation.searches.lazy_cells`), so the same
timer read again after the call's ``cells`` gives a second time, the call with its cells read
(``query_with_cells_s``), and the thread's CPU time over the same gives a third
(``query_cpu_s``: without a loaded machine's waits for a core, as warthog's ``cpu_ns``).
``auto-frozen`` and ``jps-frozen`` are ``auto`` and ``jps`` on the map frozen
(`sim.navigation.freeze`: read-only, backed by bytes, so the compiled search skips its checks
against in-place edits), as the GPPC rules allow: a map is loaded once and never edited; the
copy that freezes it is counted as preprocessing. Prints one JSON object per map.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TextIO

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


class MapRun:
    """One map's queries for one planner, pass after pass: each query keeps its fastest time.

    The map is read (and frozen, or its offline index built) once, on creation; `run_pass`
    answers every query once; `figures` sums what the passes found.
    """

    def __init__(
        self,
        algorithm: str,
        map_path: Path,
        sample: int | None,
        seed: int,
        clock: Callable[[], float] = time.perf_counter,
        cpu_clock: Callable[[], float] = time.thread_time,
    ) -> None:
        self.name = map_path.name.removesuffix(".map")
        self._clock, self._cpu_clock = clock, cpu_clock
        walkable = read_map(map_path).walkable
        frozen = algorithm.endswith(FROZEN)
        self.algorithm = algorithm.removesuffix(FROZEN)
        froze = time.perf_counter()
        if frozen:
            walkable = freeze(walkable)
        self._freeze_s = time.perf_counter() - froze if frozen else 0.0
        self._walkable = walkable
        scenarios = read_scenarios(map_path.with_name(map_path.name + ".scen"))
        if sample is not None and sample < len(scenarios):
            scenarios = sample_scenarios(scenarios, sample, seed)
        self._scenarios = scenarios
        self.best = [math.inf] * len(scenarios)
        self.best_with_cells = [math.inf] * len(scenarios)
        self.best_cpu = [math.inf] * len(scenarios)
        self._costs = [math.inf] * len(scenarios)
        self._built_before = jump_cache.preprocessing_s()
        self._table = OfflineIndex.build(walkable) if self.algorithm == OFFLINE else None
        self._plan = (
            self._table.find_path
            if self._table is not None
            else partial(find_path, walkable, algorithm=self.algorithm)
        )

    def run_pass(self) -> None:
        """Answer every query once, keeping each one's fastest time so far."""
        clock, cpu_clock, plan = self._clock, self._cpu_clock, self._plan
        best, best_with_cells, costs = self.best, self.best_with_cells, self._costs
        best_cpu = self.best_cpu
        for index, scenario in enumerate(self._scenarios):
            start, goal = scenario.start, scenario.goal
            # The thread's CPU time brackets both wall timers, so neither pays for its reads.
            ran = cpu_clock()
            began = clock()
            result = plan(start, goal)
            took = clock() - began
            len(result.cells)  # the first read lays the path out
            with_cells = clock() - began
            cpu = cpu_clock() - ran
            if cpu < best_cpu[index]:
                best_cpu[index] = cpu
            if took < best[index]:
                best[index] = took
            if with_cells < best_with_cells[index]:
                best_with_cells[index] = with_cells
            costs[index] = result.cost

    def figures(self) -> dict:  # type: ignore[type-arg]
        """The map's figures: queries, solved, optimal, the sum of fastest times, lengths.

        Preprocessing is reported apart from the queries, as the competition does: for ``jps+``
        the offline index's build (and its bytes as storage, and the repair after cube moves,
        `sim.bench.gppc.repair`); for ``auto`` whatever its queries built on the way (landmark
        fields, a jump table), which the fastest of the passes would otherwise leave out unseen.
        """
        scenarios, costs = self._scenarios, self._costs
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
            "map": self.name,
            "cells": int(self._walkable.size),
            "queries": len(scenarios),
            "solved": sum(solved),
            "optimally_solved": sum(optimal),
            "query_s": sum(self.best),
            "query_with_cells_s": sum(self.best_with_cells),
            "query_cpu_s": sum(self.best_cpu),
            "path_length_sum": sum(found),
            "suboptimality_sum": sum(max(value, 0.0) for value in worse),
            **_preprocessing(
                self.algorithm, self._walkable, self._table, self._built_before, self._freeze_s
            ),
        }


def measure(algorithm: str, map_path: Path, passes: int, sample: int | None, seed: int) -> dict:  # type: ignore[type-arg]
    """The map's figures (`MapRun.figures`) after `passes` passes, one after another."""
    run = MapRun(algorithm, map_path, sample, seed)
    for _ in range(passes):
        run.run_pass()
    return run.figures()


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


def serve(algorithm: str, sample: int | None, seed: int, lines: TextIO, out: TextIO) -> None:
    """Answer the parent's commands on `lines`, one a line, until they end.

    ``pass MAP`` runs one pass of MAP's queries (reading the map first if it is new) and
    answers ``passed``; ``end MAP`` answers the map's figures as one JSON line and lets it go.
    A map's passes keep their state between commands, so the parent can run other planners
    between them (`sim.bench.gppc.rounds`): a build on the first pass is never timed again.
    """
    runs: dict[str, MapRun] = {}
    for line in lines:
        command, _, name = line.rstrip("\n").partition(" ")
        if command == "pass":
            if name not in runs:
                runs[name] = MapRun(algorithm, Path(name), sample, seed)
            runs[name].run_pass()
            out.write("passed\n")
        elif command == "end":
            out.write(json.dumps(runs.pop(name).figures()) + "\n")
        else:
            raise ValueError(f"worker: unknown command {line!r}")
        out.flush()


def main(argv: list[str]) -> int:
    """Parse the arguments, measure each map, print one JSON line per map (or `serve`)."""
    parser = argparse.ArgumentParser(prog="python -m sim.bench.gppc.worker")
    parser.add_argument("algorithm")
    parser.add_argument("maps", nargs="*", type=Path)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--sample", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--serve", action="store_true", help="take pass/end commands on stdin (`serve`)"
    )
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.algorithm, args.sample, args.seed, sys.stdin, sys.stdout)
        return 0
    for map_path in args.maps:
        figures = measure(args.algorithm, map_path, args.passes, args.sample, args.seed)
        print(json.dumps(figures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
