"""Incremental search (D* Lite): every repaired path is legal and costs what a fresh A* costs.

Random scenarios toggle cells, recost them and move the start (and now and then the goal)
between plans; after each change the planner's answer is checked against `find_path` on the
same grid. Costs are compared canonically, as `math.fsum` of each path's step costs: two
shortest paths may differ, and their forward float sums may then differ in the last bits. On
uniform grids and on grids whose costs are powers of two the canonical sums must be exactly
equal: each is the correctly rounded value of ``A + B * fl(sqrt 2)`` with dyadic A and B, and
equal real costs mean equal A and B. With arbitrary float costs two different real costs can
come closer than the rounding of a sum (and A* counts costs within 2**-30 as ties), so there
they may differ by 1e-9 relative.

The C kernel must give exactly the Python reference's answers: cells, cost (to the last bit),
expansion count, repaired flag and changed-cell count, step by step.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sim.navigation import IncrementalSearch, PathResult, find_path, read_map, read_scenarios
from sim.navigation.searches.incremental import INCREMENTAL_AVAILABLE
from tests.helpers.grids import ascii_grid, grid
from tests.helpers.oracles import SQRT2, assert_legal_path, steps_cost
from tests.helpers.paths import movingai_dir
from tests.helpers.problems import PROPERTY_SETTINGS

# Fewer examples where each is slow (the Python reference, large grids): this file stays fast.
FEW_EXAMPLES = settings(PROPERTY_SETTINGS, max_examples=150)
needs_c = pytest.mark.skipif(
    not INCREMENTAL_AVAILABLE, reason="sim.navigation.searches._incremental not built"
)

CONSISTENT = (
    (True, "octile"),
    (True, "euclidean"),
    (True, "chebyshev"),
    (True, "zero"),
    (False, "manhattan"),
    (False, "octile"),
    (False, "euclidean"),
    (False, "chebyshev"),
    (False, "zero"),
)
POWERS_OF_TWO = (0.25, 0.5, 1.0, 1.0, 1.0, 2.0, 4.0, 8.0, 64.0)
LEVELS = (1.0, 1.0, 1.0, 1.25, 1.5, 2.0, 3.0, 7.5)
EXACT_KINDS = ("none", "powers")
FLOAT_REL = 1e-9


@dataclass(frozen=True)
class Scenario:
    walkable: NDArray[np.bool_]
    costs: NDArray[np.float64] | None
    cost_kind: str
    start: tuple[int, int]
    goal: tuple[int, int]
    events: tuple[tuple[Any, ...], ...]

    def __repr__(self) -> str:
        return (
            f"Scenario(start={self.start}, goal={self.goal}, costs={self.cost_kind}, "
            f"events={self.events})\n{ascii_grid(self.walkable)}"
        )


def cost_values(kind: str) -> st.SearchStrategy[float]:
    if kind == "powers":
        return st.sampled_from(POWERS_OF_TWO)
    if kind == "levels":
        return st.sampled_from(LEVELS)
    return st.floats(0.25, 100.0, allow_nan=False)


@st.composite
def scenarios(draw: st.DrawFn, *, max_side: int = 16, max_events: int = 10) -> Scenario:
    """A grid with walls and maybe costs, ends, then toggles, recosts, start and goal moves."""
    height = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    walls_in_six = draw(st.sampled_from((0, 1, 2)))
    elements = st.sampled_from((True,) * (6 - walls_in_six) + (False,) * walls_in_six)
    walkable = draw(hnp.arrays(np.bool_, (height, width), elements=elements)).copy()
    kind = draw(st.sampled_from(("none", "powers", "levels", "floats")))
    costs = None
    if kind != "none":
        costs = draw(hnp.arrays(np.float64, (height, width), elements=cost_values(kind))).copy()
    cells = st.tuples(st.integers(0, height - 1), st.integers(0, width - 1))
    start, goal = draw(cells), draw(cells)
    walkable[start] = walkable[goal] = True
    event = st.one_of(
        st.tuples(st.just("toggle"), st.lists(cells, min_size=1, max_size=4)),
        st.tuples(st.just("start"), cells),
        st.tuples(st.just("goal"), cells),
        *([st.tuples(st.just("cost"), cells, cost_values(kind))] if costs is not None else []),
    )
    events = draw(st.lists(event, max_size=max_events))
    return Scenario(walkable, costs, kind, start, goal, tuple(events))


def replay(scenario: Scenario) -> list[tuple[NDArray[np.bool_], Any, Any, Any]]:
    """Each grid state of a scenario, in order: (walkable, costs, start, goal) copies."""
    walkable = scenario.walkable.copy()
    costs = None if scenario.costs is None else scenario.costs.copy()
    start, goal = scenario.start, scenario.goal
    states = [(walkable.copy(), None if costs is None else costs.copy(), start, goal)]
    for event in scenario.events:
        if event[0] == "toggle":
            for cell in event[1]:
                walkable[cell] = not walkable[cell]
        elif event[0] == "cost":
            assert costs is not None
            costs[event[1]] = event[2]
        elif event[0] == "start":
            start = event[1]
        else:
            goal = event[1]
        states.append((walkable.copy(), None if costs is None else costs.copy(), start, goal))
    return states


def canonical_cost(cells: tuple[tuple[int, int], ...], costs: Any) -> float:
    """The exact sum of a path's step costs, correctly rounded once."""
    return math.fsum(
        (SQRT2 if (r0 != r1 and c0 != c1) else 1.0) * (1.0 if costs is None else costs[r1, c1])
        for (r0, c0), (r1, c1) in itertools.pairwise(cells)
    )


def assert_same_as_astar(
    result: PathResult,
    walkable: Any,
    costs: Any,
    start: Any,
    goal: Any,
    *,
    diagonal: bool,
    heuristic: str,
    exact: bool,
    context: str,
) -> None:
    fresh = find_path(walkable, start, goal, diagonal=diagonal, heuristic=heuristic, costs=costs)
    assert result.found == fresh.found, context
    assert result.reason == fresh.reason, context
    if not fresh.found:
        assert (result.cells, result.cost) == ((), math.inf), context
        return
    assert_legal_path(walkable, result.cells, start, goal, diagonal=diagonal)
    # Summed forward from 0.0 as A* sums g: the same path would give the same bits.
    assert result.cost == steps_cost(result.cells, costs), context
    ours, astar = canonical_cost(result.cells, costs), canonical_cost(fresh.cells, costs)
    if exact:
        assert ours == astar, f"{context}\n{ascii_grid(walkable, result.cells)}"
    else:
        assert ours == pytest.approx(astar, rel=FLOAT_REL), context


@FEW_EXAMPLES
@given(scenario=scenarios(), options=st.sampled_from(CONSISTENT))
def test_every_plan_costs_what_a_fresh_astar_costs(
    scenario: Scenario, options: tuple[bool, str]
) -> None:
    diagonal, heuristic = options
    planner = IncrementalSearch(diagonal=diagonal, heuristic=heuristic, implementation="python")
    for step, (walkable, costs, start, goal) in enumerate(replay(scenario)):
        result = planner.plan(walkable, start, goal, costs=costs)
        assert_same_as_astar(
            result,
            walkable,
            costs,
            start,
            goal,
            diagonal=diagonal,
            heuristic=heuristic,
            exact=scenario.cost_kind in EXACT_KINDS,
            context=f"step {step}",
        )


@needs_c
@FEW_EXAMPLES
@given(scenario=scenarios(), options=st.sampled_from(CONSISTENT))
def test_c_gives_exactly_what_python_gives(scenario: Scenario, options: tuple[bool, str]) -> None:
    diagonal, heuristic = options
    python = IncrementalSearch(diagonal=diagonal, heuristic=heuristic, implementation="python")
    c = IncrementalSearch(diagonal=diagonal, heuristic=heuristic, implementation="c")
    for step, (walkable, costs, start, goal) in enumerate(replay(scenario)):
        expected = python.plan(walkable, start, goal, costs=costs)
        # Its own copy: on the same array it would find Python's "unreachable" remembered
        # (`region_cache`) and answer it without searching.
        got = c.plan(walkable.copy(), start, goal, costs=costs)
        context = f"step {step}"
        assert got == expected, context  # cells, cost bit for bit, expanded, reason
        assert c.last_repaired == python.last_repaired, context
        assert c.last_changed_cells == python.last_changed_cells, context
        if got.found:
            assert_same_as_astar(
                got,
                walkable,
                costs,
                start,
                goal,
                diagonal=diagonal,
                heuristic=heuristic,
                exact=scenario.cost_kind in EXACT_KINDS,
                context=context,
            )


@needs_c
@FEW_EXAMPLES  # fewer examples: drawing grids of up to 48x48 cells takes most of the time
@given(scenario=scenarios(max_side=48, max_events=6), options=st.sampled_from(CONSISTENT[:5]))
def test_c_on_larger_grids_matches_astar(scenario: Scenario, options: tuple[bool, str]) -> None:
    diagonal, heuristic = options
    c = IncrementalSearch(diagonal=diagonal, heuristic=heuristic, implementation="c")
    for step, (walkable, costs, start, goal) in enumerate(replay(scenario)):
        assert_same_as_astar(
            c.plan(walkable, start, goal, costs=costs),
            walkable,
            costs,
            start,
            goal,
            diagonal=diagonal,
            heuristic=heuristic,
            exact=scenario.cost_kind in EXACT_KINDS,
            context=f"step {step}",
        )


IMPLEMENTATIONS = ["python", pytest.param("c", marks=needs_c)]


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize(("diagonal", "heuristic"), CONSISTENT)
def test_blocking_a_cell_near_the_start_repairs_a_little(
    implementation: str, diagonal: bool, heuristic: str
) -> None:
    walkable = np.ones((64, 64), dtype=bool)
    walkable[20:44, 30] = False  # a wall across the straight line, so the path bends
    planner = IncrementalSearch(
        diagonal=diagonal, heuristic=heuristic, implementation=implementation
    )
    first = planner.plan(walkable, (5, 2), (58, 61))
    assert first.found
    assert not planner.last_repaired
    walkable[first.cells[3]] = False
    second = planner.plan(walkable, (5, 2), (58, 61))
    assert planner.last_repaired
    assert planner.last_changed_cells == 1
    assert first.cells[3] not in second.cells
    assert canonical_cost(second.cells, None) == canonical_cost(
        find_path(walkable, (5, 2), (58, 61), diagonal=diagonal).cells, None
    )
    # Starting over would expand about as many cells as the first plan did.
    assert second.expanded * 10 < first.expanded, (first.expanded, second.expanded)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_a_moving_start_on_an_unchanged_grid_repairs_without_starting_over(
    implementation: str,
) -> None:
    walkable = np.ones((64, 64), dtype=bool)
    planner = IncrementalSearch(implementation=implementation)
    first = planner.plan(walkable, (0, 0), (63, 40))
    second = planner.plan(walkable, first.cells[5], (63, 40))
    assert planner.last_repaired
    assert planner.last_changed_cells == 0
    assert second.cells == first.cells[5:]
    assert second.expanded < 5


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_a_new_goal_starts_fresh_and_the_old_goal_is_forgotten(implementation: str) -> None:
    walkable = np.ones((16, 16), dtype=bool)
    planner = IncrementalSearch(implementation=implementation)
    planner.plan(walkable, (0, 0), (15, 15))
    result = planner.plan(walkable, (0, 0), (15, 0))
    assert not planner.last_repaired
    assert result.cells[-1] == (15, 0)
    assert result.cost == 15.0
    planner.plan(walkable, (0, 0), (15, 0))
    assert planner.last_repaired
    planner.reset()
    planner.plan(walkable, (0, 0), (15, 0))
    assert not planner.last_repaired


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_a_new_heuristic_scale_or_shape_starts_fresh(implementation: str) -> None:
    walkable = np.ones((8, 8), dtype=bool)
    costs = np.ones((8, 8))
    planner = IncrementalSearch(implementation=implementation)
    planner.plan(walkable, (0, 0), (7, 7), costs=costs)
    costs[3, 3] = 0.5  # the smallest cost drops below 1: every kept key is off
    result = planner.plan(walkable, (0, 0), (7, 7), costs=costs)
    assert not planner.last_repaired
    assert planner.last_changed_cells == 1
    assert result.cost == find_path(walkable, (0, 0), (7, 7), costs=costs).cost
    planner.plan(np.ones((9, 8), dtype=bool), (0, 0), (7, 7))
    assert not planner.last_repaired
    assert planner.last_changed_cells == 72


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_cost_changes_count_only_on_walkable_cells(implementation: str) -> None:
    walkable = grid(
        """
        .....
        .###.
        .....
        """
    )
    costs = np.ones((3, 5))
    costs[1, 1:4] = np.inf  # blocked cells may hold anything
    planner = IncrementalSearch(implementation=implementation)
    planner.plan(walkable, (0, 0), (2, 4), costs=costs)
    costs[1, 2] = np.nan
    costs[0, 2] = 5.0
    result = planner.plan(walkable, (0, 0), (2, 4), costs=costs)
    assert planner.last_changed_cells == 1
    assert planner.last_repaired
    assert result.cost == find_path(walkable, (0, 0), (2, 4), costs=costs).cost
    planner.plan(walkable, (0, 0), (2, 4))  # no costs: 1 everywhere again
    assert planner.last_changed_cells == 1


GRID = grid(
    """
    ..#..
    ..#..
    ..#..
    """
)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize(
    ("walkable", "start", "goal", "reason"),
    [
        pytest.param(GRID, (0, 0), (0, 4), "unreachable", id="unreachable"),
        pytest.param(GRID, (0, 2), (0, 4), "start blocked", id="start-blocked"),
        pytest.param(GRID, (0, 0), (1, 2), "goal blocked", id="goal-blocked"),
        pytest.param(GRID, (0, 0), (3, 0), "goal outside the grid", id="goal-outside"),
        pytest.param(GRID, (0, 0), (0, -1), "goal outside the grid", id="goal-negative"),
    ],
)
def test_no_path_gives_find_paths_reason(
    implementation: str, walkable: Any, start: Any, goal: Any, reason: str
) -> None:
    planner = IncrementalSearch(implementation=implementation)
    result = planner.plan(walkable, start, goal)
    expected = find_path(walkable, start, goal)
    assert (result.found, result.reason, result.cells) == (False, reason, ())
    assert result.reason == expected.reason
    assert result.cost == math.inf
    if reason != "unreachable":
        assert result.expanded == 0


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_an_early_no_path_keeps_the_state_for_the_next_plan(implementation: str) -> None:
    walkable = np.ones((10, 10), dtype=bool)
    planner = IncrementalSearch(implementation=implementation)
    planner.plan(walkable, (0, 0), (9, 9))
    walkable[0, 0] = False
    assert planner.plan(walkable, (0, 0), (9, 9)).reason == "start blocked"
    assert planner.plan(walkable, (0, 0), (10, 9)).reason == "goal outside the grid"
    walkable[5, 5] = False
    result = planner.plan(walkable, (1, 1), (9, 9))
    assert planner.last_repaired
    assert planner.last_changed_cells == 2  # both changes since the last plan that searched
    assert result.cost == find_path(walkable, (1, 1), (9, 9)).cost


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_reconnecting_an_unreachable_goal_repairs(implementation: str) -> None:
    walkable = GRID.copy()
    planner = IncrementalSearch(implementation=implementation)
    assert planner.plan(walkable, (0, 0), (0, 4)).reason == "unreachable"
    walkable[2, 2] = True
    result = planner.plan(walkable, (0, 0), (0, 4))
    assert planner.last_repaired
    assert result.found
    assert result.cost == find_path(walkable, (0, 0), (0, 4)).cost


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_start_on_goal_is_a_one_cell_path(implementation: str) -> None:
    result = IncrementalSearch(implementation=implementation).plan(
        np.ones((3, 3), dtype=bool), (1, 1), (1, 1)
    )
    assert (result.cells, result.cost, result.expanded) == (((1, 1),), 0.0, 1)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"heuristic": "manhattan"}, "not consistent on an 8-connected grid"),
        ({"heuristic": "taxicab"}, "unknown heuristic 'taxicab'"),
        ({"implementation": "gpu"}, "implementation must be auto, c or python"),
    ],
)
def test_bad_options_are_one_line_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        IncrementalSearch(**options)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
@pytest.mark.parametrize(
    ("walkable", "start", "goal", "costs", "message"),
    [
        (np.ones((2, 2)), (0, 0), (1, 1), None, "walkable must have dtype bool"),
        (np.ones((2, 2), dtype=bool), (2, 0), (1, 1), None, r"start \(2, 0\) lies outside"),
        (np.ones((2, 2), dtype=bool), (0, 0), "x", None, "goal must be a"),
        (np.ones((2, 2), dtype=bool), (0, 0), (1, 1), np.zeros((2, 2)), r"costs\[0, 0\]"),
    ],
)
def test_bad_arguments_get_find_paths_errors(
    implementation: str, walkable: Any, start: Any, goal: Any, costs: Any, message: str
) -> None:
    planner = IncrementalSearch(implementation=implementation)
    with pytest.raises(ValueError, match=message):
        planner.plan(walkable, start, goal, costs=costs)


@needs_c
def test_auto_plans_in_c_when_built() -> None:
    assert IncrementalSearch().implementation == "c"
    assert IncrementalSearch(implementation="python").implementation == "python"


def test_a_repair_whose_walk_fails_starts_over() -> None:
    walkable = np.ones((12, 12), dtype=bool)
    planner = IncrementalSearch(implementation="python")
    first = planner.plan(walkable, (0, 0), (11, 11))
    engine: Any = planner._engine
    # Stale costs-to-go everywhere and nothing queued: the walk from the start meets a dead
    # end, which only float rounding after a real repair could cause.
    engine._g = [math.inf] * 144
    result = planner.plan(walkable, (0, 0), (11, 11))
    assert not planner.last_repaired
    assert result.cells == first.cells
    assert result.expanded > 0


SMALL_MAPS = ("arena", "den312d", "ht_chantry", "lak303d")
"""Moving AI maps small enough for many rounds in a unit test (49 to 194 cells a side)."""


@needs_c
@pytest.mark.parametrize("name", SMALL_MAPS)
def test_repairs_on_movingai_maps_cost_what_astar_costs(name: str) -> None:
    path = movingai_dir() / f"{name}.map"
    if not path.exists():
        pytest.skip(f"no Moving AI map {path}")
    walkable = read_map(path).walkable.copy()
    scenarios = read_scenarios(path.with_name(f"{name}.map.scen"))
    scenario = max(scenarios, key=lambda s: (s.optimal_length, s.line))
    rng = np.random.default_rng(15)
    height, width = walkable.shape
    planner = IncrementalSearch(implementation="c")
    start, goal = scenario.start, scenario.goal
    route = list(planner.plan(walkable, start, goal).cells)
    repaired = 0
    for number in range(40):
        if len(route) > 3:
            route = route[2:]
            start = route[0]
        # Toggle cells within 2 of the route (the benchmark's changes), never start or goal.
        for row, col in rng.choice(np.array(route), size=6):
            cell = (int(row + rng.integers(-2, 3)), int(col + rng.integers(-2, 3)))
            if 0 <= cell[0] < height and 0 <= cell[1] < width and cell not in (start, goal):
                walkable[cell] = not walkable[cell]
        result = planner.plan(walkable, start, goal)
        # A goal proven out of reach before any search (`region_cache`) repairs nothing.
        repaired += planner.last_repaired or (not result.found and result.expanded == 0)
        assert_same_as_astar(
            result,
            walkable,
            None,
            start,
            goal,
            diagonal=True,
            heuristic="octile",
            exact=True,
            context=f"{name} round {number}",
        )
        # Unreachable: the agent waits where it stands (its old route may be blocked now).
        route = list(result.cells) if result.found else [start]
    assert repaired == 40
