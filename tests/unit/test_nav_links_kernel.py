"""Links in C (`_linked.c`) against the Python reference: the same cells, cost and expansions."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sim.navigation.field import distance_field
from sim.navigation.links import NavLink
from sim.navigation.pathfinder import find_path
from sim.navigation.searches import kernel
from sim.navigation.searches.incremental import IncrementalSearch
from tests.helpers.links import RULES, moving_starts, random_problem

pytestmark = pytest.mark.skipif(
    not kernel.LINKS_AVAILABLE, reason="the compiled search with links is not built"
)


@pytest.mark.parametrize("heuristic", ["octile", "manhattan", "euclidean"])
@pytest.mark.parametrize("algorithm", ["astar", "dijkstra", "bfs", "greedy"])
@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("seed", range(25))
def test_c_and_python_agree_to_the_bit(
    seed: int, rule: str, algorithm: str, heuristic: str
) -> None:
    problem = random_problem(seed + 1000, with_costs=seed % 3 == 0)
    options: dict[str, Any] = {
        "diagonal": rule,
        "algorithm": algorithm,
        "heuristic": heuristic,
        "costs": problem.costs,
        "links": problem.links,
        "weight": 1.5 if seed % 4 == 1 and algorithm == "astar" else 1.0,
    }
    # Each on its own copy: a second query on one array may be answered by its regions.
    walkable = problem.walkable
    in_c = find_path(walkable.copy(), problem.start, problem.goal, implementation="c", **options)
    in_python = find_path(
        walkable.copy(), problem.start, problem.goal, implementation="python", **options
    )
    assert in_c == in_python, problem


def test_auto_runs_links_in_c_with_astar() -> None:
    walkable = np.ones((2, 30), dtype=bool)
    links = [NavLink((0, 0), (0, 29), 2.0)]
    auto = find_path(walkable, (0, 0), (0, 29), links=links)
    assert auto == find_path(walkable, (0, 0), (0, 29), links=links, implementation="c")
    assert auto.cells == ((0, 0), (0, 29))
    assert auto.cost == 2.0


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("seed", range(20))
def test_the_field_with_links_is_the_same_in_c(seed: int, rule: str) -> None:
    problem = random_problem(seed + 5000, with_costs=seed % 2 == 0)
    fields = [
        distance_field(
            problem.walkable,
            problem.goal,
            diagonal=rule,
            costs=problem.costs,
            links=problem.links,
            implementation=implementation,
        )
        for implementation in ("c", "python")
    ]
    assert np.array_equal(fields[0], fields[1]), problem


@pytest.mark.parametrize("heuristic", ["octile", "zero"])
@pytest.mark.parametrize("rule", ["never", "no-corner-cutting"])
@pytest.mark.parametrize("seed", range(20))
def test_d_star_lite_with_links_is_the_same_in_c(seed: int, rule: str, heuristic: str) -> None:
    """Cells toggle (link ends among them) and the start moves: C repairs as Python does."""
    problem = random_problem(seed + 6000, with_costs=seed % 2 == 1)
    rng = np.random.default_rng(seed)
    walkable = problem.walkable.copy()
    planners = [
        IncrementalSearch(diagonal=rule, heuristic=heuristic, implementation=implementation)
        for implementation in ("c", "python")
    ]
    for step, start in enumerate(moving_starts(problem, walkable, rng)):
        # Each on its own copy: the regions may answer a second query on one array at once.
        in_c, in_python = (
            planner.plan(grid, start, problem.goal, costs=problem.costs, links=problem.links)
            for planner, grid in zip(planners, (walkable.copy(), walkable.copy()), strict=True)
        )
        assert in_c == in_python, (step, problem)
        assert planners[0].last_repaired == planners[1].last_repaired
