"""`sim bench --dynamic`: incremental replanning against A* from scratch while the map changes.

For each map, a few seeded scenarios from the longer end of its .scen file; for each scenario
an agent walks from start to goal while the world changes under it. Each round:

1. the agent walks `STEP_CELLS` cells along its current path (it waits when it has none);
2. `CHANGED_CELLS` (K) cells change within `NEAR_CELLS` of the rest of its path: half of
   them (at most) are cells an earlier round blocked, now free again, the rest free cells of
   the map, now blocked; never the agent's cell or the goal;
3. both planners answer the same grid: `IncrementalSearch` repairs the search it kept (the
   goal is fixed, so it never starts over) and `find_path` (A*) starts from scratch, both
   8-connected, octile, no corner cutting, in the same process, interleaved (the order
   alternates every round), each timed with `time.perf_counter` around the public call.

Each round compares the two paths' costs canonically (`canonical_cost`: the exactly rounded
sum of the step lengths, so equal on these uniform-cost maps whenever the paths are equally
long) and checks the incremental path is legal. The medians are over every replanning round
of the map; the first plan of each scenario (a fresh search for both) is reported apart.

Why K = 10: a few moving blocks or doors near the route per replan, as in the traffic scene;
changes near the path, not anywhere on the map, so most rounds really cut or open the route.
"""

from __future__ import annotations

import itertools
import math
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from sim.bench.dynamic_report import TARGET_SIDE, DynamicReport, MapRun
from sim.bench.maps import check_path
from sim.bench.progress import Progress
from sim.errors import SimError
from sim.files import load_file
from sim.navigation import (
    Cell,
    IncrementalSearch,
    PathResult,
    Scenario,
    find_path,
    read_map,
    read_scenarios,
)
from sim.navigation.maps.movingai import sample_scenarios
from sim.navigation.searches import kernel

CHANGED_CELLS = 10
"""K: cells toggled per round."""
SCENARIOS = 6
"""Scenarios per map in the default run."""
ROUNDS = 30
"""Replanning rounds per scenario (fewer if the agent reaches the goal first)."""
STEP_CELLS = 3
"""Cells the agent walks along its path between two replans."""
NEAR_CELLS = 2
"""Changed cells lie within this many cells (Chebyshev distance) of the remaining path."""
LONG_SHARE = 0.25
"""Scenarios are drawn from this longest share of the map's .scen file."""
DEFAULT_SIDE = TARGET_SIDE
"""The default run takes the shared maps of `DEFAULT_SIDE` x `DEFAULT_SIDE` cells."""
SQRT2 = math.sqrt(2.0)

_OFFSETS = np.array(
    [
        (dr, dc)
        for dr in range(-NEAR_CELLS, NEAR_CELLS + 1)
        for dc in range(-NEAR_CELLS, NEAR_CELLS + 1)
    ],
    dtype=np.intp,
)


def canonical_cost(cells: Sequence[Cell]) -> float:
    """The path's length on a uniform-cost grid: `math.fsum` of its steps (1 or sqrt 2).

    fsum rounds the exact sum once, so two paths with as many straight and diagonal steps
    give the same float whatever the order of their steps; and since sqrt 2 is irrational,
    equal real lengths mean equal counts. So exact equality is the right test.

    >>> canonical_cost([(0, 0), (1, 1), (1, 2)]) == 1 + math.sqrt(2)
    True
    """
    steps = [
        SQRT2 if (r1 != r0 and c1 != c0) else 1.0
        for (r0, c0), (r1, c1) in itertools.pairwise(cells)
    ]
    return math.fsum(steps)


def default_maps(paths: Sequence[Path]) -> list[Path]:
    """Of `paths`, the maps of `DEFAULT_SIDE` x `DEFAULT_SIDE` cells (read from their headers)."""
    return [path for path in paths if _header_size(path) == (DEFAULT_SIDE, DEFAULT_SIDE)]


def _header_size(path: Path) -> tuple[int, int] | None:
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            head = [next(lines, "") for _ in range(4)]
    except OSError:
        return None
    values = {}
    for line in head:
        words = line.split()
        if len(words) == 2:
            values[words[0]] = words[1]
    try:
        return int(values["width"]), int(values["height"])
    except (KeyError, ValueError):
        return None


def choose_implementation(implementation: str) -> tuple[str, list[str]]:
    """Both planners' implementation for "auto" (C when both kernels are built), with notes.

    Both run the same language, so the times compare like for like: when either compiled
    kernel is missing, both run the Python reference, and a note says so.
    """
    if implementation != "auto":
        return implementation, []
    missing = []
    if not kernel.KERNEL_AVAILABLE:
        missing.append("sim.navigation.searches._kernel (A*)")
    try:
        IncrementalSearch(implementation="c")
    except ValueError:
        missing.append("the incremental search's kernel")
    if not missing:
        return "c", []
    return "python", [
        f"note: {' and '.join(missing)} not built: both planners run the Python reference"
    ]


def bench_dynamic_map(
    map_path: Path,
    *,
    scenarios: int = SCENARIOS,
    rounds: int = ROUNDS,
    changed: int = CHANGED_CELLS,
    seed: int = 0,
    implementation: str = "c",
    progress: Progress | None = None,
) -> MapRun:
    """Measure `rounds` replans of `scenarios` seeded long scenarios of one map (see module)."""
    grid = load_file(read_map, map_path)
    scen_path = map_path.with_name(map_path.name + ".scen")
    chosen = _long_scenarios(load_file(read_scenarios, scen_path), scenarios, seed)
    if not chosen:
        raise SimError(f"bench: {scen_path}: no scenarios")
    name = map_path.name.removesuffix(".map")
    run = MapRun(name, grid.width, grid.height, implementation, changed, scenarios=len(chosen))
    for scenario in chosen:
        rng = np.random.default_rng([seed, zlib.crc32(name.encode()), scenario.line])
        _walk(run, grid.walkable.copy(), scenario, rounds, rng, progress)
    return run


def _long_scenarios(scenarios: list[Scenario], count: int, seed: int) -> list[Scenario]:
    """`count` scenarios drawn with `seed` from the longest `LONG_SHARE` of the file."""
    by_length = sorted(scenarios, key=lambda s: (s.optimal_length, s.line))
    longest = by_length[int(len(by_length) * (1.0 - LONG_SHARE)) :]
    return sample_scenarios(sorted(longest, key=lambda s: s.line), count, seed)


def _walk(
    run: MapRun,
    walkable: NDArray[np.bool_],
    scenario: Scenario,
    rounds: int,
    rng: np.random.Generator,
    progress: Progress | None,
) -> None:
    """One scenario: a first plan, then up to `rounds` of walk, toggle, replan (see module)."""
    incremental = IncrementalSearch(implementation=run.implementation)
    start, goal = scenario.start, scenario.goal
    fresh, astar_ms, path, incremental_ms = _replan_both(run, incremental, walkable, start, goal)
    run.astar_first_ms.append(astar_ms)
    run.incremental_first_ms.append(incremental_ms)
    _compare(run, walkable, 0, fresh, path, start, goal)
    route = list(path.cells)
    ours: list[int] = []  # flat cells this scenario blocked that are still blocked
    for number in range(1, rounds + 1):
        if path.found:  # without a path the agent waits where it stands
            route = route[min(STEP_CELLS, len(route) - 1) :]
            start = route[0]
        if start == goal:
            if progress is not None:
                progress.advance(rounds - number + 1)
            return
        _toggle(walkable, route or [start], start, goal, run.changed, ours, rng)
        fresh, astar_ms, path, incremental_ms = _replan_both(
            run, incremental, walkable, start, goal, astar_first=number % 2 == 0
        )
        run.astar_ms.append(astar_ms)
        run.incremental_ms.append(incremental_ms)
        run.astar_expanded.append(fresh.expanded)
        run.incremental_expanded.append(path.expanded)
        run.repaired_rounds += incremental.last_repaired
        _compare(run, walkable, number, fresh, path, start, goal)
        if path.found:
            route = list(path.cells)
        else:  # changes keep coming near the route it had
            run.unreachable_rounds += 1
        if progress is not None:
            progress.advance(1, run.name)


def _replan_both(
    run: MapRun,
    incremental: IncrementalSearch,
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    *,
    astar_first: bool = True,
) -> tuple[PathResult, float, PathResult, float]:
    """A* from scratch and the incremental repair on the same grid, each timed in ms."""

    def astar() -> PathResult:
        # Named: find_path's default ("auto") is jump point search on these grids, whose
        # expansions (jump points) do not compare with the cells D* Lite expands.
        return find_path(
            walkable, start, goal, algorithm="astar", implementation=run.implementation
        )

    def repair() -> PathResult:
        return incremental.plan(walkable, start, goal)

    if astar_first:
        fresh, astar_ms = _timed(astar)
        path, incremental_ms = _timed(repair)
    else:
        path, incremental_ms = _timed(repair)
        fresh, astar_ms = _timed(astar)
    return fresh, astar_ms, path, incremental_ms


def _timed(plan: Callable[[], PathResult]) -> tuple[PathResult, float]:
    began = time.perf_counter()
    result = plan()
    return result, (time.perf_counter() - began) * 1000.0


def _toggle(
    walkable: NDArray[np.bool_],
    route: Sequence[Cell],
    start: Cell,
    goal: Cell,
    count: int,
    ours: list[int],
    rng: np.random.Generator,
) -> None:
    """Change `count` distinct cells near `route`: free up to half of `ours`, block the rest.

    Fewer change only when fewer free cells lie near the route.
    """
    flat = walkable.reshape(-1)
    height, width = walkable.shape
    freed = []
    if ours:
        picks = rng.choice(len(ours), size=min(len(ours), count // 2), replace=False)
        for index in sorted((int(i) for i in picks), reverse=True):
            freed.append(ours.pop(index))
        flat[freed] = True
    cells = np.asarray(route, dtype=np.intp)
    near = (cells[:, None, :] + _OFFSETS[None, :, :]).reshape(-1, 2)
    inside = (near >= 0).all(axis=1) & (near[:, 0] < height) & (near[:, 1] < width)
    candidates = np.unique(near[inside, 0] * width + near[inside, 1])
    candidates = candidates[flat[candidates]]
    never = [start[0] * width + start[1], goal[0] * width + goal[1], *freed]
    candidates = candidates[~np.isin(candidates, never)]
    wanted = min(count - len(freed), len(candidates))
    blocked = rng.choice(candidates, size=wanted, replace=False) if wanted else candidates[:0]
    flat[blocked] = False
    ours.extend(int(cell) for cell in blocked)


def _compare(
    run: MapRun,
    walkable: NDArray[np.bool_],
    number: int,
    fresh: PathResult,
    path: PathResult,
    start: Cell,
    goal: Cell,
) -> None:
    """Record a mismatch if the two answers differ in finding a path, in cost, or legality."""
    where = f"{run.name} round {number} from {start} to {goal}"
    if fresh.found != path.found:
        run.mismatches.append(f"{where}: A* found={fresh.found}, incremental found={path.found}")
        return
    if not fresh.found:
        return
    verdict = check_path(walkable, path.cells, start, goal)
    if not verdict.legal:
        run.mismatches.append(f"{where}: incremental path illegal: {verdict.problem}")
        return
    astar_cost, incremental_cost = canonical_cost(fresh.cells), canonical_cost(path.cells)
    if astar_cost != incremental_cost:
        run.mismatches.append(
            f"{where}: A* cost {astar_cost!r}, incremental cost {incremental_cost!r}"
        )


def run_dynamic(
    map_paths: Sequence[Path],
    *,
    scenarios: int | None = None,
    rounds: int | None = None,
    changed: int = CHANGED_CELLS,
    seed: int = 0,
    implementation: str = "c",
) -> DynamicReport:
    """Run `bench_dynamic_map` on every map, with a progress line on a terminal.

    `scenarios` and `rounds` default to `SCENARIOS` and `ROUNDS` as they are at the call.
    """
    scenarios = SCENARIOS if scenarios is None else scenarios
    rounds = ROUNDS if rounds is None else rounds
    progress = Progress(len(map_paths) * scenarios * rounds, "bench --dynamic")
    try:
        runs = tuple(
            bench_dynamic_map(
                path,
                scenarios=scenarios,
                rounds=rounds,
                changed=changed,
                seed=seed,
                implementation=implementation,
                progress=progress,
            )
            for path in map_paths
        )
    finally:
        progress.close()
    return DynamicReport(
        runs, scenarios, rounds, changed, STEP_CELLS, NEAR_CELLS, seed, implementation
    )
