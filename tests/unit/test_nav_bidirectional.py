"""Bidirectional A*: optimal like A* on random grids, the same "no path" reasons, steppable.

Hypothesis runs derandomized (the same examples every run) and keeps no database; the grids
are `tests.helpers.problems`' (up to 40x40, 0 to 50 % walls, with and without cell costs).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.navigation import Heuristic, find_path, is_admissible
from sim.navigation.query import PathResult, Reason
from sim.navigation.searches.bidirectional import BidirectionalSearch, Side
from tests.helpers.oracles import assert_legal_path, oracle_cost, steps_cost
from tests.helpers.problems import PROPERTY_SETTINGS, Problem, problems

ADMISSIBLE = {
    diagonal: [h.value for h in Heuristic if is_admissible(h, diagonal=diagonal)]
    for diagonal in (True, False)
}


def bidirectional(p: Problem, *, diagonal: bool, heuristic: str = "octile") -> PathResult:
    return BidirectionalSearch(
        p.walkable, p.start, p.goal, diagonal=diagonal, heuristic=heuristic, costs=p.costs
    ).run()


@PROPERTY_SETTINGS
@given(problem=problems(), diagonal=st.booleans(), data=st.data())
def test_bidirectional_cost_equals_astar_cost(
    problem: Problem, diagonal: bool, data: st.DataObject
) -> None:
    heuristic = data.draw(st.sampled_from(ADMISSIBLE[diagonal]), label="heuristic")
    p = problem
    result = bidirectional(p, diagonal=diagonal, heuristic=heuristic)
    astar = find_path(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    assert result.found == astar.found
    assert result.reason == astar.reason
    if astar.found:
        assert math.isclose(result.cost, astar.cost, rel_tol=1e-12)
        assert_legal_path(p.walkable, result.cells, p.start, p.goal, diagonal=diagonal)
        # Summed from the start in path order, as A* sums g: the very same floats.
        assert result.cost == steps_cost(result.cells, p.costs)
    else:
        assert (result.cells, result.cost) == ((), math.inf)


@settings(PROPERTY_SETTINGS, max_examples=100)
@given(problem=problems(), diagonal=st.booleans())
def test_manhattan_on_8_connected_moves_still_gives_a_legal_path(
    problem: Problem, diagonal: bool
) -> None:
    p = problem
    result = bidirectional(p, diagonal=diagonal, heuristic="manhattan")
    expected = oracle_cost(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    assert result.found == math.isfinite(expected)
    if result.found:
        assert_legal_path(p.walkable, result.cells, p.start, p.goal, diagonal=diagonal)
        assert result.cost >= expected - 1e-9


@settings(PROPERTY_SETTINGS, max_examples=100)
@given(problem=problems(), diagonal=st.booleans())
def test_bidirectional_cost_equals_an_independent_dijkstra(
    problem: Problem, diagonal: bool
) -> None:
    p = problem
    result = bidirectional(p, diagonal=diagonal)
    expected = oracle_cost(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    assert result.found == math.isfinite(expected)
    if result.found:
        assert result.cost == pytest.approx(expected, rel=1e-12)


@settings(PROPERTY_SETTINGS, max_examples=100)
@given(problem=problems(), diagonal=st.booleans(), budget=st.integers(1, 7))
def test_stepping_to_the_end_gives_the_result_of_running(
    problem: Problem, diagonal: bool, budget: int
) -> None:
    p = problem
    run = bidirectional(p, diagonal=diagonal)
    stepped = BidirectionalSearch(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    sides = []
    for _ in stepped.steps():
        sides.append(stepped.current_side)
    assert stepped.result() == run
    assert len(sides) == run.expanded
    # The halves take turns, the forward half first.
    assert sides == [(Side.FORWARD, Side.BACKWARD)[i % 2] for i in range(len(sides))]
    chunked = BidirectionalSearch(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    while not chunked.advance(budget):
        pass
    assert chunked.result() == run


@settings(PROPERTY_SETTINGS, max_examples=100)
@given(problem=problems(), diagonal=st.booleans())
def test_meeting_cell_joins_the_halves_on_the_path(problem: Problem, diagonal: bool) -> None:
    p = problem
    search = BidirectionalSearch(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    result = search.run()
    if not result.found:
        assert search.meeting_cell is None
        assert search.best_cost == math.inf
        return
    meeting = search.meeting_cell
    assert meeting in result.cells
    assert search.forward is not None
    assert search.backward is not None
    g_forward = search.forward.g_costs()[meeting]
    g_backward = search.backward.g_costs()[meeting]
    assert g_forward + g_backward == search.best_cost
    assert search.best_cost == pytest.approx(result.cost, rel=1e-12)
    # Each half's tree leads from the meeting cell back to its own end.
    index = result.cells.index(meeting)
    assert steps_cost(result.cells[: index + 1], p.costs) == pytest.approx(g_forward, rel=1e-12)


def test_backward_half_charges_the_cell_it_leaves() -> None:
    # Start on a dear cell, end on a cheap one: leaving the start is free, entering it is not.
    walkable = np.ones((1, 4), dtype=bool)
    costs = np.array([[10.0, 1.0, 1.0, 0.25]])
    search = BidirectionalSearch(walkable, (0, 0), (0, 3), costs=costs)
    result = search.run()
    assert result.cost == 2.25
    assert search.backward is not None
    # From the goal back: (0, 2) costs the goal's 0.25 to leave it, (0, 0) costs 1 + 1 + 0.25.
    assert search.backward.g_costs()[0, 2] == 0.25
    assert search.forward is not None
    assert search.forward.g_costs()[0, 1] == 1.0


@pytest.mark.parametrize(
    ("walkable_rows", "start", "goal"),
    [
        pytest.param(["...", "...", "..."], (1, 1), (1, 1), id="start-is-goal"),
        pytest.param(["#..", "...", "..."], (0, 0), (2, 2), id="start-blocked"),
        pytest.param(["...", "...", "..#"], (0, 0), (2, 2), id="goal-blocked"),
        pytest.param(["...", "...", "..."], (0, 0), (3, 0), id="goal-below-the-grid"),
        pytest.param(["...", "...", "..."], (0, 0), (-1, 2), id="goal-above-the-grid"),
        pytest.param([".#.", "##.", "..."], (0, 0), (2, 2), id="start-walled-in"),
        pytest.param(["...", ".##", ".#."], (0, 0), (2, 2), id="goal-walled-in"),
        pytest.param([".#.", ".#.", ".#."], (0, 0), (2, 2), id="wall-across"),
        pytest.param([".#", "#."], (0, 0), (1, 1), id="no-squeezing-between-corners"),
    ],
)
@pytest.mark.parametrize("diagonal", [True, False], ids=["8", "4"])
def test_ends_and_reasons_agree_with_astar(
    walkable_rows: list[str], start: tuple[int, int], goal: tuple[int, int], diagonal: bool
) -> None:
    walkable = np.array([[c == "." for c in row] for row in walkable_rows])
    result = BidirectionalSearch(walkable, start, goal, diagonal=diagonal).run()
    astar = find_path(walkable, start, goal, diagonal=diagonal)
    assert (result.found, result.reason, result.cells, result.cost) == (
        astar.found,
        astar.reason,
        astar.cells,
        astar.cost,
    )


def test_start_is_goal_meets_before_any_expansion() -> None:
    search = BidirectionalSearch(np.ones((2, 2), dtype=bool), (1, 0), (1, 0))
    assert search.meeting_cell == (1, 0)
    assert search.run() == PathResult(True, ((1, 0),), 0.0, 0, Reason.FOUND)
    assert search.current is None


def test_walled_in_goal_is_proven_unreachable_by_the_backward_half() -> None:
    walkable = np.ones((30, 30), dtype=bool)
    walkable[26, 26:29] = walkable[28, 26:29] = walkable[27, 26] = walkable[27, 28] = False
    result = BidirectionalSearch(walkable, (0, 0), (27, 27)).run()
    assert result.reason == "unreachable"
    # The backward half runs out after its one cell; the forward half expanded once meanwhile.
    assert result.expanded == 2


def test_halves_are_readable_between_steps() -> None:
    search = BidirectionalSearch(np.ones((3, 5), dtype=bool), (1, 0), (1, 4))
    search.advance(2)
    assert (search.current, search.current_side) == ((1, 4), Side.BACKWARD)
    assert search.forward is not None
    assert search.backward is not None
    assert search.forward.closed_mask().sum() == search.backward.closed_mask().sum() == 1
    assert search.forward.frontier_mask()[:, 1].all()
    assert search.backward.frontier_mask()[:, 3].all()
    assert search.backward.came_from()[0, 3] == 1 * 5 + 4
    # Its priority: g 1, plus half of (3 to the start - 1 to the goal).
    f = search.backward.f_costs()
    assert f[1, 3] == 1.0 + (3.0 - 1.0) / 2
    assert np.isinf(f[1, 2])


def test_result_before_the_end_is_an_error() -> None:
    search = BidirectionalSearch(np.ones((3, 3), dtype=bool), (0, 0), (2, 2))
    with pytest.raises(RuntimeError, match="has not finished"):
        search.result()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"start": (3, 0)}, r"start \(3, 0\) lies outside", id="start-outside"),
        pytest.param({"heuristic": "taxicab"}, "unknown heuristic 'taxicab'", id="heuristic"),
        pytest.param({"costs": np.zeros((3, 3))}, r"costs\[0, 0\] = 0.0", id="costs"),
        pytest.param({"goal": (1.5, 2)}, "goal must be a", id="goal-not-ints"),
    ],
)
def test_bad_arguments_are_refused_in_find_paths_words(
    kwargs: dict[str, object], message: str
) -> None:
    arguments: dict[str, object] = {"start": (0, 0), "goal": (2, 2), **kwargs}
    with pytest.raises(ValueError, match=message):
        BidirectionalSearch(np.ones((3, 3), dtype=bool), **arguments)  # type: ignore[arg-type]


def test_advance_refuses_a_budget_below_one() -> None:
    search = BidirectionalSearch(np.ones((3, 3), dtype=bool), (0, 0), (2, 2))
    with pytest.raises(ValueError, match="max_expansions must be >= 1"):
        search.advance(0)


@pytest.mark.parametrize("diagonal", [True, False], ids=["8", "4"])
def test_find_path_runs_it_by_name(diagonal: bool) -> None:
    walkable = np.ones((6, 7), dtype=bool)
    walkable[1:5, 3] = False
    costs = np.ones((6, 7))
    costs[5, :] = 2.0
    expected = BidirectionalSearch(walkable, (2, 0), (3, 6), diagonal=diagonal, costs=costs).run()
    for implementation in ("auto", "python"):
        result = find_path(
            walkable,
            (2, 0),
            (3, 6),
            algorithm="bidirectional",
            diagonal=diagonal,
            costs=costs,
            implementation=implementation,
        )
        assert result == expected


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"implementation": "c"}, "compiled kernel does not run bidirectional", id="c"),
        pytest.param({"weight": 2.0}, "bidirectional runs with weight 1 only", id="weight"),
    ],
)
def test_find_path_refuses_what_it_cannot_run(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        find_path(
            np.ones((3, 3), dtype=bool),
            (0, 0),
            (2, 2),
            algorithm="bidirectional",
            **kwargs,  # type: ignore[arg-type]
        )


def test_the_one_loop_search_refuses_it() -> None:
    from sim.navigation import start_search

    with pytest.raises(ValueError, match="BidirectionalSearch"):
        start_search(np.ones((3, 3), dtype=bool), (0, 0), (2, 2), algorithm="bidirectional")


def test_halves_meet_in_the_middle_of_a_corridor() -> None:
    search = BidirectionalSearch(np.ones((1, 21), dtype=bool), (0, 0), (0, 20))
    result = search.run()
    assert search.meeting_cell == (0, 10)
    assert search.forward is not None
    assert search.backward is not None
    assert search.forward.expanded == search.backward.expanded == 10
    assert result.expanded == 20
