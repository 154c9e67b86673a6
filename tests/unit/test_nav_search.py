"""find_path and Search: worked examples, reasons for no path, every error message."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim.navigation import (
    Algorithm,
    Heuristic,
    MoveGraph,
    Reason,
    Search,
    find_path,
    is_admissible,
    start_search,
)
from tests.helpers.grids import grid
from tests.helpers.oracles import assert_legal_path, oracle_cost, steps_cost
from tests.helpers.problems import PROPERTY_SETTINGS, Problem, problems

ROOM = grid(
    """
    ......
    .####.
    .#....
    .#.##.
    ......
    """
)


@pytest.mark.parametrize(
    ("diagonal", "start", "goal", "expected_cost"),
    [
        pytest.param(True, (0, 0), (0, 5), 5.0, id="8conn-straight-row"),
        pytest.param(True, (0, 0), (4, 5), 9.0, id="8conn-around-walls"),
        pytest.param(True, (0, 0), (2, 0), 2.0, id="8conn-down-the-side"),
        pytest.param(False, (0, 0), (4, 5), 9.0, id="4conn-around"),
        pytest.param(True, (2, 2), (2, 2), 0.0, id="start-is-goal"),
        pytest.param(True, (2, 2), (3, 2), 1.0, id="into-dead-end"),
    ],
)
def test_known_costs(
    diagonal: bool, start: tuple[int, int], goal: tuple[int, int], expected_cost: float
) -> None:
    result = find_path(ROOM, start, goal, diagonal=diagonal)
    assert result.found
    assert result.reason is Reason.FOUND
    assert result.cost == pytest.approx(expected_cost)
    assert_legal_path(ROOM, result.cells, start, goal, diagonal=diagonal)


def test_start_is_goal_is_a_one_cell_path() -> None:
    result = find_path(ROOM, (0, 3), (0, 3))
    assert (result.cells, result.cost, result.expanded) == (((0, 3),), 0.0, 1)


def test_diagonal_never_cuts_a_corner() -> None:
    walkable = grid(
        """
        .#
        ..
        """
    )
    result = find_path(walkable, (0, 0), (1, 1))
    assert result.cells == ((0, 0), (1, 0), (1, 1))
    assert result.cost == 2.0


def test_diagonal_never_squeezes_between_walls() -> None:
    walkable = grid(
        """
        .#
        #.
        """
    )
    result = find_path(walkable, (0, 0), (1, 1))
    assert (result.found, result.reason) == (False, Reason.UNREACHABLE)


def test_costs_steer_around_mud() -> None:
    walkable = np.ones((3, 3), dtype=bool)
    costs = np.ones((3, 3))
    costs[1, :2] = 10.0  # mud across the left of the middle row
    result = find_path(walkable, (0, 0), (2, 0), costs=costs, diagonal=False)
    assert result.cost == pytest.approx(6.0)
    assert (1, 2) in result.cells
    assert result.cost == pytest.approx(steps_cost(result.cells, costs))


def test_costs_are_charged_on_entering() -> None:
    walkable = np.ones((1, 3), dtype=bool)
    costs = np.array([[7.0, 2.0, 3.0]])
    assert find_path(walkable, (0, 0), (0, 2), costs=costs).cost == pytest.approx(5.0)


def test_integer_costs_are_accepted() -> None:
    costs = np.full((2, 2), 2, dtype=np.int64)
    result = find_path(np.ones((2, 2), dtype=bool), (0, 0), (1, 1), costs=costs)
    assert result.cost == pytest.approx(2 * math.sqrt(2))


def test_costs_on_blocked_cells_are_ignored() -> None:
    walkable = np.array([[True, False, True]])
    costs = np.array([[1.0, np.inf, 1.0]])
    assert find_path(walkable, (0, 0), (0, 2), costs=costs).reason is Reason.UNREACHABLE


def test_tie_break_prefers_the_straight_run() -> None:
    # On an open grid many paths tie; preferring deep cells (small h) walks the diagonal first,
    # then straight, and expands only the cells on the path.
    result = find_path(np.ones((9, 9), dtype=bool), (0, 0), (4, 8), algorithm="astar")
    assert result.expanded == len(result.cells)
    assert result.cells == ((0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (4, 5), (4, 6), (4, 7), (4, 8))


def test_tie_break_survives_float_rounding() -> None:
    # sqrt(2) sums round differently along equal-cost paths; ties must still be ties.
    result = find_path(np.ones((30, 30), dtype=bool), (2, 3), (27, 13), algorithm="astar")
    assert result.expanded == len(result.cells)
    bends = sum(
        (b[0] - a[0], b[1] - a[1]) != (c[0] - b[0], c[1] - b[1])
        for a, b, c in zip(result.cells, result.cells[1:], result.cells[2:], strict=False)
    )
    assert bends == 1


def test_results_are_deterministic() -> None:
    first = find_path(ROOM, (4, 0), (2, 5))
    assert all(find_path(ROOM, (4, 0), (2, 5)) == first for _ in range(3))


@pytest.mark.parametrize(
    ("start", "goal", "reason"),
    [
        pytest.param((1, 1), (0, 0), Reason.START_BLOCKED, id="start-blocked"),
        pytest.param((0, 0), (1, 1), Reason.GOAL_BLOCKED, id="goal-blocked"),
        pytest.param((0, 0), (9, 0), Reason.GOAL_OUTSIDE, id="goal-below"),
        pytest.param((0, 0), (0, -1), Reason.GOAL_OUTSIDE, id="goal-left"),
        pytest.param((0, 0), (0, 4), Reason.UNREACHABLE, id="walled-off"),
    ],
)
def test_no_path_is_a_result_not_an_exception(
    start: tuple[int, int], goal: tuple[int, int], reason: Reason
) -> None:
    walkable = grid(
        """
        ...#.
        .#.#.
        ...##
        """
    )
    result = find_path(walkable, start, goal)
    assert (result.found, result.cells, result.cost, result.reason) == (
        False,
        (),
        math.inf,
        reason,
    )


def test_unreachable_explores_the_whole_component() -> None:
    walkable = grid(
        """
        ...#.
        ...#.
        """
    )
    assert find_path(walkable, (0, 0), (1, 4), algorithm="astar").expanded == 6


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"walkable": [[True]]}, "walkable must be a numpy array, got list", id="list"),
        pytest.param(
            {"walkable": np.ones(3, dtype=bool)}, r"walkable must be 2-D .* \(3,\)", id="1-d"
        ),
        pytest.param(
            {"walkable": np.ones((3, 3), dtype=np.uint8)},
            "walkable must have dtype bool, got uint8",
            id="uint8",
        ),
        pytest.param(
            {"start": (3, 0)}, r"start \(3, 0\) lies outside the 3x3 grid", id="start-out"
        ),
        pytest.param({"start": (0, -1)}, r"start \(0, -1\) lies outside", id="start-negative"),
        pytest.param({"start": (0,)}, r"start must be a \(row, col\) pair .* \(0,\)", id="short"),
        pytest.param({"start": (0.5, 1)}, r"start must be .* got \(0.5, 1\)", id="start-float"),
        pytest.param({"start": (True, 1)}, r"start must be .* \(True, 1\)", id="start-bool"),
        pytest.param({"goal": "ab"}, "goal must be a .* got 'ab'", id="goal-string"),
        pytest.param({"heuristic": "taxicab"}, "unknown heuristic 'taxicab'", id="heuristic"),
        pytest.param({"algorithm": "ida*"}, r"unknown algorithm 'ida\*'", id="algorithm"),
        pytest.param({"weight": 0.5}, "weight must be a finite number >= 1, got 0.5", id="w-low"),
        pytest.param({"weight": math.nan}, "weight must be a finite .* nan", id="weight-nan"),
        pytest.param({"weight": math.inf}, "weight must be a finite .* inf", id="weight-inf"),
        pytest.param({"weight": "2"}, "weight must be a number >= 1, got '2'", id="weight-str"),
        pytest.param(
            {"costs": np.ones((2, 2))}, r"costs must have the shape .* \(2, 2\)", id="costs-shape"
        ),
        pytest.param({"costs": [[1.0]]}, "costs must be a numpy array or None", id="costs-list"),
        pytest.param(
            {"costs": np.ones((3, 3), dtype=bool)},
            "costs must have a real number dtype, got bool",
            id="costs-bool",
        ),
        pytest.param(
            {"costs": np.full((3, 3), 0.2)},
            r"costs\[0, 0\] = 0.2 on a walkable cell",
            id="cost<0.25",
        ),
        pytest.param(
            {"costs": np.full((3, 3), 101.0)}, r"costs\[0, 0\] = 101.0 on a walk", id="cost>100"
        ),
        pytest.param(
            {"costs": np.full((3, 3), np.nan)}, r"costs\[0, 0\] = nan on a walkable", id="nan-cost"
        ),
        pytest.param(
            {"costs": np.full((3, 3), np.inf)}, r"costs\[0, 0\] = inf on a walkable", id="inf-cost"
        ),
    ],
)
def test_bad_arguments_raise_value_error_naming_the_value(
    kwargs: dict[str, object], message: str
) -> None:
    arguments: dict[str, object] = {
        "walkable": np.ones((3, 3), dtype=bool),
        "start": (0, 0),
        "goal": (2, 2),
    }
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        find_path(**arguments)  # type: ignore[arg-type]


def test_numpy_integers_are_cells() -> None:
    # The signature says int; numpy's integers work too, and that is what this checks.
    cell = (np.int64(0), np.int32(0))
    result = find_path(np.ones((3, 3), dtype=bool), cell, (2, 2))  # type: ignore[arg-type]
    assert result.cells[-1] == (2, 2)


# Theta*'s cells are its vertices, not steps: test_nav_theta.py checks them by line of sight.
@pytest.mark.parametrize(
    "algorithm", [a.value for a in Algorithm if a is not Algorithm.THETA], ids=str
)
def test_every_algorithm_finds_a_legal_path(algorithm: str) -> None:
    result = find_path(ROOM, (4, 0), (2, 5), algorithm=algorithm)
    assert result.found
    assert_legal_path(ROOM, result.cells, (4, 0), (2, 5), diagonal=True)
    assert result.cost == pytest.approx(steps_cost(result.cells))


def test_bfs_counts_moves_not_cost() -> None:
    # Mud on the short way: Dijkstra goes round it, breadth-first goes through (fewest moves).
    walkable = np.ones((3, 3), dtype=bool)
    costs = np.ones((3, 3))
    costs[0, 1] = 9.0
    bfs = find_path(walkable, (0, 0), (0, 2), costs=costs, algorithm="bfs", diagonal=False)
    dijkstra = find_path(
        walkable, (0, 0), (0, 2), costs=costs, algorithm="dijkstra", diagonal=False
    )
    assert (len(bfs.cells), bfs.cost) == (3, 10.0)
    assert (len(dijkstra.cells), dijkstra.cost) == (5, 4.0)


def test_heuristic_is_ignored_by_dijkstra() -> None:
    with_zero = find_path(ROOM, (4, 0), (2, 5), algorithm="dijkstra", heuristic="zero")
    with_octile = find_path(ROOM, (4, 0), (2, 5), algorithm="dijkstra", heuristic="octile")
    assert with_zero == with_octile


def test_weight_one_is_plain_astar() -> None:
    assert find_path(ROOM, (4, 0), (2, 5), weight=1) == find_path(ROOM, (4, 0), (2, 5))


@pytest.mark.parametrize(
    ("heuristic", "diagonal", "admissible"),
    [
        pytest.param(h.value, d, not (d and h is Heuristic.MANHATTAN), id=f"{h.value}-{n}")
        for h in Heuristic
        for d, n in ((True, "8conn"), (False, "4conn"))
    ],
)
def test_admissibility_table(heuristic: str, diagonal: bool, admissible: bool) -> None:
    assert is_admissible(heuristic, diagonal=diagonal) is admissible


def test_search_steps_expose_the_tree() -> None:
    search = start_search(ROOM, (4, 0), (2, 5))
    for row, col in search.steps():
        closed = search.closed_mask()
        g = search.g_costs()
        assert closed[row, col]
        assert closed.sum() == search.expanded
        assert not (search.frontier_mask() & closed).any()
        assert np.isfinite(g[closed]).all()
        parents = search.came_from()[closed]
        assert (closed.ravel()[parents[parents >= 0]]).all()
        f = search.f_costs()
        assert (f[closed] >= g[closed]).all()
    assert search.done
    assert search.result() == find_path(ROOM, (4, 0), (2, 5), algorithm="astar")


def test_advance_spreads_a_search_over_budgets() -> None:
    graph = MoveGraph.build(ROOM)
    search = Search(graph, (4, 0), (2, 5))
    rounds = 0
    while not search.advance(3):
        rounds += 1
        assert search.expanded == 3 * rounds
    assert search.result() == Search(graph, (4, 0), (2, 5)).run()


def test_steps_of_a_blocked_start_yield_nothing() -> None:
    search = start_search(ROOM, (1, 1), (0, 0))
    assert list(search.steps()) == []
    assert search.current is None
    assert search.result().reason is Reason.START_BLOCKED


def test_result_before_the_end_is_an_error() -> None:
    search = start_search(ROOM, (4, 0), (2, 5))
    with pytest.raises(RuntimeError, match="has not finished"):
        search.result()


def test_advance_needs_a_positive_budget() -> None:
    search = start_search(ROOM, (4, 0), (2, 5))
    with pytest.raises(ValueError, match="max_expansions must be >= 1 or None, got 0"):
        search.advance(0)


def test_graph_neighbours_follow_the_rules() -> None:
    graph = MoveGraph.build(ROOM)
    width = ROOM.shape[1]
    # (2, 2) is boxed in on the left and top: right and down only, no diagonal past walls.
    assert sorted(cell for cell, _ in graph.neighbours(2 * width + 2)) == [
        2 * width + 3,
        3 * width + 2,
    ]


# ---- Depth-first search: the teaching baseline, legal but not shortest ----


@PROPERTY_SETTINGS
@given(problem=problems(), diagonal=st.booleans())
def test_dfs_finds_a_legal_path_iff_one_exists(problem: Problem, diagonal: bool) -> None:
    p = problem
    dfs = find_path(p.walkable, p.start, p.goal, diagonal=diagonal, algorithm="dfs", costs=p.costs)
    exists = oracle_cost(p.walkable, p.start, p.goal, diagonal=diagonal, costs=p.costs)
    assert dfs.found is math.isfinite(exists), p
    if dfs.found:
        assert_legal_path(p.walkable, dfs.cells, p.start, p.goal, diagonal=diagonal)
        # The true cost of its own cells, summed in path order: equal to the last bit.
        assert dfs.cost == steps_cost(dfs.cells, p.costs), p
        assert dfs.cost >= exists - 1e-9 * max(exists, 1.0), p
        assert dfs.expanded <= int(p.walkable.sum())
    else:
        assert dfs.reason is Reason.UNREACHABLE


def test_dfs_is_usually_not_shortest() -> None:
    walkable = np.ones((5, 5), dtype=bool)
    dfs = find_path(walkable, (0, 0), (0, 4), algorithm="dfs")
    # The stack pops the last move pushed (down-right), so it dives away from the goal.
    assert dfs.cost > find_path(walkable, (0, 0), (0, 4), algorithm="dijkstra").cost + 1.0
    assert_legal_path(walkable, dfs.cells, (0, 0), (0, 4), diagonal=True)
    assert dfs.cost == steps_cost(dfs.cells)


def test_dfs_latest_discovery_wins() -> None:
    walkable = grid(
        """
        .....
        ..#..
        .....
        """
    )
    width = walkable.shape[1]
    search = start_search(walkable, (1, 0), (1, 4), algorithm="dfs")
    search.advance(2)
    # (1, 0) found (1, 1) at cost 1, then (2, 1), expanded next (pushed last), found it again
    # at the higher cost sqrt(2) + 1: the later discovery still wins, as the stack pops it.
    assert search.current == (2, 1)
    assert search.cell_state(1 * width + 1) == (math.sqrt(2.0) + 1.0, 2 * width + 1)


def test_dfs_never_reaches_the_compiled_kernel() -> None:
    auto = find_path(ROOM, (4, 0), (2, 5), algorithm="dfs")
    assert auto == find_path(ROOM, (4, 0), (2, 5), algorithm="dfs", implementation="python")
    assert auto.found


def test_dfs_on_the_compiled_kernel_is_a_value_error() -> None:
    with pytest.raises(
        ValueError, match="the compiled kernel does not run dfs; use implementation"
    ):
        find_path(ROOM, (4, 0), (2, 5), algorithm="dfs", implementation="c")


def test_dfs_ignores_the_heuristic_and_the_weight() -> None:
    plain = find_path(ROOM, (4, 0), (2, 5), algorithm="dfs")
    assert find_path(ROOM, (4, 0), (2, 5), algorithm="dfs", heuristic="manhattan") == plain
    assert find_path(ROOM, (4, 0), (2, 5), algorithm="dfs", weight=3.0) == plain
    search = start_search(ROOM, (4, 0), (2, 5), algorithm="dfs")
    search.run()
    closed = search.closed_mask()
    assert (search.f_costs()[closed] == search.g_costs()[closed]).all()  # h = 0: f = g
