"""8-connected MAPF: diagonal steps without corner cutting, crossing diagonals a conflict."""

from __future__ import annotations

import numpy as np
import pytest

from sim.mapf import LowerBounds, MapfProblem, distance_tables, lower_bounds, solve
from sim.mapf.cbs import first_conflict
from sim.mapf.checker import ViolationKind, check_plan, flat_to_pairs

IMPLEMENTATIONS = ["python", "c"]
SOLVER_RUNS = [("pibt", "python"), ("pibt", "c"), ("lacam", "python"), ("lacam", "c"), ("cbs", "")]


def opposite_corners(connectivity: int) -> MapfProblem:
    """Two agents cross an open 3x3 square corner to opposite corner.

    By hand: 4-connected each needs 4 steps and both can have them (one along the top and
    right, the other down the left and along the bottom): 8. 8-connected each alone needs 2,
    both through the centre at time 1, so one must take 3: 5.
    """
    return MapfProblem.from_cells(
        np.ones((3, 3), bool), [(0, 0), (0, 2)], [(2, 2), (2, 0)], connectivity=connectivity
    )


def crossed_square(connectivity: int) -> MapfProblem:
    """Two agents on a 2x2 square each go to the cell diagonally across.

    By hand: 4-connected both go round, 2 steps each: 4. 8-connected both diagonals at once
    would cross, so one agent goes first and the other one step later: 1 + 2 = 3.
    """
    return MapfProblem.from_cells(
        np.ones((2, 2), bool), [(0, 0), (0, 1)], [(1, 1), (1, 0)], connectivity=connectivity
    )


def connected_problem(seed: int) -> MapfProblem:
    """A random 5x5, 8-connected, 4 agents, each of which can reach its goal alone."""
    rng = np.random.default_rng(seed)
    while True:
        walkable = rng.random((5, 5)) >= 0.2
        free = [divmod(int(c), 5) for c in rng.permutation(np.flatnonzero(walkable))]
        problem = MapfProblem.from_cells(walkable, free[:4], free[4:8], connectivity=8)
        tables = distance_tables(problem)
        if (tables[range(4), list(problem.starts)] < 2**30).all():
            return problem


def kinds(problem: MapfProblem, paths) -> list[tuple[ViolationKind, int, tuple[int, ...]]]:
    return [(v.kind, v.time, v.agents) for v in check_plan(problem, paths)]


def test_a_diagonal_step_needs_both_cells_beside_it() -> None:
    walkable = np.array([[1, 1, 1], [1, 1, 0], [1, 1, 1]], bool)
    problem = MapfProblem(walkable, (), (), connectivity=8)
    # From the centre: up, left, down; then only the diagonals not beside the wall at (1, 2).
    assert problem.neighbours(4) == [1, 3, 7, 0, 6]
    assert MapfProblem(walkable, (), ()).neighbours(4) == [1, 3, 7]


def test_connectivity_is_4_or_8() -> None:
    with pytest.raises(ValueError, match="connectivity must be 4 or 8, got 6"):
        MapfProblem(np.ones((2, 2), bool), (), (), connectivity=6)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_distance_tables_count_a_diagonal_as_one_step(implementation: str) -> None:
    walkable = np.array([[1, 1, 1], [1, 0, 1], [1, 1, 1]], bool)
    problem = MapfProblem.from_cells(walkable, [(2, 2)], [(0, 0)], connectivity=8)
    table = distance_tables(problem, implementation=implementation)[0].reshape(3, 3)
    # The wall in the middle blocks every diagonal beside it: around the ring, 1 a step.
    assert table.tolist() == [[0, 1, 2], [1, 2**30, 3], [2, 3, 4]]
    for connectivity, bounds in ((4, LowerBounds(8, 4)), (8, LowerBounds(4, 2))):
        square = opposite_corners(connectivity)
        tables = distance_tables(square, implementation=implementation)
        assert lower_bounds(square, tables) == bounds


def test_c_and_python_distance_tables_agree_on_random_grids() -> None:
    rng = np.random.default_rng(5)
    walkable = rng.random((16, 16)) >= 0.3
    free = [divmod(int(c), 16) for c in np.flatnonzero(walkable)][:6]
    problem = MapfProblem.from_cells(walkable, free, free[::-1], connectivity=8)
    python = distance_tables(problem, implementation="python")
    c = distance_tables(problem, implementation="c")
    assert (python == c).all()
    assert (python <= distance_tables(MapfProblem.from_cells(walkable, free, free[::-1]))).all()


def test_checker_refuses_a_diagonal_step_when_4_connected() -> None:
    problem = crossed_square(4)
    paths = [[(0, 0), (1, 1)], [(0, 1), (0, 0), (1, 0)]]
    assert kinds(problem, paths) == [(ViolationKind.DIAGONAL, 1, (0,))]


def test_checker_refuses_a_corner_cut_when_8_connected() -> None:
    walkable = np.array([[1, 0], [1, 1]], bool)
    problem = MapfProblem.from_cells(walkable, [(0, 0)], [(1, 1)], connectivity=8)
    assert kinds(problem, [[(0, 0), (1, 1)]]) == [(ViolationKind.CORNER_CUT, 1, (0,))]
    assert kinds(problem, [[(0, 0), (1, 0), (1, 1)]]) == []


def test_checker_names_a_crossing_conflict() -> None:
    problem = crossed_square(8)
    found = check_plan(problem, [[(0, 0), (1, 1)], [(0, 1), (1, 0)]])
    assert [(v.kind, v.time, v.agents) for v in found] == [
        (ViolationKind.CROSSING_CONFLICT, 1, (0, 1))
    ]
    assert str(found[0]) == (
        "t=1: crossing conflict: agent 0 moves from (x=0, y=0) to (x=1, y=1) across agent 1 "
        "moving from (x=1, y=0) to (x=0, y=1)"
    )


def test_checker_accepts_diagonals_that_do_not_cross() -> None:
    problem = crossed_square(8)
    # Agent 1 goes first; agent 0 takes its diagonal once agent 1 stands still.
    assert kinds(problem, [[(0, 0), (0, 0), (1, 1)], [(0, 1), (1, 0)]]) == []
    # Parallel diagonals in neighbouring blocks do not cross.
    wide = MapfProblem.from_cells(
        np.ones((2, 3), bool), [(0, 0), (0, 1)], [(1, 1), (1, 2)], connectivity=8
    )
    assert kinds(wide, [[(0, 0), (1, 1)], [(0, 1), (1, 2)]]) == []


def test_cbs_splits_a_crossing_into_one_step_forbidden_each() -> None:
    # On a 2-wide grid: 0 -> 3 and 2 -> 1 cross, whichever direction the second goes.
    assert first_conflict([(0, 3), (2, 1)], 2) == (0, 1, (0, 3, 1), (2, 1, 1))
    assert first_conflict([(0, 3), (1, 2)], 2) == (0, 1, (0, 3, 1), (1, 2, 1))
    assert first_conflict([(0, 3), (0, 3)], 2) is not None  # a vertex conflict, not a crossing
    assert first_conflict([(0, 3), (1, 1)], 2) is None


@pytest.mark.parametrize(("solver", "implementation"), SOLVER_RUNS)
@pytest.mark.parametrize(
    ("make", "cost_4", "cost_8"), [(opposite_corners, 8, 5), (crossed_square, 4, 3)]
)
def test_8_connected_is_strictly_cheaper_and_every_plan_valid(
    solver: str, implementation: str, make, cost_4: int, cost_8: int
) -> None:
    for connectivity, least in ((4, cost_4), (8, cost_8)):
        problem = make(connectivity)
        result = solve(problem, solver, time_limit_s=30.0, implementation=implementation or "auto")
        assert result.solved
        assert check_plan(problem, flat_to_pairs(problem, result.paths)) == []
        if solver != "pibt":  # the optimal ones; PIBT promises no cost
            assert result.soc == least
        else:
            assert result.soc >= least


@pytest.mark.parametrize("seed", range(3))
def test_lacam_and_cbs_agree_on_the_8_connected_optimum(seed: int) -> None:
    problem = connected_problem(seed)
    exact = solve(problem, "cbs", time_limit_s=60.0)
    anytime = solve(problem, "lacam", time_limit_s=60.0, implementation="c")
    assert exact.solved
    assert anytime.solved
    assert check_plan(problem, flat_to_pairs(problem, exact.paths)) == []
    assert check_plan(problem, flat_to_pairs(problem, anytime.paths)) == []
    assert anytime.soc >= exact.soc
    if anytime.optimal:
        assert anytime.soc == exact.soc
