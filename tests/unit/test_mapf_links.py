"""Links in the multi-agent planner: a link is one more move, one time step long."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from sim.mapf.checker import check_plan, flat_to_pairs
from sim.mapf.problem import UNREACHABLE, MapfProblem, distance_tables
from sim.mapf.solvers import solve
from sim.navigation.links import NavLink

# Two rooms split by a wall; a one-way drop leads from the left room into the right one.
WALKABLE = np.ones((4, 9), dtype=bool)
WALKABLE[:, 4] = False
DROP = NavLink((1, 3), (1, 5), 4.0, bidirectional=False)


def problem_with_drop(starts: list[tuple[int, int]], goals: list[tuple[int, int]]) -> MapfProblem:
    return MapfProblem.from_cells(WALKABLE, starts, goals).with_links([DROP])


def test_distance_tables_count_a_link_as_one_step_and_only_its_way() -> None:
    problem = problem_with_drop([(1, 0), (1, 8)], [(1, 8), (1, 0)])
    tables = distance_tables(problem, implementation="python")
    width = problem.width
    # (1, 0) -> (1, 3): 3 steps, the drop: 1, (1, 5) -> (1, 8): 3 steps.
    assert tables[0, 1 * width + 0] == 7
    assert tables[1, 1 * width + 8] == UNREACHABLE  # no way back up the drop
    with pytest.raises(ValueError, match="know no links"):
        solve(problem, "pibt", implementation="c")


@pytest.mark.parametrize("solver", ["pibt", "lacam", "cbs"])
def test_every_solver_plans_through_a_link_without_conflicts(solver: str) -> None:
    problem = problem_with_drop([(0, 0), (1, 0), (3, 1)], [(0, 8), (1, 8), (3, 7)])
    result = solve(problem, solver, time_limit_s=5.0, implementation="python")
    assert result.solved
    assert check_plan(problem, flat_to_pairs(problem, result.paths)) == []
    drop = (1 * problem.width + 3, 1 * problem.width + 5)
    for path in result.paths:
        assert drop in set(itertools.pairwise(path)), path


def test_the_checker_refuses_a_jump_that_is_no_link() -> None:
    problem = problem_with_drop([(1, 5)], [(1, 3)])
    violations = check_plan(problem, [[(1, 5), (1, 3)]])
    assert [violation.kind.value for violation in violations] == ["not adjacent"]
