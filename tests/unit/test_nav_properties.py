"""Property tests of the search core on random grids up to 40x40 with walls and cell costs.

Hypothesis runs derandomized (the same examples every run) and keeps no database. Every
comparison is against an independent textbook Dijkstra (`oracle_cost`) as well as our own.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.navigation import Heuristic, find_path, is_admissible, start_search
from tests.helpers.oracles import assert_legal_path, oracle_cost, steps_cost
from tests.helpers.problems import PROPERTY_SETTINGS, Problem, problems

ALL_HEURISTICS = tuple(h.value for h in Heuristic)
COST_REL = COST_ABS = 1e-9


def admissible_heuristics(diagonal: bool) -> list[str]:
    return [h for h in ALL_HEURISTICS if is_admissible(h, diagonal=diagonal)]


@PROPERTY_SETTINGS
@given(problem=problems(), diagonal=st.booleans(), data=st.data())
def test_astar_with_admissible_heuristic_is_optimal(
    problem: Problem, diagonal: bool, data: st.DataObject
) -> None:
    heuristic = data.draw(st.sampled_from(admissible_heuristics(diagonal)), label="heuristic")
    p = problem
    astar = find_path(
        p.walkable,
        p.start,
        p.goal,
        diagonal=diagonal,
        heuristic=heuristic,
        costs=p.costs,
        algorithm="astar",
    )
    dijkstra = find_path(
        p.walkable, p.start, p.goal, diagonal=diagonal, algorithm="dijkstra", costs=p.costs
    )
    expected = oracle_cost(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    assert astar.found == dijkstra.found == math.isfinite(expected)
    if astar.found:
        assert astar.cost == pytest.approx(dijkstra.cost, rel=COST_REL, abs=COST_ABS)
        assert astar.cost == pytest.approx(expected, rel=COST_REL, abs=COST_ABS)
        assert_legal_path(p.walkable, astar.cells, p.start, p.goal, diagonal=diagonal)
        assert astar.cost == pytest.approx(steps_cost(astar.cells, p.costs), rel=1e-12)
    else:
        assert (astar.cells, astar.cost, astar.reason) == ((), math.inf, "unreachable")


@PROPERTY_SETTINGS
@given(problem=problems(with_costs=False))
def test_four_connected_unit_astar_matches_breadth_first(problem: Problem) -> None:
    p = problem
    astar = find_path(p.walkable, p.start, p.goal, diagonal=False, heuristic="manhattan")
    bfs = find_path(p.walkable, p.start, p.goal, diagonal=False, algorithm="bfs")
    assert astar.found == bfs.found
    if astar.found:
        assert astar.cost == len(bfs.cells) - 1 == len(astar.cells) - 1
        assert bfs.cost == astar.cost
        assert_legal_path(p.walkable, bfs.cells, p.start, p.goal, diagonal=False)


@PROPERTY_SETTINGS
@given(problem=problems(), diagonal=st.booleans())
def test_breadth_first_takes_fewest_moves(problem: Problem, diagonal: bool) -> None:
    p = problem
    bfs = find_path(p.walkable, p.start, p.goal, diagonal=diagonal, algorithm="bfs", costs=p.costs)
    fewest = oracle_cost(p.walkable, p.start, p.goal, diagonal=diagonal, unit=True)
    assert bfs.found == math.isfinite(fewest)
    if bfs.found:
        assert len(bfs.cells) - 1 == fewest
        assert_legal_path(p.walkable, bfs.cells, p.start, p.goal, diagonal=diagonal)
        assert bfs.cost == pytest.approx(steps_cost(bfs.cells, p.costs), rel=1e-12)


@PROPERTY_SETTINGS
@given(
    problem=problems(),
    diagonal=st.booleans(),
    weight=st.sampled_from((1.0, 1.2, 1.5, 2.0, 3.0, 10.0)),
    data=st.data(),
)
def test_weighted_astar_stays_within_weight_times_optimal(
    problem: Problem, diagonal: bool, weight: float, data: st.DataObject
) -> None:
    heuristic = data.draw(st.sampled_from(admissible_heuristics(diagonal)), label="heuristic")
    p = problem
    weighted = find_path(
        p.walkable,
        p.start,
        p.goal,
        diagonal=diagonal,
        heuristic=heuristic,
        costs=p.costs,
        weight=weight,
    )
    optimal = oracle_cost(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    assert weighted.found == math.isfinite(optimal)
    if weighted.found:
        assert weighted.cost <= weight * optimal + 1e-9
        assert weighted.cost >= optimal - 1e-9
        assert_legal_path(p.walkable, weighted.cells, p.start, p.goal, diagonal=diagonal)


@PROPERTY_SETTINGS
@given(problem=problems(), diagonal=st.booleans(), heuristic=st.sampled_from(ALL_HEURISTICS))
def test_greedy_finds_a_path_exactly_when_one_exists(
    problem: Problem, diagonal: bool, heuristic: str
) -> None:
    p = problem
    greedy = find_path(
        p.walkable,
        p.start,
        p.goal,
        diagonal=diagonal,
        heuristic=heuristic,
        algorithm="greedy",
        costs=p.costs,
    )
    exists = math.isfinite(oracle_cost(p.walkable, p.start, p.goal, diagonal=diagonal))
    assert greedy.found == exists
    if greedy.found:
        assert_legal_path(p.walkable, greedy.cells, p.start, p.goal, diagonal=diagonal)
        assert greedy.cost == pytest.approx(steps_cost(greedy.cells, p.costs), rel=1e-12)
    else:
        assert greedy.cells == ()


@PROPERTY_SETTINGS
@given(
    problem=problems(),
    diagonal=st.booleans(),
    algorithm=st.sampled_from(("astar", "dijkstra", "bfs", "greedy")),
    heuristic=st.sampled_from(ALL_HEURISTICS),
    weight=st.sampled_from((1.0, 1.5, 4.0)),
)
def test_step_by_step_ends_like_one_shot(
    problem: Problem, diagonal: bool, algorithm: str, heuristic: str, weight: float
) -> None:
    p = problem
    options = {
        "diagonal": diagonal,
        "algorithm": algorithm,
        "heuristic": heuristic,
        "weight": weight,
        "costs": p.costs,
    }
    search = start_search(p.walkable, p.start, p.goal, **options)  # type: ignore[arg-type]
    expanded_cells = list(search.steps())
    result = search.result()
    assert result == find_path(p.walkable, p.start, p.goal, **options)  # type: ignore[arg-type]
    assert len(expanded_cells) == len(set(expanded_cells)) == result.expanded
    closed = search.closed_mask()
    assert closed.sum() == result.expanded
    assert all(closed[cell] for cell in expanded_cells)
