"""`sim bench --calls`: the fixed cost of one `find_path` call, and the batch call per query.

Two measurements, side by side in one run:

- **Fixed cost**: the time of a call whose search is trivial (start == goal, a walkable cell),
  the fastest of `FIXED_CALLS` calls, on a small map (arena, 49 x 49) and a 512 x 512 one, for
  the call with every option at its default, explicit ``algorithm="jps"`` and ``"astar"``, and
  explicit options that name the defaults (``diagonal=``, ``heuristic=``). What is left is what
  a call pays before and after its search: checks, the region cache, building the result.
- **Batch**: every query of each small map's scenario file answered by `find_paths`, `CHUNK`
  queries a call, in its list form and in its array form (``as_arrays=True``, one `PathBatch`
  a call), and by one `find_path` call each, a chunk of calls at a time (each chunk's
  least processor time of `PASSES`, summed, divided by the queries), beside warthog's JPS2
  and A* per-query times on the same queries (its own timer;
  `sim.bench.gppc.scoreboard.run_warthog`) when ``WARTHOG`` names its
  ``warthog-timed``. Every answer is checked against the file's optimum.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sim.bench.gppc.scoreboard import run_warthog
from sim.errors import SimError
from sim.navigation import PathResult, find_path, find_paths, read_map, read_scenarios

FIXED_CALLS = 20_000
"""Calls per fixed-cost figure; the fastest is kept (the machine's noise only adds time)."""
PASSES = 10
CHUNK = 128
"""Queries per `find_paths` call: enough that a call's fixed cost is spread thin, few enough that
the machine's other work rarely lands inside one."""
SMALL_MAPS = ("arena", "den312d", "ht_chantry", "lak303d", "Berlin_0_256", "hrt201n")
"""The maps of the batch target: those below 512 x 512 in the shared set."""
FIXED_MAPS = ("arena", "AR0011SR")
"""49 x 49 and 512 x 512."""
CALL_OPTIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("defaults", {}),
    ("jps", {"algorithm": "jps"}),
    ("astar", {"algorithm": "astar"}),
    ("defaults named", {"diagonal": "no-corner-cutting", "heuristic": "octile"}),
    (
        "astar never manhattan",
        {"algorithm": "astar", "diagonal": "never", "heuristic": "manhattan"},
    ),
)
BATCH_ALGORITHMS = ("auto", "astar")
"""Ours in the batch table; warthog's like-for-like: JPS2 for auto (jump points), A* for A*."""
WARTHOG_OF = {"auto": "jps2", "astar": "astar"}
FIXED_TARGET_US = 2.0
BATCH_TARGET = 2.0
"""Batch time per query at most this many times warthog's, on every small map."""


@dataclass(frozen=True, slots=True)
class FixedCost:
    """One kind of call on one map: the fastest trivial call, in microseconds."""

    map: str
    cells: int
    call: str
    us: float


@dataclass(frozen=True, slots=True)
class BatchRow:
    """One algorithm on one map: per-query microseconds, batch and single calls, and warthog's."""

    map: str
    algorithm: str
    queries: int
    optimal: int
    batch_us: float
    single_us: float
    warthog_us: float | None
    batch_cells_us: float | None = None  # the batch with every result's cells read
    arrays_us: float | None = None  # the array form (as_arrays=True), cells in its arrays

    @property
    def ratio(self) -> float | None:
        """Batch per query over warthog's, or None without warthog."""
        return None if self.warthog_us is None else self.batch_us / self.warthog_us

    @property
    def arrays_ratio(self) -> float | None:
        """The array form per query over warthog's, or None without either."""
        if self.warthog_us is None or self.arrays_us is None:
            return None
        return self.arrays_us / self.warthog_us


@dataclass(frozen=True, slots=True)
class CallsReport:
    """Both tables of `sim bench --calls`."""

    fixed: tuple[FixedCost, ...]
    batch: tuple[BatchRow, ...]
    warthog: str | None

    def to_json(self) -> dict[str, Any]:
        """``{"fixed": [...], "batch": [...], "warthog": binary or null}``."""
        return {
            "fixed": [asdict(row) for row in self.fixed],
            "batch": [
                {**asdict(row), "ratio": row.ratio, "arrays_ratio": row.arrays_ratio}
                for row in self.batch
            ],
            "warthog": self.warthog,
        }

    def lines(self) -> list[str]:
        """The two tables and the targets, as Markdown."""
        out = ["| map | cells | call | fixed cost us |", "|---|---|---|---|"]
        out += [f"| {r.map} | {r.cells} | {r.call} | {r.us:.2f} |" for r in self.fixed]
        out += [
            "",
            "| map | algorithm | queries | optimal | batch us/query | find_path us/query "
            "| warthog us/query | batch / warthog | batch us/query, cells read "
            "| cells read / warthog | arrays us/query | arrays / warthog |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for row in self.batch:
            theirs = "n/a" if row.warthog_us is None else f"{row.warthog_us:.2f}"
            ratio = "n/a" if row.ratio is None else f"{row.ratio:.2f}x"
            read = "n/a" if row.batch_cells_us is None else f"{row.batch_cells_us:.2f}"
            read_ratio = (
                "n/a"
                if row.batch_cells_us is None or row.warthog_us is None
                else f"{row.batch_cells_us / row.warthog_us:.2f}x"
            )
            arrays = "n/a" if row.arrays_us is None else f"{row.arrays_us:.2f}"
            arrays_ratio = "n/a" if row.arrays_ratio is None else f"{row.arrays_ratio:.2f}x"
            out.append(
                f"| {row.map} | {row.algorithm} (warthog {WARTHOG_OF[row.algorithm]}) "
                f"| {row.queries} | {row.optimal} | {row.batch_us:.2f} | {row.single_us:.2f} "
                f"| {theirs} | {ratio} | {read} | {read_ratio} | {arrays} | {arrays_ratio} |"
            )
        return [*out, "", *self.target_lines()]

    def target_lines(self) -> list[str]:
        """Each target, met or missed."""
        worst = max(self.fixed, key=lambda row: row.us)
        met = "met" if worst.us <= FIXED_TARGET_US else "missed"
        lines = [
            f"- fixed cost of one call <= {FIXED_TARGET_US:g} us: worst {worst.us:.2f} us "
            f"({worst.call}, {worst.map}), {met}"
        ]
        auto = [row for row in self.batch if row.algorithm == "auto"]
        if all(row.warthog_us is None for row in auto):
            return [*lines, "- batch against warthog: not measured (no warthog run)"]
        forms = (
            ("list form", [(row.ratio, row.map) for row in auto]),
            ("array form", [(row.arrays_ratio, row.map) for row in auto]),
        )
        for form, measured in forms:
            ratios = [(ratio, name) for ratio, name in measured if ratio is not None]
            if not ratios:
                lines.append(f"- batch ({form}) against warthog: not measured by this run")
                continue
            worst_ratio, worst_map = max(ratios)
            met = "met" if worst_ratio <= BATCH_TARGET else "missed"
            lines.append(
                f"- batch (auto, {form}) per query <= {BATCH_TARGET:g}x warthog JPS2's on the "
                f"smaller maps: worst {worst_map} {worst_ratio:.2f}x, {met}"
            )
        return lines


def fixed_cost(walkable: np.ndarray, options: dict[str, Any], calls: int = FIXED_CALLS) -> float:
    """The fastest of `calls` trivial `find_path` calls (start == goal), in microseconds."""
    cells = np.argwhere(walkable)
    if len(cells) == 0:
        raise SimError("bench: a map with no walkable cell has no trivial query")
    cell = (int(cells[len(cells) // 2][0]), int(cells[len(cells) // 2][1]))
    clock = time.perf_counter_ns
    best = math.inf
    for _ in range(calls):
        began = clock()
        find_path(walkable, cell, cell, **options)
        took = clock() - began
        if took < best:
            best = took
    return best / 1000


def batch_row(map_path: Path, algorithm: str, warthog: Path | None) -> BatchRow:
    """Every query of the map's scenarios: `find_paths` per `CHUNK`, and `find_path` each."""
    options: dict[str, Any] = {"algorithm": algorithm}
    walkable = read_map(map_path).walkable
    scenarios = read_scenarios(map_path.with_name(map_path.name + ".scen"))
    starts = np.array([s.start for s in scenarios], dtype=np.int64)
    goals = np.array([s.goal for s in scenarios], dtype=np.int64)
    clock = time.thread_time
    chunks = range(0, len(scenarios), CHUNK)
    batch_best = [math.inf] * len(chunks)
    read_best = [math.inf] * len(chunks)
    arrays_best = [math.inf] * len(chunks)
    single_best = [math.inf] * len(chunks)
    results: list[PathResult] = []
    # Pass after pass, each chunk's least time kept, for the batch and for one call per query
    # alike, each over the whole file in turn (a chunk answered right after the same queries
    # would find the caches warm). Timed by this thread's processor time: on a shared machine a
    # run of milliseconds is rarely left alone, and the time others take is not the call's.
    for _ in range(PASSES):
        results = []
        costs: list[float] = []
        for index, first in enumerate(chunks):
            began = clock()
            answers = find_paths(
                walkable, starts[first : first + CHUNK], goals[first : first + CHUNK], **options
            )
            batch_best[index] = min(batch_best[index], clock() - began)
            # The cells are laid out when first read (lazy_cells): the batch with them read too.
            for answer in answers:
                len(answer.cells)
            read_best[index] = min(read_best[index], clock() - began)
            results += answers
            began = clock()
            batch = find_paths(
                walkable,
                starts[first : first + CHUNK],
                goals[first : first + CHUNK],
                as_arrays=True,
                **options,
            )
            arrays_best[index] = min(arrays_best[index], clock() - began)
            costs += batch.cost.tolist()
        kept: list[PathResult] = []  # kept as the batch's are: a caller wants its answers
        for index, first in enumerate(chunks):
            began = clock()
            kept += [
                find_path(walkable, scenario.start, scenario.goal, **options)
                for scenario in scenarios[first : first + CHUNK]
            ]
            single_best[index] = min(single_best[index], clock() - began)
    batch_s, single_s = sum(batch_best), sum(single_best)
    optimal = sum(s.accepts(r.cost) for s, r in zip(scenarios, results, strict=True))
    if costs != [result.cost for result in results]:
        raise SimError(f"bench: the array form's costs differ from the list form's on {map_path}")
    theirs = None
    if warthog is not None:
        figures = run_warthog(warthog, WARTHOG_OF[algorithm], map_path, sample=None, seed=0)
        theirs = figures.mean_query_us
    count = max(len(scenarios), 1)
    return BatchRow(
        map_path.name.removesuffix(".map"),
        algorithm,
        len(scenarios),
        optimal,
        1e6 * batch_s / count,
        1e6 * single_s / count,
        theirs,
        1e6 * sum(read_best) / count,
        1e6 * sum(arrays_best) / count,
    )


def run(
    directory: Path,
    *,
    warthog: Path | None,
    on_done: Callable[[int, str], object] | None = None,
) -> CallsReport:
    """Both measurements on the maps of `directory` named in `FIXED_MAPS` and `SMALL_MAPS`."""
    fixed = []
    for name in FIXED_MAPS:
        walkable = read_map(_map(directory, name)).walkable
        for label, options in CALL_OPTIONS:
            fixed.append(FixedCost(name, int(walkable.size), label, fixed_cost(walkable, options)))
        if on_done is not None:
            on_done(1, f"fixed {name}")
    rows = []
    for name in SMALL_MAPS:
        for algorithm in BATCH_ALGORITHMS:
            rows.append(batch_row(_map(directory, name), algorithm, warthog))
        if on_done is not None:
            on_done(1, f"batch {name}")
    return CallsReport(tuple(fixed), tuple(rows), None if warthog is None else str(warthog))


def steps() -> int:
    """How many `on_done` steps `run` reports."""
    return len(FIXED_MAPS) + len(SMALL_MAPS)


def _map(directory: Path, name: str) -> Path:
    path = directory / f"{name}.map"
    if not path.is_file():
        raise SimError(f"bench: --calls needs {name}.map in {directory}")
    return path
