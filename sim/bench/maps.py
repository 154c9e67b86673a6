"""`sim bench` on the Moving AI maps: our planner and its peers on the same queries, one table.

Every planner answers the same seeded sample of each map's scenarios. The runs are interleaved
per query (each query goes to every planner before the next query, in an order that rotates),
so machine noise hits everyone alike; ratios are steadier than absolute times. Each map gets a
table: the movement rule, whether the returned paths are legal under the Moving AI rule
(8-connected, diagonal sqrt(2), no corner cutting) and as short as the published optimum,
median and p95 ms per query, median expanded nodes where known, and ours/peer, the ratio of
the medians over the queries that peer answered (`sim.bench.map_report`). Ours runs twice:
`find_path` with its defaults (``auto``: jump point search on these uniform-cost maps) and
forced A*; then a row of unreachable queries (`sim.bench.unreachable`).

Only the query is timed: building a peer's graph for a map, reading its answer and checking
the path happen outside the clock. Peers that are not installed are skipped and named.
"""

from __future__ import annotations

import inspect
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from sim.bench.map_report import OURS_ASTAR, OURS_AUTO, OURS_PYTHON, Contestant, MapReport, Row
from sim.bench.peers import PEERS, RULE_MOVINGAI, Cell, Planner, Read
from sim.bench.unreachable import UNREACHABLE_QUERIES, time_unreachable, unreachable_setup
from sim.config import REPO_ROOT
from sim.errors import SimError
from sim.files import load_file
from sim.navigation import (
    PathResult,
    Query,
    Scenario,
    SearchSettings,
    find_path,
    read_map,
    read_scenarios,
)
from sim.navigation.maps.movingai import sample_scenarios
from sim.navigation.searches import kernel, landmarks

SLOW_PEER_MAX_CELLS = 256 * 256
"""Pure-Python peers run only on maps up to 256x256 cells (and only --peer-limit queries)."""


def movingai_dir() -> Path:
    """Where the Moving AI maps live: $MOVINGAI_DIR, else the benchmark set beside the repository.

    The 18 maps with their scenarios are too large to ship; the demo's three ship in
    experiments/maps/.
    """
    override = os.environ.get("MOVINGAI_DIR")
    return Path(override) if override else REPO_ROOT.parent / "shared" / "benchmarks" / "movingai"


def map_paths(directory: Path, names: Sequence[str] | None) -> list[Path]:
    """The chosen maps (all by default) that have a .scen beside them, smallest first."""
    if not directory.is_dir():
        raise SimError(f"bench: no Moving AI folder at {directory} (set $MOVINGAI_DIR)")
    known = {
        p.name.removesuffix(".map"): p
        for p in directory.glob("*.map")
        if p.with_name(p.name + ".scen").is_file()
    }
    if names is None:
        chosen = list(known.values())
    else:
        chosen = []
        for name in names:
            stem = name.removesuffix(".map")
            if stem not in known:
                raise SimError(f"bench: unknown map {name!r}; known: {', '.join(sorted(known))}")
            chosen.append(known[stem])
    if not chosen:
        raise SimError(f"bench: no .map with a .scen beside it in {directory}")
    return sorted(dict.fromkeys(chosen), key=lambda p: (p.stat().st_size, p.name))


@dataclass(frozen=True, slots=True)
class PathCheck:
    """The verdict on one returned path under the Moving AI rule.

    Attributes:
        legal: every step is one of the 8 moves between walkable cells, no corner is cut,
            and the path runs from start to goal.
        cost: the path's length under the rule (1 straight, sqrt(2) diagonal); ``inf`` if
            illegal.
        problem: what is wrong, or "" when legal.
    """

    legal: bool
    cost: float
    problem: str


def check_path(
    walkable: NDArray[np.bool_], cells: Sequence[Cell], start: Cell, goal: Cell
) -> PathCheck:
    """Check `cells` (``(row, col)``, start to goal) against the Moving AI movement rule.

    >>> grid = np.array([[1, 1], [0, 1]], dtype=bool)
    >>> check_path(grid, [(0, 0), (1, 1)], (0, 0), (1, 1)).problem
    'step 1 cuts the corner of (1, 0)'
    >>> round(check_path(grid, [(0, 0), (0, 1), (1, 1)], (0, 0), (1, 1)).cost, 1)
    2.0
    """
    if not cells or tuple(cells[0]) != start or tuple(cells[-1]) != goal:
        return PathCheck(False, math.inf, "does not run from start to goal")
    height, width = walkable.shape
    cost = 0.0
    for index, (row, col) in enumerate(cells):
        if not (0 <= row < height and 0 <= col < width) or not walkable[row, col]:
            return PathCheck(False, math.inf, f"cell {index} ({row}, {col}) is not walkable")
        if index == 0:
            continue
        prev_row, prev_col = cells[index - 1]
        dy, dx = row - prev_row, col - prev_col
        if max(abs(dy), abs(dx)) != 1:
            return PathCheck(False, math.inf, f"step {index} is not one of the 8 moves")
        if dy and dx:
            for corner in ((prev_row + dy, prev_col), (prev_row, prev_col + dx)):
                if not walkable[corner]:
                    return PathCheck(False, math.inf, f"step {index} cuts the corner of {corner}")
            cost += math.sqrt(2.0)
        else:
            cost += 1.0
    return PathCheck(True, cost, "")


def bench_map(
    map_path: Path,
    contestants: Sequence[Contestant],
    sample: int,
    seed: int,
    peer_limit: int,
    *,
    unreachable: int = UNREACHABLE_QUERIES,
    on_query: Callable[[], None] | None = None,
) -> MapReport:
    """Run every contestant on `sample` seeded scenarios of one map, interleaved per query.

    Then, unless `unreachable` is 0, the unreachable row: the first query and `unreachable`
    repeats of `find_path` with its defaults on seeded pairs in different regions
    (`sim.bench.unreachable`). `on_query` is called after each scenario and after the
    unreachable row (for a progress bar).
    """
    grid = load_file(read_map, map_path)
    scen_path = map_path.with_name(map_path.name + ".scen")
    scenarios = sample_scenarios(load_file(read_scenarios, scen_path), sample, seed)
    walkable = grid.walkable
    limited = spread(len(scenarios), peer_limit)
    rows: list[Row] = []
    planners: list[Planner | None] = []
    for contestant in contestants:
        row = Row(contestant)
        rows.append(row)
        if contestant.slow and walkable.size > SLOW_PEER_MAX_CELLS:
            row.skipped = "skipped: map > 256x256"
            planners.append(None)
        else:
            planners.append(contestant.prepare(walkable))
    for index, scenario in enumerate(scenarios):
        turn = index % len(rows)
        for row, planner in zip(
            rows[turn:] + rows[:turn], planners[turn:] + planners[:turn], strict=True
        ):
            if planner is None or (row.contestant.slow and index not in limited):
                continue
            _one_query(walkable, scenario, index, row, planner)
        if on_query is not None:
            on_query()
    name = map_path.name.removesuffix(".map")
    report = MapReport(name, grid.width, grid.height, len(scenarios), rows)
    report.landmarks_build_ms = landmarks.build_ms(walkable)
    if unreachable:
        # One more pair than the repeats: the first query is timed apart.
        setup = unreachable_setup(walkable, unreachable + 1, seed)
        if setup is not None:
            report.unreachable = time_unreachable(setup)
        if on_query is not None:
            on_query()
    return report


def _one_query(
    walkable: NDArray[np.bool_], scenario: Scenario, index: int, row: Row, planner: Planner
) -> None:
    # The bound is the longest the exact optimum may be, given how the length was printed.
    bound = scenario.optimal_length + scenario.tolerance
    began = time.perf_counter()
    raw = planner.plan(scenario.start, scenario.goal, bound)
    row.ms[index] = (time.perf_counter() - began) * 1000.0
    cells, expanded = planner.read(raw)
    if expanded is not None:
        row.expanded[index] = expanded
    verdict = check_path(walkable, cells or [], scenario.start, scenario.goal)
    if not verdict.legal:
        row.illegal.append(verdict.problem)
    elif not scenario.accepts(verdict.cost):
        row.longer += 1


def _ours(
    *, algorithm: str | None = None, implementation: str = "auto"
) -> Callable[[NDArray[np.bool_]], Planner]:
    """Planner factory for our `find_path`; no `algorithm`: its default, as users call it."""

    def prepare(walkable: NDArray[np.bool_]) -> Planner:
        def plan(start: Cell, goal: Cell, bound: float) -> PathResult:
            if algorithm is None:
                return find_path(walkable, start, goal, implementation=implementation)
            return find_path(
                walkable, start, goal, algorithm=algorithm, implementation=implementation
            )

        def read(raw: PathResult) -> Read:
            return (list(raw.cells) if raw.found else None), raw.expanded

        return Planner(plan, read)

    return prepare


def default_algorithm() -> str:
    """The search `find_path(walkable, start, goal)` runs on a Moving AI map ("jps", "astar").

    The default algorithm may be "auto", which picks per query; every Moving AI map is
    uniform-cost and 8-connected, so one open grid shows what it picks for all of them.
    """
    default = inspect.signature(find_path).parameters["algorithm"].default
    settings = SearchSettings.parse(algorithm=default)
    query = Query.check(np.ones((2, 2), dtype=bool), (0, 0), (1, 1), settings)
    return str(query.algorithm)


def contestants_for(peer_names: Sequence[str]) -> tuple[list[Contestant], list[str]]:
    """Our rows and the installed peers' rows; notes say what is missing and why.

    Ours: `find_path` as users call it (``auto``, labelled with what it picks), forced A*,
    and the Python reference of the default (pure Python: limited like the slow peers).
    """
    notes = []
    algorithm = default_algorithm()
    auto = f"ours (auto: {algorithm})"
    if not kernel.KERNEL_AVAILABLE:
        auto = f"ours (auto: {algorithm}, Python: kernel not built)"
        notes.append("note: sim.navigation.searches._kernel is not built: ours (auto) runs Python")
    entries = [
        Contestant(auto, RULE_MOVINGAI, _ours(), ours=True, key=OURS_AUTO),
        Contestant("ours A*", RULE_MOVINGAI, _ours(algorithm="astar"), ours=True, key=OURS_ASTAR),
        Contestant(
            f"ours (Python: {algorithm})",
            RULE_MOVINGAI,
            _ours(implementation="python"),
            slow=True,
            ours=True,
            key=OURS_PYTHON,
        ),
    ]
    for name in peer_names:
        peer = PEERS[name]
        problem = peer.available()
        if problem is not None:
            notes.append(f"peer {name} skipped: not installed ({problem}); pip install '.[bench]'")
            continue
        label = f"{name} {peer.version()}"
        entries.append(Contestant(label, peer.rule, peer.prepare, slow=peer.slow, key=name))
    return entries, notes


def spread(count: int, limit: int) -> set[int]:
    """Up to `limit` indices out of ``range(count)``, evenly spaced, first and last included.

    The sample is in file order, which the files sort by difficulty bucket, so the first N
    would all be short queries.

    >>> sorted(spread(50, 3)), sorted(spread(2, 10))
    ([0, 24, 49], [0, 1])
    """
    if limit >= count:
        return set(range(count))
    if limit == 1:
        return {0}
    return {round(i * (count - 1) / (limit - 1)) for i in range(limit)}
