"""Cell costs from 0.25 to 100: the scaled heuristics keep A* optimal, C matches Python exactly.

Costs below 1 (roads) would make every heuristic overestimate, so the searches scale it by the
smallest walkable cost (`heuristic_scale`). Random grids here draw costs anywhere in
[0.25, 100], mostly from a few levels (distinct paths then differ by far more than the 1e-9
tie rounding) and sometimes any float; blocked cells hold anything, 0 and NaN included.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.typing import NDArray

from sim.navigation import (
    ExpansionLog,
    Heuristic,
    SearchReplay,
    compare_searches,
    find_path,
    is_admissible,
    start_search,
)
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.field import distance_field
from sim.navigation.grid import MAX_COST, MIN_COST, GridMap, check_costs, heuristic_scale
from sim.navigation.heuristics import HEURISTICS
from sim.navigation.query import Algorithm
from sim.navigation.searches.kernel import COMPILED_ALGORITHMS, KERNEL_AVAILABLE, search_flat
from tests.helpers.grids import ascii_grid
from tests.helpers.oracles import assert_legal_path, oracle_cost, steps_cost
from tests.helpers.problems import PROPERTY_SETTINGS

needs_kernel = pytest.mark.skipif(
    not KERNEL_AVAILABLE, reason="sim.navigation.searches._kernel not built"
)

ALL_HEURISTICS = tuple(h.value for h in Heuristic)
COMPILED = tuple(algorithm.value for algorithm in COMPILED_ALGORITHMS)
LEVELS = (0.25, 0.25, 0.5, 0.75, 1.0, 1.0, 1.0, 1.5, 2.0, 4.0, 10.0, 100.0)
ON_BLOCKED = (1.0, 0.0, math.inf, math.nan, -3.0, 1000.0)
COST_REL = COST_ABS = 1e-9


@dataclass(frozen=True)
class CostProblem:
    walkable: NDArray[np.bool_]
    costs: NDArray[np.float64]
    start: tuple[int, int]
    goal: tuple[int, int]

    def __repr__(self) -> str:
        low = float(self.costs[self.walkable].min()) if self.walkable.any() else None
        return (
            f"CostProblem(start={self.start}, goal={self.goal}, lowest walkable cost={low})\n"
            f"{ascii_grid(self.walkable)}\ncosts=\n{self.costs!r}"
        )


@st.composite
def cost_problems(draw: st.DrawFn, *, max_side: int = 30) -> CostProblem:
    """A grid with walls and costs in [0.25, 100] on every walkable cell; walkable ends."""
    height = draw(st.integers(1, max_side))
    width = draw(st.integers(1, max_side))
    walls_in_six = draw(st.sampled_from((0, 1, 2)))
    elements = st.sampled_from((True,) * (6 - walls_in_six) + (False,) * walls_in_six)
    walkable = draw(hnp.arrays(np.bool_, (height, width), elements=elements)).copy()
    floats = st.floats(MIN_COST, MAX_COST, allow_nan=False, allow_infinity=False)
    cost = st.sampled_from(LEVELS) | floats if draw(st.booleans()) else st.sampled_from(LEVELS)
    costs = draw(hnp.arrays(np.float64, (height, width), elements=cost)).copy()
    blocked_value = draw(st.sampled_from(ON_BLOCKED))
    start = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    goal = (draw(st.integers(0, height - 1)), draw(st.integers(0, width - 1)))
    walkable[start] = walkable[goal] = True
    costs[~walkable] = blocked_value
    return CostProblem(walkable, costs, start, goal)


def admissible(diagonal: bool) -> list[str]:
    return [h for h in ALL_HEURISTICS if is_admissible(h, diagonal=diagonal)]


# ---- A* with every admissible heuristic, scaled, is optimal ----


@PROPERTY_SETTINGS
@given(problem=cost_problems(), diagonal=st.booleans())
def test_scaled_astar_costs_what_dijkstra_costs(problem: CostProblem, diagonal: bool) -> None:
    p = problem
    dijkstra = find_path(
        p.walkable, p.start, p.goal, diagonal=diagonal, algorithm="dijkstra", costs=p.costs
    )
    expected = oracle_cost(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    assert dijkstra.found == math.isfinite(expected)
    if dijkstra.found:
        assert dijkstra.cost == pytest.approx(expected, rel=COST_REL, abs=COST_ABS)
    for heuristic in admissible(diagonal):
        for implementation in ("c", "python") if KERNEL_AVAILABLE else ("python",):
            astar = find_path(
                p.walkable,
                p.start,
                p.goal,
                diagonal=diagonal,
                heuristic=heuristic,
                costs=p.costs,
                implementation=implementation,
            )
            context = f"{heuristic} {implementation}"
            assert astar.found == dijkstra.found, context
            if astar.found:
                assert astar.cost == pytest.approx(dijkstra.cost, rel=COST_REL, abs=COST_ABS), (
                    context
                )
                assert_legal_path(p.walkable, astar.cells, p.start, p.goal, diagonal=diagonal)
                assert astar.cost == pytest.approx(steps_cost(astar.cells, p.costs), rel=1e-12)


@PROPERTY_SETTINGS
@given(problem=cost_problems(), diagonal=st.booleans(), weight=st.sampled_from((1.5, 3.0)))
def test_scaled_weighted_astar_stays_within_its_weight(
    problem: CostProblem, diagonal: bool, weight: float
) -> None:
    p = problem
    optimum = oracle_cost(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    for heuristic in admissible(diagonal):
        result = find_path(
            p.walkable,
            p.start,
            p.goal,
            diagonal=diagonal,
            heuristic=heuristic,
            costs=p.costs,
            weight=weight,
        )
        assert result.found == math.isfinite(optimum)
        if result.found:
            assert result.cost <= weight * optimum * (1 + COST_REL) + COST_ABS, heuristic


# ---- The kernel and the Python reference agree to the last bit ----


@needs_kernel
@PROPERTY_SETTINGS
@given(
    problem=cost_problems(),
    diagonal=st.booleans(),
    heuristic=st.sampled_from(ALL_HEURISTICS),
    algorithm=st.sampled_from(COMPILED),
    weight=st.sampled_from((1.0, 1.0, 1.25, 3.0)),
)
def test_kernel_matches_reference_under_any_costs(
    problem: CostProblem, diagonal: bool, heuristic: str, algorithm: str, weight: float
) -> None:
    p = problem
    options: dict[str, Any] = {
        "diagonal": diagonal,
        "heuristic": heuristic,
        "algorithm": algorithm,
        "weight": weight,
        "costs": p.costs,
    }
    # Each on its own copy: on one array the second would answer a remembered "unreachable".
    c = find_path(p.walkable.copy(), p.start, p.goal, implementation="c", **options)
    python = find_path(p.walkable.copy(), p.start, p.goal, implementation="python", **options)
    context = f"{algorithm} {heuristic} w={weight} {diagonal=}"
    assert c.found == python.found, context
    assert c.reason == python.reason, context
    assert c.cells == python.cells, context
    assert c.cost == python.cost, context  # exact: the same sums in the same order
    assert c.expanded == python.expanded, context


@needs_kernel
def test_search_flat_scales_the_heuristic_by_the_lowest_walkable_cost() -> None:
    # A road along the last row: cheap to travel, but an unscaled octile heuristic, which
    # counts every step at cost 1 or more, overestimates there and A* settles for the
    # straight, dearer row.
    walkable = np.ones((3, 10), dtype=bool)
    costs = np.ones((3, 10))
    costs[2, :] = 0.25
    options: dict[str, Any] = {
        "rule": DiagonalRule.NO_CORNER_CUTTING,
        "heuristic": Heuristic.OCTILE,
        "algorithm": Algorithm.ASTAR,
        "weight": 1.0,
    }
    scaled = search_flat(walkable, costs, 0, 9, **options)
    unscaled = search_flat(walkable, costs, 0, 9, heuristic_scale=1.0, **options)
    optimum = oracle_cost(walkable, (0, 0), (0, 9), diagonal=True, costs=costs)
    assert scaled[2] == pytest.approx(optimum)
    assert unscaled[2] > optimum + 1.0  # why the scale exists
    assert scaled == search_flat(walkable, costs, 0, 9, heuristic_scale=0.25, **options)


@needs_kernel
@pytest.mark.parametrize("scale", [0.0, -0.5, 1.5, math.nan, 1])
def test_search_flat_rejects_a_bad_heuristic_scale(scale: object) -> None:
    walkable = np.ones((2, 2), dtype=bool)
    with pytest.raises(ValueError, match="heuristic_scale must be a float in"):
        search_flat(
            walkable,
            None,
            0,
            3,
            rule=DiagonalRule.NO_CORNER_CUTTING,
            heuristic=Heuristic.OCTILE,
            algorithm=Algorithm.ASTAR,
            weight=1.0,
            heuristic_scale=scale,  # type: ignore[arg-type]
        )


# ---- The crowd's distance field under costs ----


@PROPERTY_SETTINGS
@given(problem=cost_problems(max_side=16), diagonal=st.booleans(), data=st.data())
def test_distance_field_is_the_dijkstra_cost_under_costs(
    problem: CostProblem, diagonal: bool, data: st.DataObject
) -> None:
    p = problem
    implementations = ("c", "python") if KERNEL_AVAILABLE else ("python",)
    fields = [
        distance_field(p.walkable, p.goal, diagonal=diagonal, costs=p.costs, implementation=i)
        for i in implementations
    ]
    assert all(np.array_equal(fields[0], other) for other in fields[1:])  # C == Python
    field = fields[0]
    height, width = p.walkable.shape
    cells = [p.start] + [
        (data.draw(st.integers(0, height - 1)), data.draw(st.integers(0, width - 1)))
        for _ in range(4)
    ]
    for cell in cells:
        if not p.walkable[cell]:
            assert field[cell] == math.inf
            continue
        dijkstra = find_path(
            p.walkable, cell, p.goal, diagonal=diagonal, algorithm="dijkstra", costs=p.costs
        )
        if dijkstra.found:
            assert field[cell] == pytest.approx(dijkstra.cost, rel=COST_REL, abs=COST_ABS), cell
        else:
            assert field[cell] == math.inf, cell


# ---- The search view's h and the comparison table ----


@pytest.mark.parametrize("heuristic", ALL_HEURISTICS)
@pytest.mark.parametrize("weight", [1.0, 2.5])
def test_h_grid_is_the_scaled_heuristic_bit_for_bit(heuristic: str, weight: float) -> None:
    walkable = np.ones((30, 40), dtype=bool)
    walkable[3, 5] = False
    costs = np.full((30, 40), 2.0)
    costs[10:12, :] = 0.3
    costs[3, 5] = 0.0  # blocked: not the smallest cost
    goal = (17, 29)
    log = ExpansionLog(walkable, (0, 0), goal, heuristic=heuristic, weight=weight, costs=costs)
    function = HEURISTICS[Heuristic(heuristic)]
    factor = weight * 0.3
    expected = np.array(
        [
            [factor * function(abs(col - goal[1]), abs(row - goal[0])) for col in range(40)]
            for row in range(30)
        ]
    )
    assert log.h.tobytes() == expected.tobytes()
    assert (log.weight, log.heuristic_scale) == (weight, 0.3)
    # The replay's f is the search's own f wherever the search has been.
    search = start_search(walkable, (0, 0), goal, heuristic=heuristic, weight=weight, costs=costs)
    search.run()
    replay = SearchReplay(log)
    replay.seek(10**9)
    seen = np.isfinite(search.g_costs())
    assert replay.f[seen].tobytes() == search.f_costs()[seen].tobytes()


def test_dijkstra_bfs_and_dfs_keep_an_unscaled_zero_heuristic() -> None:
    costs = np.full((3, 3), 0.5)
    for algorithm in ("dijkstra", "bfs", "dfs"):
        log = ExpansionLog(
            np.ones((3, 3), dtype=bool), (0, 0), (2, 2), algorithm=algorithm, costs=costs
        )
        assert (log.heuristic, log.heuristic_scale, log.weight) == (Heuristic.ZERO, 1.0, 1.0)
        assert not log.h.any()


def test_comparison_table_finds_admissible_astar_optimal_on_a_road() -> None:
    walkable = np.ones((6, 14), dtype=bool)
    walkable[1:5, 6] = False
    costs = np.full((6, 14), 3.0)
    costs[5, :] = 0.25
    rows = compare_searches(walkable, (0, 0), (0, 13), costs=costs, diagonal=True)
    for row in rows:
        if row.guaranteed:
            assert row.optimal, row
    (astar,) = [row for row in rows if row.label == "A*" and row.heuristic == Heuristic.OCTILE]
    assert astar.optimal


# ---- What a cost may be ----


@pytest.mark.parametrize(
    "value", [0.25, 0.5, 1.0, 99.5, 100.0, np.float32(0.25)], ids=lambda v: f"ok-{v}"
)
def test_costs_from_a_quarter_to_a_hundred_are_accepted(value: float) -> None:
    walkable = np.ones((1, 2), dtype=bool)
    checked = check_costs(np.array([[1.0, value]]), walkable)
    assert checked is not None
    assert checked[0, 1] == float(value)


@pytest.mark.parametrize(
    "value", [0.0, 0.2499, -1.0, 100.01, math.inf, math.nan], ids=lambda v: f"bad-{v}"
)
def test_costs_outside_the_range_name_the_cell_and_say_why(value: float) -> None:
    walkable = np.ones((1, 2), dtype=bool)
    with pytest.raises(
        ValueError,
        match=r"costs\[0, 1\] = .* on a walkable cell; a cost multiplier must be finite, "
        r">= 0.25 \(A\* scales its heuristic by the smallest cost\) and <= 100",
    ):
        find_path(walkable, (0, 0), (0, 1), costs=np.array([[1.0, value]]))


def test_blocked_cells_may_hold_any_cost() -> None:
    walkable = np.array([[True, False, True]])
    costs = np.array([[0.5, math.nan, 0.25]])
    assert check_costs(costs, walkable) is not None
    assert GridMap(walkable, costs).costs is not None
    assert heuristic_scale(walkable, np.array([[0.5, 0.0, 2.0]])) == 0.5


@pytest.mark.parametrize(
    ("costs", "expected"),
    [
        pytest.param(None, 1.0, id="no-costs"),
        pytest.param([[1.0, 4.0, 2.0]], 1.0, id="all-at-least-1"),
        pytest.param([[3.0, 4.0, 2.0]], 1.0, id="never-above-1"),
        pytest.param([[0.75, 4.0, 0.5]], 0.75, id="blocked-road-ignored"),
        pytest.param([[0.75, 0.3, 0.1]], 0.3, id="lowest-walkable"),
    ],
)
def test_heuristic_scale_is_the_lowest_walkable_cost_below_one(
    costs: list[list[float]] | None, expected: float
) -> None:
    walkable = np.array([[True, True, False]])
    array = None if costs is None else np.array(costs)
    assert heuristic_scale(walkable, array) == expected
