"""What a learned policy is measured against: the exact single-agent step and joint MAPF plans.

`oracle_policy` takes, from wherever the agent stands, a step of an optimal path to its goal:
the allowed action minimising the step's cost plus the goal's exact distance field
(`sim.navigation.field.distance_field`) at the cell it reaches, so an episode's cost equals
`find_path`'s. `mapf_policy` plans the parallel environment's episode jointly with a
multi-agent planner (`sim.mapf.solve`) at its first step and replays the plan as actions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.envs.navigate import NavigateEnv
from sim.envs.parallel import GridpathParallelEnv
from sim.envs.source import EnvError
from sim.mapf import MapfProblem, solve
from sim.navigation import Cell, DiagonalRule
from sim.navigation.field import distance_field

Policy = Callable[[Any], int]
JointPolicy = Callable[[Any], dict[str, int]]


def oracle_policy(env: Any) -> Policy:
    """A policy for `env` (a Navigate env, wrapped or not) taking optimal steps; any obs."""
    nav = env.unwrapped
    if not isinstance(nav, NavigateEnv):
        raise EnvError(f"oracle_policy needs a gridpath/Navigate-v0 environment, got {nav!r}")
    fields: dict[Cell, NDArray[np.float64]] = {}
    actions = np.arange(nav.steps.count)

    def act(observation: Any = None) -> int:
        goal, (row, col) = nav.goal, nav.position
        if (row, col) == goal:
            return 0
        if goal not in fields:
            source = nav.source
            costs = None if bool((source.costs == 1.0).all()) else source.costs
            fields[goal] = distance_field(
                source.walkable, goal, diagonal=source.rule.value, costs=costs
            )
        field = fields[goal]
        rows = np.full(len(actions), row, dtype=np.int64)
        cols = np.full(len(actions), col, dtype=np.int64)
        allowed = nav.steps.allowed(rows[:1], cols[:1])[0]
        allowed[0] = False
        targets = nav.steps.deltas + np.array([row, col])
        total = np.full(len(actions), np.inf)
        reach = field[targets[allowed, 0], targets[allowed, 1]]
        total[allowed] = nav.steps.cost(rows, cols, actions)[allowed] + reach
        return int(np.argmin(total))

    return act


def mapf_policy(
    env: GridpathParallelEnv, solver: str = "lacam", *, time_limit_s: float = 10.0, seed: int = 0
) -> JointPolicy:
    """A joint policy for `env` that replays one plan of `solver` made for the current episode.

    Call it after `env.reset`: it plans from the agents' cells to their targets at once (the
    grid's rule must be "never" or "no-corner-cutting", the planners' two).

    Raises:
        EnvError: for another rule, or when the planner finds no plan within the time limit.
    """
    rule = env.source.rule
    if rule not in (DiagonalRule.NEVER, DiagonalRule.NO_CORNER_CUTTING):
        raise EnvError(
            f"the multi-agent planners know 4- and 8-connected moves, not {rule.value!r}"
        )
    problem = MapfProblem(
        env.source.walkable,
        tuple(int(cell) for cell in env.positions),
        tuple(int(cell) for cell in env.goals),
        name=env.source.name,
        connectivity=4 if rule is DiagonalRule.NEVER else 8,
    )
    result = solve(problem, solver, time_limit_s=time_limit_s, seed=seed)
    if not result.solved:
        raise EnvError(f"{solver} found no plan for {len(env.possible_agents)} agents in time")
    cols = env.source.shape[1]
    deltas = {tuple(delta): index for index, delta in enumerate(env.steps.deltas.tolist())}
    start_step = env.elapsed

    def act(observations: Any = None) -> dict[str, int]:
        t = env.elapsed - start_step
        chosen = {}
        for name in env.agents:
            path = result.paths[env.possible_agents.index(name)]
            here, there = path[min(t, len(path) - 1)], path[min(t + 1, len(path) - 1)]
            (row, col), (to_row, to_col) = divmod(here, cols), divmod(there, cols)
            chosen[name] = deltas[(to_row - row, to_col - col)]
        return chosen

    return act
