"""Jump point search: A*'s costs, legal paths, and the compiled search equal to the reference.

The reference is `sim.navigation.searches.jps.JumpPointSearch` (``implementation="python"``), the
compiled one `_jps.c` (``implementation="c"``); "identical" means ``==`` on the cells, the cost
(to the last bit) and the expansion count. A* here is ``algorithm="astar"``.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.typing import NDArray

from sim.navigation import JumpPointSearch, MovingAIMap, find_path, read_map, read_scenarios
from sim.navigation.maps.movingai import sample_scenarios
from sim.navigation.query import (
    JPS_HEURISTICS,
    Algorithm,
    PathResult,
    Query,
    Reason,
    SearchSettings,
)
from sim.navigation.searches.kernel import JPS_AVAILABLE, jps_flat
from tests.helpers.grids import ascii_grid, grid
from tests.helpers.oracles import assert_legal_path, oracle_cost, steps_cost
from tests.helpers.paths import movingai_dir
from tests.helpers.problems import PROPERTY_SETTINGS, Problem, problems

needs_jps = pytest.mark.skipif(not JPS_AVAILABLE, reason="sim.navigation.searches._jps not built")

MAP_PATHS = sorted(movingai_dir().glob("*.map"))
SCENARIOS_PER_MAP = 12
PYTHON_SIDE = 200
"""Maps up to this many cells a side are also searched by the Python reference."""


def jps(walkable: NDArray[np.bool_], start: Any, goal: Any, implementation: str) -> PathResult:
    # A copy each: on one array a second call may answer a known "unreachable" from the
    # region cache without searching, and these tests compare searches.
    return find_path(walkable.copy(), start, goal, algorithm="jps", implementation=implementation)


def astar(walkable: NDArray[np.bool_], start: Any, goal: Any) -> PathResult:
    return find_path(walkable.copy(), start, goal, algorithm="astar", implementation="python")


def assert_identical(c: PathResult, python: PathResult, context: str) -> None:
    assert (c.found, c.reason, c.cells) == (python.found, python.reason, python.cells), context
    assert c.cost == python.cost, context  # exact: the same steps summed in the same order
    assert c.expanded == python.expanded, context


def assert_like_astar(
    result: PathResult, walkable: NDArray[np.bool_], start: Any, goal: Any
) -> None:
    expected = astar(walkable, start, goal)
    context = f"{start} -> {goal}\n{ascii_grid(walkable, result.cells)}"
    assert (result.found, result.reason) == (expected.found, expected.reason), context
    if not expected.found:
        assert (result.cells, result.cost) == ((), math.inf), context
        return
    assert math.isclose(result.cost, expected.cost, rel_tol=1e-12), context
    assert_legal_path(walkable, result.cells, start, goal, diagonal=True)
    assert result.cost == steps_cost(result.cells), context  # summed step by step from start


@PROPERTY_SETTINGS
@given(problem=problems(with_costs=False))
def test_python_reference_costs_what_astar_costs(problem: Problem) -> None:
    p = problem
    result = jps(p.walkable, p.start, p.goal, "python")
    assert_like_astar(result, p.walkable, p.start, p.goal)
    if result.found:
        expected = oracle_cost(p.walkable, p.start, p.goal, diagonal=True)
        assert result.cost == pytest.approx(expected, rel=1e-9, abs=1e-9)


@needs_jps
@PROPERTY_SETTINGS
@given(problem=problems(with_costs=False), heuristic=st.sampled_from(JPS_HEURISTICS))
def test_compiled_search_matches_reference(problem: Problem, heuristic: str) -> None:
    p = problem
    options: dict[str, Any] = {"algorithm": "jps", "heuristic": heuristic}
    c = find_path(p.walkable.copy(), p.start, p.goal, implementation="c", **options)
    python = find_path(p.walkable.copy(), p.start, p.goal, implementation="python", **options)
    assert_identical(c, python, f"{heuristic} {p!r}")
    assert_like_astar(c, p.walkable, p.start, p.goal)


@PROPERTY_SETTINGS
@given(
    density=st.sampled_from((0.0, 0.1, 0.25, 0.4, 0.55)),
    length=st.integers(1, 60),
    seed=st.integers(0, 2**32 - 1),
    vertical=st.booleans(),
)
def test_single_row_and_column_grids(
    density: float, length: int, seed: int, vertical: bool
) -> None:
    rng = np.random.default_rng(seed)
    walkable = rng.random((1, length)) >= density
    if vertical:
        walkable = np.ascontiguousarray(walkable.T)
    cells = list(zip(*np.nonzero(walkable), strict=True))
    if not cells:
        return
    start, goal = (tuple(int(i) for i in cells[k]) for k in rng.integers(len(cells), size=2))
    for implementation in ("python", "c") if JPS_AVAILABLE else ("python",):
        assert_like_astar(jps(walkable, start, goal, implementation), walkable, start, goal)


ROOM = grid(
    """
    ......#...
    .####.#.#.
    .#....#.#.
    .#.####.#.
    ..........
    """
)


@pytest.mark.parametrize(
    ("start", "goal", "reason"),
    [
        pytest.param((0, 0), (0, 0), Reason.FOUND, id="start-is-goal"),
        pytest.param((0, 0), (0, 6), Reason.GOAL_BLOCKED, id="goal-blocked"),
        pytest.param((0, 0), (9, 9), Reason.GOAL_OUTSIDE, id="goal-outside"),
        pytest.param((0, 0), (2, 3), Reason.FOUND, id="round-the-walls"),
        pytest.param((4, 9), (0, 0), Reason.FOUND, id="far-corner"),
    ],
)
@pytest.mark.parametrize("implementation", ["python", "c"])
def test_ends(start: Any, goal: Any, reason: Reason, implementation: str) -> None:
    if implementation == "c" and not JPS_AVAILABLE:
        pytest.skip("sim.navigation.searches._jps not built")
    result = jps(ROOM, start, goal, implementation)
    assert result.reason == reason
    if reason is Reason.FOUND:
        assert_like_astar(result, ROOM, start, goal)
    else:
        assert (result.cells, result.cost, result.expanded) == ((), math.inf, 0)
    if start == goal:
        assert (result.cells, result.cost, result.expanded) == ((start,), 0.0, 1)


@pytest.mark.parametrize("implementation", ["python", "c"])
def test_unreachable_goal_searches_the_whole_region(implementation: str) -> None:
    if implementation == "c" and not JPS_AVAILABLE:
        pytest.skip("sim.navigation.searches._jps not built")
    walkable = grid(
        """
        ...#...
        ...#...
        ...#...
        """
    )
    result = jps(walkable, (1, 0), (1, 6), implementation)
    assert (result.found, result.reason, result.cells) == (False, Reason.UNREACHABLE, ())
    assert result.expanded > 0


def test_expands_far_fewer_cells_than_astar_on_an_open_room() -> None:
    walkable = np.ones((30, 40), dtype=bool)
    walkable[5:25, 20] = False
    result = jps(walkable, (15, 2), (15, 38), "python")
    reference = astar(walkable, (15, 2), (15, 38))
    assert result.cost == pytest.approx(reference.cost, rel=1e-12)
    assert result.expanded * 10 < reference.expanded


def test_stepping_gives_the_same_search_as_running() -> None:
    walkable = np.random.default_rng(5).random((25, 25)) >= 0.3
    walkable[0, 0] = walkable[24, 24] = True
    stepped = JumpPointSearch(walkable, (0, 0), (24, 24))
    currents = []
    while not stepped.advance(1):
        currents.append(stepped.current)
        assert stepped.current in stepped.jump_points
        assert stepped.current not in stepped.frontier
    assert stepped.result() == JumpPointSearch(walkable, (0, 0), (24, 24)).run()
    assert len(currents) + 1 == stepped.expanded
    parent, g = stepped.jump_points[(24, 24)]
    assert parent is not None
    assert g == pytest.approx(stepped.result().cost)


@needs_jps
def test_compiled_search_reuses_its_workspace_across_grid_sizes() -> None:
    # A big search, a small one, a big one again: what the last one touched must be cleared.
    big, small = np.ones((60, 50), dtype=bool), np.ones((5, 7), dtype=bool)
    big[10:50, 25] = False
    for walkable, goal in ((big, (59, 49)), (small, (4, 6)), (big, (30, 2)), (small, (0, 6))):
        context = f"{walkable.shape} -> {goal}"
        assert_identical(
            jps(walkable, (0, 0), goal, "c"), jps(walkable, (0, 0), goal, "python"), context
        )


def test_unfinished_search_has_no_result() -> None:
    search = JumpPointSearch(np.ones((5, 5), dtype=bool), (0, 0), (4, 4))
    with pytest.raises(RuntimeError, match="has not finished"):
        search.result()


# ---- the shared Moving AI maps: the published optimum, and C equal to Python ----


@cache
def load(map_path: Path) -> MovingAIMap:
    return read_map(map_path)


@pytest.mark.parametrize("map_path", MAP_PATHS or [None], ids=lambda p: p.stem if p else "none")
def test_published_optimum_on_every_shared_map(map_path: Path | None) -> None:
    if map_path is None:
        pytest.skip(f"no Moving AI maps in {movingai_dir()} (set MOVINGAI_DIR)")
    grid_map = load(map_path)
    scenarios = read_scenarios(map_path.with_name(map_path.name + ".scen"))
    small = max(grid_map.walkable.shape) <= PYTHON_SIDE
    implementations: tuple[str, ...] = ("c", "python") if small else ("c",)
    if not JPS_AVAILABLE:
        if not small:
            pytest.skip(
                "sim.navigation.searches._jps not built; the Python reference is too slow here"
            )
        implementations = ("python",)
    for scenario in sample_scenarios(scenarios, SCENARIOS_PER_MAP, seed=17):
        context = f"{map_path.stem} line {scenario.line}"
        results = [
            jps(grid_map.walkable, scenario.start, scenario.goal, implementation)
            for implementation in implementations
        ]
        for result in results:
            assert result.found, context
            # Within what the printed length allows: 6 significant digits or fixed decimals.
            assert scenario.accepts(result.cost), (context, result.cost, scenario.optimal_length)
            assert_legal_path(
                grid_map.walkable, result.cells, scenario.start, scenario.goal, diagonal=True
            )
        if len(results) == 2:
            assert_identical(results[0], results[1], context)


@needs_jps
@pytest.mark.parametrize("name", ["maze512-1-0", "random512-40-0", "brc202d"])
def test_compiled_search_matches_reference_on_big_maps(name: str) -> None:
    map_path = movingai_dir() / f"{name}.map"
    if not map_path.is_file():
        pytest.skip(f"no {map_path}")
    walkable = load(map_path).walkable
    scenarios = read_scenarios(map_path.with_name(map_path.name + ".scen"))
    for scenario in sample_scenarios(scenarios, 2, seed=3):
        c = jps(walkable, scenario.start, scenario.goal, "c")
        python = jps(walkable, scenario.start, scenario.goal, "python")
        assert_identical(c, python, f"{name} line {scenario.line}")


@needs_jps
@pytest.mark.parametrize("name", ["arena", "den312d", "ht_chantry"])
def test_walks_cut_past_the_goal_keep_the_reference_answers(name: str) -> None:
    # The compiled diagonal walks stop once past the queued goal (_jps.c, walk_diagonal): on
    # small open maps most queries end after the start's expansion, where that cuts the most.
    map_path = movingai_dir() / f"{name}.map"
    if not map_path.is_file():
        pytest.skip(f"no {map_path}")
    walkable = load(map_path).walkable
    scenarios = read_scenarios(map_path.with_name(map_path.name + ".scen"))
    for scenario in sample_scenarios(scenarios, 12, seed=5):
        for heuristic in JPS_HEURISTICS:
            options: dict[str, Any] = {"algorithm": "jps", "heuristic": heuristic}
            ends = (scenario.start, scenario.goal)
            c = find_path(walkable, *ends, implementation="c", **options)
            python = find_path(walkable, *ends, implementation="python", **options)
            assert_identical(c, python, f"{name} line {scenario.line} {heuristic}")


# ---- "auto" and "jps" in find_path ----

OPEN = np.ones((6, 6), dtype=bool)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        pytest.param({}, Algorithm.JPS, id="defaults"),
        pytest.param({"costs": np.ones((6, 6))}, Algorithm.JPS, id="costs-all-1"),
        pytest.param({"costs": np.ones((6, 6)) + np.eye(6)}, Algorithm.ASTAR, id="costs"),
        pytest.param({"diagonal": False}, Algorithm.ASTAR, id="4-connected"),
        pytest.param({"weight": 1.5}, Algorithm.ASTAR, id="weighted"),
        pytest.param({"heuristic": "euclidean"}, Algorithm.ASTAR, id="euclidean"),
        pytest.param({"heuristic": "manhattan"}, Algorithm.ASTAR, id="manhattan"),
    ],
)
def test_auto_picks_jps_only_where_it_finds_astars_paths(
    options: dict[str, Any], expected: Algorithm
) -> None:
    settings = SearchSettings.parse(**options)
    assert Query.check(OPEN, (0, 0), (5, 5), settings).algorithm is expected
    settings = SearchSettings.parse(algorithm="auto", **options)
    assert Query.check(OPEN, (0, 0), (5, 5), settings).algorithm is expected


def test_auto_ignores_costs_on_blocked_cells() -> None:
    walkable = OPEN.copy()
    walkable[2, 2] = False
    costs = np.ones((6, 6))
    costs[2, 2] = np.inf
    query = Query.check(walkable, (0, 0), (5, 5), SearchSettings(costs=costs))
    assert (query.algorithm, query.costs) == (Algorithm.JPS, None)


@pytest.mark.parametrize("implementation", ["python", "c"])
def test_default_is_jump_point_search(implementation: str) -> None:
    if implementation == "c" and not JPS_AVAILABLE:
        pytest.skip("sim.navigation.searches._jps not built")
    walkable = np.ones((20, 30), dtype=bool)
    walkable[3:17, 15] = False
    default = find_path(walkable, (10, 1), (10, 28), implementation=implementation)
    forced = jps(walkable, (10, 1), (10, 28), implementation)
    astar_result = find_path(walkable, (10, 1), (10, 28), algorithm="astar")
    assert default == forced
    assert default.expanded < astar_result.expanded
    with_terrain = find_path(
        walkable, (10, 1), (10, 28), costs=np.full((20, 30), 2.0), implementation=implementation
    )
    assert with_terrain.cost == pytest.approx(2 * default.cost)
    assert with_terrain.expanded > default.expanded


@pytest.mark.parametrize(
    ("options", "message"),
    [
        pytest.param(
            {"costs": np.full((6, 6), 2.0)},
            r"jps needs a grid without costs \(every walkable cell costing 1\), "
            r"got costs\[0, 0\] = 2",
            id="costs",
        ),
        pytest.param({"diagonal": False}, r"jps needs 8-connected moves", id="4-connected"),
        pytest.param(
            {"heuristic": "manhattan"},
            r"jps needs a heuristic that never overestimates .* got 'manhattan'",
            id="manhattan",
        ),
        pytest.param({"weight": 2.0}, r"jps runs with weight 1 only, got 2.0", id="weight"),
    ],
)
def test_jps_refuses_what_it_cannot_run(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        find_path(OPEN, (0, 0), (5, 5), algorithm="jps", **options)


def test_old_errors_keep_their_words() -> None:
    with pytest.raises(ValueError, match=r"^weight must be a finite number >= 1, got 0.5$"):
        find_path(OPEN, (0, 0), (5, 5), weight=0.5)
    with pytest.raises(ValueError, match=r"unknown algorithm 'ida\*'; expected one of auto, "):
        find_path(OPEN, (0, 0), (5, 5), algorithm="ida*")


@pytest.mark.parametrize("algorithm", ["jps", "auto"])
def test_step_by_step_search_refuses_jps(algorithm: str) -> None:
    from sim.navigation import start_search

    with pytest.raises(ValueError, match="jump point search runs in"):
        start_search(OPEN, (0, 0), (5, 5), algorithm=algorithm)


@needs_jps
@pytest.mark.parametrize(
    ("walkable", "start", "message"),
    [
        pytest.param(np.ones((3, 3), dtype=np.uint8), 0, "walkable must be a 2-D numpy bool"),
        pytest.param(np.ones((3, 6), dtype=bool)[:, ::2], 0, "walkable must be C-contiguous"),
        pytest.param(np.ones((3, 3), dtype=bool), 9, "start 9 lies outside the 9 cells"),
        pytest.param(np.eye(3, dtype=bool), 1, "start 1 is not a walkable cell"),
    ],
)
def test_compiled_boundary_checks_its_input(
    walkable: NDArray[Any], start: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        jps_flat(walkable, start, 0)


@needs_jps
def test_compiled_search_reads_only_bools() -> None:
    # Its word scans need every byte 0 or 1, which only a bool buffer promises.
    from sim.navigation.searches import _jps

    with pytest.raises(ValueError, match="walkable must be 9 contiguous bools"):
        _jps.search(np.ones((3, 3), dtype=np.uint8), 3, 3, 0, 8, 1, 1.0)
