"""Conflict-Based Search: optimal sum of costs for a few agents.

Sharon, Stern, Felner and Sturtevant (2015), "Conflict-based search for optimal multi-agent
pathfinding". The high level is a best-first search over sets of constraints ("agent i may
not be at cell v at time t", "may not move u -> v arriving at t"); each high-level node plans
every agent alone, by A* over (cell, time) under its constraints, and the cheapest node whose
paths do not conflict is optimal. A node's first conflict (earliest in time) splits it in two,
one constraint for each agent involved. Only small instances finish: the number of nodes can
grow exponentially with the conflicts, so the search stops at a node limit or a time limit.

An agent's cost is the time it last arrives at its goal, so the low level ends a path only
where no later constraint forbids the goal.

On an 8-connected problem two agents taking the two diagonals of one 2x2 block in one step
conflict too. Such a crossing splits like a swap: each child forbids one of the two steps to
its agent ("may not move u -> v arriving at t"). Every valid plan leaves out at least one of
the two steps, so it obeys one child's constraints: no solution is lost and CBS stays optimal.
"""

from __future__ import annotations

import heapq
import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.mapf.problem import UNREACHABLE, MapfProblem, arrival_time, diagonal_corners

MAX_NODES = 100_000
"""High-level nodes generated before the search gives up."""

Path = tuple[int, ...]
# ("vertex", cell, time) or ("edge", from cell, to cell, arrival time), per agent
Constraint = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CbsOutcome:
    """What the search found.

    Attributes:
        paths: one per agent, all ending at their goals; empty when not solved.
        nodes: high-level nodes generated.
    """

    paths: tuple[Path, ...]
    nodes: int


def first_conflict(
    paths: Sequence[Path], width: int
) -> tuple[int, int, Constraint, Constraint] | None:
    """The earliest conflict, as two agents and the constraint that forbids it to each.

    Paths (flat cells of a grid `width` columns wide) shorter than the longest are read as
    waiting at their last cell. A vertex conflict at ``(v, t)`` gives both agents ``(v, t)``;
    a swap ``u <-> v`` arriving at ``t`` gives ``(u, v, t)`` to the one moving ``u -> v`` and
    ``(v, u, t)`` to the other; a crossing of diagonal steps ``u -> v`` and ``w -> x``
    arriving at ``t`` gives ``(u, v, t)`` to the one and ``(w, x, t)`` to the other.

    >>> first_conflict([(0, 1, 2), (2, 1, 0)], 3)
    (0, 1, (1, 1), (1, 1))
    >>> first_conflict([(0, 1), (1, 0)], 2)
    (0, 1, (0, 1, 1), (1, 0, 1))
    >>> first_conflict([(0, 3), (1, 2)], 2)
    (0, 1, (0, 3, 1), (1, 2, 1))
    """
    horizon = max((len(path) for path in paths), default=0)
    for t in range(horizon):
        seen: dict[int, int] = {}
        for agent, path in enumerate(paths):
            cell = path[min(t, len(path) - 1)]
            if cell in seen:
                return seen[cell], agent, (cell, t), (cell, t)
            seen[cell] = agent
        if t == 0:
            continue
        moves: dict[tuple[int, int], int] = {}
        for agent, path in enumerate(paths):
            before, after = path[min(t - 1, len(path) - 1)], path[min(t, len(path) - 1)]
            if before == after:
                continue
            other = moves.get((after, before))
            if other is not None:
                return other, agent, (after, before, t), (before, after, t)
            corners = diagonal_corners(before, after, width)
            for step in () if corners is None else (corners, corners[::-1]):
                other = moves.get(step)
                if other is not None:
                    return other, agent, (*step, t), (before, after, t)
            moves[(before, after)] = agent
    return None


def plan_alone(
    problem: MapfProblem,
    agent: int,
    table: Sequence[int],
    constraints: frozenset[Constraint],
    deadline: float,
) -> Path | None:
    """A* over (cell, time): `agent`'s cheapest path obeying `constraints`, None if none.

    The path ends at the goal at a time after which no constraint forbids the goal.

    >>> problem = MapfProblem.from_cells(np.ones((1, 3), bool), [(0, 0)], [(0, 2)])
    >>> plan_alone(problem, 0, [2, 1, 0], frozenset({(1, 1)}), deadline=float("inf"))
    (0, 0, 1, 2)
    """
    start, goal = problem.starts[agent], problem.goals[agent]
    goal_blocked_until = max(
        (c[1] for c in constraints if len(c) == 2 and c[0] == goal), default=-1
    )
    last_constraint = max((c[-1] for c in constraints), default=0)
    horizon = last_constraint + int(problem.walkable.sum()) + 1
    if table[start] >= UNREACHABLE:
        return None
    tie = itertools.count()
    # (f, -t, tie, cell, t): deeper first among equal f, so paths complete sooner
    frontier = [(table[start], 0, next(tie), start, 0)]
    came_from: dict[tuple[int, int], tuple[int, int]] = {}
    closed: set[tuple[int, int]] = set()
    while frontier:
        if time.perf_counter() > deadline:
            return None
        _, _, _, current, t = heapq.heappop(frontier)
        if (current, t) in closed:
            continue
        closed.add((current, t))
        if current == goal and t > goal_blocked_until:
            return _walk_back(came_from, (current, t))
        if t >= horizon:
            continue
        for cell in [*problem.neighbours(current), current]:
            state = (cell, t + 1)
            if state in closed or (cell, t + 1) in constraints:
                continue
            if (current, cell, t + 1) in constraints:
                continue
            if state not in came_from:
                came_from[state] = (current, t)
                heapq.heappush(frontier, (t + 1 + table[cell], -(t + 1), next(tie), cell, t + 1))
    return None


def _walk_back(came_from: dict[tuple[int, int], tuple[int, int]], end: tuple[int, int]) -> Path:
    cells = [end[0]]
    state = end
    while state in came_from:
        state = came_from[state]
        cells.append(state[0])
    return tuple(reversed(cells))


def cbs(
    problem: MapfProblem,
    tables: NDArray[np.int32],
    *,
    time_limit_s: float,
    max_nodes: int = MAX_NODES,
) -> CbsOutcome:
    """Search for a plan of least sum of costs; empty `paths` if none within the limits.

    >>> from sim.mapf.problem import distance_tables
    >>> problem = MapfProblem.from_cells(np.ones((2, 2), bool), [(0, 0), (0, 1)], [(0, 1), (1, 1)])
    >>> cbs(problem, distance_tables(problem), time_limit_s=5.0).paths
    ((0, 1), (1, 3))
    """
    deadline = time.perf_counter() + time_limit_s
    rows = [list(map(int, row)) for row in tables]
    no_constraints: list[frozenset[Constraint]] = [frozenset()] * problem.agents
    paths: list[Path] = []
    for agent in range(problem.agents):
        path = plan_alone(problem, agent, rows[agent], no_constraints[agent], deadline)
        if path is None:
            return CbsOutcome((), 1)
        paths.append(path)
    tie = itertools.count()
    root = (_cost(problem, paths), next(tie), no_constraints, paths)
    frontier = [root]
    nodes = 1
    while frontier and nodes < max_nodes and time.perf_counter() <= deadline:
        _, _, constraints, paths = heapq.heappop(frontier)
        conflict = first_conflict(paths, problem.width)
        if conflict is None:
            return CbsOutcome(tuple(paths), nodes)
        first, second, for_first, for_second = conflict
        for agent, constraint in ((first, for_first), (second, for_second)):
            child_constraints = list(constraints)
            child_constraints[agent] = constraints[agent] | {constraint}
            path = plan_alone(problem, agent, rows[agent], child_constraints[agent], deadline)
            nodes += 1
            if path is None:
                continue
            child_paths = list(paths)
            child_paths[agent] = path
            cost = _cost(problem, child_paths)
            heapq.heappush(frontier, (cost, next(tie), child_constraints, child_paths))
    return CbsOutcome((), nodes)


def _cost(problem: MapfProblem, paths: Sequence[Path]) -> int:
    return sum(arrival_time(path, goal) for path, goal in zip(paths, problem.goals, strict=True))
