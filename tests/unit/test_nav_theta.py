"""Theta*: any-angle paths whose segments keep line of sight, between A*'s cost and the line.

Hypothesis runs derandomized (the same examples every run) and keeps no database; the grids
are `tests.helpers.problems`' (up to 40x40, 0 to 50 % walls), without cell costs: Theta*
refuses them. Line of sight is checked with the app's own rule, `segment_is_clear`.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.navigation import find_path
from sim.navigation.line_of_sight import centres_in_sight, segment_is_clear
from sim.navigation.query import PathResult, Reason
from sim.navigation.searches.theta import ThetaStar
from tests.helpers.grids import ascii_grid
from tests.helpers.problems import PROPERTY_SETTINGS, Problem, problems


def centre(cell: tuple[int, int]) -> tuple[float, float]:
    row, col = cell
    return col + 0.5, row + 0.5


def theta(p: Problem, *, diagonal: bool) -> PathResult:
    return ThetaStar(p.walkable, p.start, p.goal, diagonal=diagonal).run()


@PROPERTY_SETTINGS
@given(problem=problems(with_costs=False), diagonal=st.booleans())
def test_theta_paths_keep_line_of_sight_and_cost_their_length(
    problem: Problem, diagonal: bool
) -> None:
    p = problem
    result = theta(p, diagonal=diagonal)
    astar = find_path(p.walkable, p.start, p.goal, diagonal=diagonal)
    assert result.found == astar.found
    assert result.reason == astar.reason
    if not result.found:
        assert (result.cells, result.cost) == ((), math.inf)
        return
    cells = result.cells
    assert (cells[0], cells[-1]) == (p.start, p.goal)
    drawing = ascii_grid(p.walkable, cells)
    for here, there in itertools.pairwise(cells):
        assert here != there, drawing
        assert segment_is_clear(p.walkable, centre(here), centre(there)), drawing
    segments = math.fsum(math.dist(a, b) for a, b in itertools.pairwise(cells))
    assert math.isclose(result.cost, segments, rel_tol=1e-12, abs_tol=1e-12)
    straight = math.dist(p.start, p.goal)
    assert straight - 1e-9 <= result.cost <= astar.cost + 1e-9, drawing


@PROPERTY_SETTINGS
@given(problem=problems(with_costs=False), diagonal=st.booleans(), budget=st.integers(1, 7))
def test_stepping_to_the_end_gives_the_result_of_running(
    problem: Problem, diagonal: bool, budget: int
) -> None:
    p = problem
    run = theta(p, diagonal=diagonal)
    stepped = ThetaStar(p.walkable, p.start, p.goal, diagonal=diagonal)
    expansions = list(stepped.steps())
    assert stepped.result() == run
    assert len(expansions) == run.expanded
    if run.found:
        assert expansions[-1] == p.goal
    chunked = ThetaStar(p.walkable, p.start, p.goal, diagonal=diagonal)
    while not chunked.advance(budget):
        pass
    assert chunked.result() == run


@PROPERTY_SETTINGS
@given(problem=problems(with_costs=False), diagonal=st.booleans())
def test_every_g_is_the_straight_length_from_a_parent_in_sight(
    problem: Problem, diagonal: bool
) -> None:
    p = problem
    search = ThetaStar(p.walkable, p.start, p.goal, diagonal=diagonal)
    result = search.run()
    g, parents = search.g_costs(), search.came_from()
    width = p.walkable.shape[1]
    for row, col in zip(*np.nonzero(np.isfinite(g)), strict=True):
        cell = (int(row), int(col))
        parent = parents[cell]
        if parent < 0:
            assert cell == p.start
            assert g[cell] == 0.0
            continue
        parent_cell = divmod(int(parent), width)
        assert g[cell] == g[parent_cell] + math.dist(parent_cell, cell)
        assert segment_is_clear(p.walkable, centre(parent_cell), centre(cell))
    if result.found:
        assert result.cost == g[p.goal]


@pytest.mark.parametrize(
    ("start", "goal"), [((0, 0), (9, 6)), ((4, 7), (0, 0)), ((2, 2), (2, 9)), ((9, 9), (0, 1))]
)
@pytest.mark.parametrize("diagonal", [True, False], ids=["8", "4"])
def test_open_grid_gives_the_straight_line(
    start: tuple[int, int], goal: tuple[int, int], diagonal: bool
) -> None:
    result = ThetaStar(np.ones((10, 10), dtype=bool), start, goal, diagonal=diagonal).run()
    assert result.cells == (start, goal)
    assert result.cost == math.dist(start, goal)


def test_path_turns_at_a_corner_it_may_not_cut() -> None:
    walkable = np.ones((5, 5), dtype=bool)
    walkable[0:3, 2] = False  # a wall; the way round is under (2, 2)
    result = ThetaStar(walkable, (0, 0), (0, 4)).run()
    assert result.cells == ((0, 0), (3, 1), (3, 3), (0, 4))
    assert result.cost == math.hypot(3, 1) + 2.0 + math.hypot(3, 1)
    # Grazing the corner of (2, 2) would be shorter, and is not allowed.
    assert not segment_is_clear(walkable, centre((0, 0)), centre((3, 2)))


def test_no_squeezing_between_two_diagonal_walls() -> None:
    walkable = np.ones((4, 4), dtype=bool)
    walkable[1, 2] = walkable[2, 1] = False
    result = ThetaStar(walkable, (0, 0), (3, 3)).run()
    assert result.found
    assert (1, 1) not in result.cells or (2, 2) not in result.cells
    for here, there in itertools.pairwise(result.cells):
        assert segment_is_clear(walkable, centre(here), centre(there))


@pytest.mark.parametrize(
    ("walkable_rows", "start", "goal", "reason"),
    [
        pytest.param(["...", "..."], (1, 1), (1, 1), Reason.FOUND, id="start-is-goal"),
        pytest.param(["#..", "..."], (0, 0), (1, 2), Reason.START_BLOCKED, id="start-blocked"),
        pytest.param(["...", "..#"], (0, 0), (1, 2), Reason.GOAL_BLOCKED, id="goal-blocked"),
        pytest.param(["...", "..."], (0, 0), (2, 0), Reason.GOAL_OUTSIDE, id="goal-outside"),
        pytest.param([".#.", ".#."], (0, 0), (1, 2), Reason.UNREACHABLE, id="wall-across"),
        pytest.param([".#", "#."], (0, 0), (1, 1), Reason.UNREACHABLE, id="corner-squeeze"),
    ],
)
def test_ends_and_reasons_agree_with_astar(
    walkable_rows: list[str], start: tuple[int, int], goal: tuple[int, int], reason: Reason
) -> None:
    walkable = np.array([[c == "." for c in row] for row in walkable_rows])
    result = ThetaStar(walkable, start, goal).run()
    astar = find_path(walkable, start, goal)
    assert result.reason == astar.reason == reason
    assert (result.cells, result.cost) == (astar.cells, astar.cost)


def test_costs_of_one_are_accepted_and_others_refused() -> None:
    walkable = np.array([[True, True, False]])
    ones = np.array([[1.0, 1.0, 9.0]])  # 9 on a blocked cell is never read
    assert ThetaStar(walkable, (0, 0), (0, 1), costs=ones).run().cost == 1.0
    dear = np.array([[1.0, 2.0, 1.0]])
    with pytest.raises(ValueError, match=r"theta takes no cell costs .* costs\[0, 1\] = 2$"):
        ThetaStar(walkable, (0, 0), (0, 1), costs=dear)


def test_search_is_readable_between_steps() -> None:
    walkable = np.ones((3, 4), dtype=bool)
    search = ThetaStar(walkable, (1, 0), (1, 3))
    search.advance(2)
    assert search.current == (1, 1)
    assert search.closed_mask().sum() == 2
    # (1, 2) and its column were offered to the start, which sees them: parent is the start.
    parents = search.came_from()
    assert parents[0, 2] == parents[2, 2] == 1 * 4 + 0
    assert parents[1, 0] == -1
    assert search.g_costs()[0, 2] == math.hypot(1, 2)
    assert search.f_costs()[1, 2] == 3.0
    assert search.frontier_mask()[:, 2].all()


def test_result_before_the_end_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="has not finished"):
        ThetaStar(np.ones((3, 3), dtype=bool), (0, 0), (2, 2)).result()


@settings(PROPERTY_SETTINGS, max_examples=200)
@given(
    problem=problems(with_costs=False),
    a=st.tuples(st.integers(-1, 40), st.integers(-1, 40)),
    b=st.tuples(st.integers(-1, 40), st.integers(-1, 40)),
)
def test_centres_in_sight_is_segment_is_clear_between_centres(
    problem: Problem, a: tuple[int, int], b: tuple[int, int]
) -> None:
    expected = segment_is_clear(problem.walkable, centre(a), centre(b))
    assert centres_in_sight(problem.walkable, a, b) is expected


@pytest.mark.parametrize("diagonal", [True, False], ids=["8", "4"])
def test_find_path_runs_it_by_name(diagonal: bool) -> None:
    walkable = np.ones((6, 7), dtype=bool)
    walkable[1:5, 3] = False
    ones = np.ones((6, 7))
    expected = ThetaStar(walkable, (2, 0), (3, 6), diagonal=diagonal).run()
    for implementation in ("auto", "python"):
        result = find_path(
            walkable,
            (2, 0),
            (3, 6),
            algorithm="theta",
            diagonal=diagonal,
            costs=ones,
            heuristic="manhattan",  # not read: Theta* estimates with the straight line
            implementation=implementation,
        )
        assert result == expected


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"implementation": "c"}, "compiled kernel does not run theta", id="c"),
        pytest.param({"weight": 1.5}, "theta runs with weight 1 only", id="weight"),
        pytest.param(
            {"costs": np.array([[1, 1, 1], [1, 3, 1], [1, 1, 1]])},
            r"theta takes no cell costs .* costs\[1, 1\] = 3",
            id="costs",
        ),
    ],
)
def test_find_path_refuses_what_it_cannot_run(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        find_path(
            np.ones((3, 3), dtype=bool),
            (0, 0),
            (2, 2),
            algorithm="theta",
            **kwargs,  # type: ignore[arg-type]
        )


def test_the_one_loop_search_refuses_it() -> None:
    from sim.navigation import start_search

    with pytest.raises(ValueError, match="ThetaStar"):
        start_search(np.ones((3, 3), dtype=bool), (0, 0), (2, 2), algorithm="theta")
