"""PIBT, LaCAM* and CBS: hand-checked optima, valid plans, determinism, C equal to Python."""

from __future__ import annotations

import signal

import numpy as np
import pytest

from sim.mapf import MapfProblem, distance_tables, native, solve
from sim.mapf.checker import check_plan, flat_to_pairs
from sim.mapf.lacam import lacam, max_nodes, sum_of_loss
from sim.mapf.pibt import MAX_STEPS_PER_CELL, pibt_configs

IMPLEMENTATIONS = ["python", "c"]


def corridor() -> MapfProblem:
    """Two agents swap ends of a 5-cell corridor with one alcove below its middle.

    By hand: one agent must step into the alcove (2 extra steps) and the other wait one step
    for it to clear the middle, so the least sum of costs is 4 + 4 + 2 + 1 = 11, makespan 6.
    """
    walkable = np.zeros((2, 5), bool)
    walkable[0, :] = True
    walkable[1, 2] = True
    return MapfProblem.from_cells(walkable, [(0, 0), (0, 4)], [(0, 4), (0, 0)])


def rotation() -> MapfProblem:
    """Four agents on a 2x2 square each move one cell clockwise: all at once, cost 4."""
    cells = [(0, 0), (0, 1), (1, 1), (1, 0)]
    return MapfProblem.from_cells(np.ones((2, 2), bool), cells, cells[1:] + cells[:1])


def random_problem(
    seed: int, size: int, agents: int, density: float = 0.2, connectivity: int = 4
) -> MapfProblem:
    rng = np.random.default_rng(seed)
    walkable = rng.random((size, size)) >= density
    free = [divmod(int(c), size) for c in np.flatnonzero(walkable)]
    order = rng.permutation(len(free))
    starts = [free[i] for i in order[:agents]]
    goals = [free[i] for i in order[agents : 2 * agents]]
    return MapfProblem.from_cells(walkable, starts, goals, connectivity=connectivity)


def connected_problem(seed: int, size: int, agents: int, connectivity: int = 4) -> MapfProblem:
    """A random problem every agent of which can reach its goal alone."""
    for attempt in range(100):
        problem = random_problem(seed * 100 + attempt, size, agents, connectivity=connectivity)
        tables = distance_tables(problem)
        if all(tables[i, s] < 2**30 for i, s in enumerate(problem.starts)):
            return problem
    raise AssertionError("no connected problem found")


def assert_valid(problem: MapfProblem, paths) -> None:
    assert check_plan(problem, flat_to_pairs(problem, paths)) == []


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_lacam_finds_the_corridor_optimum_and_proves_it(implementation: str) -> None:
    result = solve(corridor(), "lacam", time_limit_s=30.0, implementation=implementation)
    assert (result.solved, result.soc, result.makespan, result.optimal) == (True, 11, 6, True)
    assert_valid(corridor(), result.paths)


def test_cbs_finds_the_corridor_optimum() -> None:
    result = solve(corridor(), "cbs", time_limit_s=30.0)
    assert (result.solved, result.soc, result.makespan, result.optimal) == (True, 11, 6, True)
    assert_valid(corridor(), result.paths)


@pytest.mark.parametrize("solver", ["pibt", "lacam", "cbs"])
def test_a_rotation_is_one_step_for_everyone(solver: str) -> None:
    result = solve(rotation(), solver, time_limit_s=30.0)
    assert (result.solved, result.soc, result.makespan) == (True, 4, 1)
    assert_valid(rotation(), result.paths)


def test_pibt_swaps_through_the_corridor() -> None:
    # Pushing alone never sends an agent back into the alcove; the swap pulls one in.
    result = solve(corridor(), "pibt", time_limit_s=30.0)
    assert (result.solved, result.soc, result.makespan) == (True, 11, 6)
    assert_valid(corridor(), result.paths)


def test_pibt_may_fail_where_lacam_cannot() -> None:
    problem = connected_problem(2, 6, 8)  # found by trying seeds: PIBT circles here for good
    assert not solve(problem, "pibt", time_limit_s=30.0).solved
    result = solve(problem, "lacam", time_limit_s=1.0)
    assert result.solved
    assert_valid(problem, result.paths)


@pytest.mark.parametrize("seed", range(3))
def test_lacam_optimum_matches_cbs(seed: int) -> None:
    problem = connected_problem(seed, 5, 4)
    exact = solve(problem, "cbs", time_limit_s=60.0)
    anytime = solve(problem, "lacam", time_limit_s=60.0, implementation="c")
    assert exact.solved
    assert anytime.optimal
    assert anytime.soc == exact.soc
    assert_valid(problem, exact.paths)
    assert_valid(problem, anytime.paths)


def test_lacam_claims_no_optimum_when_its_sum_of_loss_is_not_the_sum_of_costs() -> None:
    # Here the plan of least sum of loss (16) has an agent wait at its goal, then leave: its
    # sum of costs is 17, while CBS finds 16. LaCAM* searched to the end but must not say
    # "optimal" for the sum of costs.
    problem = connected_problem(3, 5, 4)
    tables = distance_tables(problem)
    outcome = lacam(problem, tables, time_limit_s=120.0, seed=0)
    assert outcome.exhausted
    assert sum_of_loss(outcome.configs, problem.goals) == 16
    result = solve(problem, "lacam", time_limit_s=120.0, implementation="c")
    assert (result.soc, result.optimal) == (17, False)
    assert solve(problem, "cbs", time_limit_s=60.0).soc == 16


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize(
    ("solver", "implementation"),
    [("pibt", "python"), ("pibt", "c"), ("lacam", "python"), ("lacam", "c"), ("cbs", "python")],
)
def test_same_seed_same_plan(solver: str, implementation: str, connectivity: int) -> None:
    problem = connected_problem(7, 8, 5, connectivity)
    first = solve(problem, solver, time_limit_s=30.0, seed=3, implementation=implementation)
    again = solve(problem, solver, time_limit_s=30.0, seed=3, implementation=implementation)
    assert first.paths == again.paths
    if first.solved:
        assert_valid(problem, first.paths)


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("seed", range(2, 7))
def test_c_and_python_pibt_give_the_same_plan(seed: int, connectivity: int) -> None:
    problem = connected_problem(seed - 1, 12, 12, connectivity)
    tables = distance_tables(problem)
    steps = MAX_STEPS_PER_CELL * int(problem.walkable.sum())
    python = pibt_configs(problem, tables, time_limit_s=60.0, seed=seed)
    c = native.pibt_configs(problem, tables, time_limit_s=60.0, seed=seed, max_steps=steps)
    assert python is not None
    assert python == c


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("seed", range(6))
def test_c_and_python_lacam_give_the_same_plan(seed: int, connectivity: int) -> None:
    problem = connected_problem(seed, 4, 3, connectivity)
    tables = distance_tables(problem)
    python = lacam(problem, tables, time_limit_s=120.0, seed=seed)
    configs, exhausted, nodes = native.lacam_configs(
        problem, tables, time_limit_s=120.0, seed=seed, max_nodes=max_nodes(problem.agents)
    )
    assert python.exhausted  # searched to the end: no time limit reached
    assert exhausted
    assert [list(config) for config in python.configs] == configs
    assert python.nodes == nodes


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("seed", range(3))
def test_c_and_python_lacam_agree_when_a_node_limit_stops_them(
    seed: int, connectivity: int
) -> None:
    # 30 agents cannot be searched to the end; a node limit stops both at the same place.
    problem = connected_problem(seed, 10, 30, connectivity)
    tables = distance_tables(problem)
    python = lacam(problem, tables, time_limit_s=600.0, seed=seed, node_limit=1500)
    configs, exhausted, nodes = native.lacam_configs(
        problem, tables, time_limit_s=600.0, seed=seed, max_nodes=1500
    )
    assert python.configs
    assert (python.exhausted, python.nodes) == (exhausted, nodes) == (False, 1500)
    assert [list(config) for config in python.configs] == configs


@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("seed", range(4))
def test_c_and_python_lacam_stop_at_the_same_first_plan(seed: int, connectivity: int) -> None:
    # 30 agents: the anytime search would go on long after this first plan.
    problem = connected_problem(seed, 10, 30, connectivity)
    tables = distance_tables(problem)
    python = lacam(problem, tables, time_limit_s=600.0, seed=seed, first_plan=True)
    configs, exhausted, nodes = native.lacam_configs(
        problem, tables, time_limit_s=600.0, seed=seed, max_nodes=10**6, first_plan=True
    )
    assert python.configs
    assert python.configs[-1] == problem.goals
    assert (python.exhausted, python.nodes) == (exhausted, nodes)
    assert not exhausted
    assert [list(config) for config in python.configs] == configs
    assert nodes < 1500  # well short of where the node-limit test above stops the anytime search


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_first_plan_stops_before_the_optimum_is_proved(implementation: str) -> None:
    problem = corridor()
    first = solve(
        problem, "lacam", time_limit_s=30.0, implementation=implementation, first_plan=True
    )
    anytime = solve(problem, "lacam", time_limit_s=30.0, implementation=implementation)
    assert first.solved
    assert_valid(problem, first.paths)
    assert not first.optimal
    assert anytime.optimal
    assert first.soc >= anytime.soc


@pytest.mark.parametrize(
    ("solver", "limit", "message"),
    [("astar", 1.0, "solver must be one of"), ("lacam", 0.0, "time limit must be > 0")],
    ids=["solver", "limit"],
)
def test_solve_refuses_bad_arguments(solver: str, limit: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        solve(corridor(), solver, time_limit_s=limit)


class StopError(Exception):
    pass


def endless_search(solver: str):
    """A C search that would run for ten minutes unless something stops it."""
    if solver == "lacam":
        problem = connected_problem(5, 40, 120)
        tables = distance_tables(problem)
        return lambda: native.lacam_configs(
            problem, tables, time_limit_s=600.0, seed=0, max_nodes=max_nodes(120)
        )
    # Two agents that can never pass each other, and a billion steps allowed.
    blocked = MapfProblem.from_cells(np.ones((1, 2), bool), [(0, 0), (0, 1)], [(0, 1), (0, 0)])
    tables = distance_tables(blocked)
    return lambda: native.pibt_configs(blocked, tables, time_limit_s=600.0, seed=0, max_steps=10**9)


@pytest.mark.parametrize("solver", ["pibt", "lacam"])
def test_a_signal_handler_that_raises_ends_the_c_search(solver: str) -> None:
    # How Ctrl+C reaches a long C search: the kernel runs pending signal handlers now and then.
    search = endless_search(solver)

    def stop(signum, frame):
        raise StopError

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(StopError):
            search()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
