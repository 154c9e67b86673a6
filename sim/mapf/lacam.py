"""LaCAM*: a complete, anytime search over configurations, with PIBT proposing each successor.

Okumura (2023), "LaCAM: Search-based algorithm for quick multi-agent pathfinding" (AAAI) and
"Improving LaCAM for scalable eventually optimal multi-agent pathfinding" (IJCAI). The
high level searches depth first over configurations (every agent's cell at one time). Each
configuration owns a lazily grown tree of constraints: "agent i goes to cell v next", one more
agent fixed per level, breadth first. Visiting a configuration takes its next constraint,
grows the tree one level under it, and asks PIBT (`Stepper.step`) for a successor that obeys
it; because the tree eventually lists every combination of moves, every successor is reached
in the end and the search is complete.

LaCAM* goes on after the first solution: the configurations and the moves found between them
form a graph whose edges cost the number of agents not resting at their goals (the *sum of
loss*), costs are repaired Dijkstra-fashion whenever a known configuration is reached again,
and configurations whose cost plus the single-agent distances cannot beat the best plan are
dropped. When nothing is left, the plan is optimal for the sum of loss. The sum of loss never
exceeds the sum of costs (it does not charge an agent for waiting at its goal before leaving
again), so a plan found optimal whose sum of costs equals its sum of loss is optimal for the
sum of costs too: that is what `sim.mapf.solvers.MapfResult.optimal` reports.

With ``first_plan`` the search stops at its first plan instead, as LaCAM (without the star)
does: the time to a first solution that the LaCAM papers report.

This is the readable reference; ``_mapf.c`` runs the same search with the same random draws.
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.mapf.pibt import Stepper, initial_priorities, next_priorities, priority_order
from sim.mapf.problem import MapfProblem
from sim.mapf.rng import SplitMix64

Config = tuple[int, ...]
MAX_NODE_BYTES = 2**30
"""The search stops (not exhausted) once its configurations would take this much memory in C:
each holds a cell, a priority and a place in the order per agent, 16 bytes."""


RESTART_ODDS = 100
"""Once a plan is found, each iteration visits the start again with odds 1 in this (as lacam3
does): depth first, the search would otherwise stay near the end of its first plan, where the
costs are all but settled, and seldom improve the beginning."""


def max_nodes(agents: int) -> int:
    """How many configurations the search keeps at most for `agents` agents.

    >>> max_nodes(400)
    167772
    """
    return max(1, MAX_NODE_BYTES // (16 * max(1, agents)))


@dataclass(frozen=True, slots=True)
class LacamOutcome:
    """What the search found.

    Attributes:
        configs: the best plan as configurations from time 0; empty when none was found.
        exhausted: the search ran out of configurations before the time limit: with `configs`,
            the plan is optimal for the sum of loss; without, the instance has no solution.
            False when it stopped at its first plan.
        nodes: configurations generated.
    """

    configs: tuple[Config, ...]
    exhausted: bool
    nodes: int


class _Constraint:
    """A node of a configuration's constraint tree: the last fixed agent, and the rest above."""

    __slots__ = ("agent", "cell", "depth", "parent")

    def __init__(self, parent: _Constraint | None, agent: int, cell: int) -> None:
        self.parent, self.agent, self.cell = parent, agent, cell
        self.depth: int = 0 if parent is None else parent.depth + 1

    def pairs(self) -> list[tuple[int, int]]:
        """The ``(agent, cell)`` pairs from this node up to the root, the root's excluded."""
        found = []
        node: _Constraint | None = self
        while node is not None and node.depth > 0:
            found.append((node.agent, node.cell))
            node = node.parent
        return found


class _Node:
    """A configuration reached by the search, with its cost and its tree of constraints."""

    __slots__ = ("config", "f", "g", "h", "neighbours", "order", "parent", "priorities", "tree")

    def __init__(
        self,
        config: Config,
        parent: _Node | None,
        g: int,
        h: int,
        priorities: list[float],
    ) -> None:
        self.config, self.parent, self.g, self.h = config, parent, g, h
        self.f = g + h
        self.priorities = priorities
        self.order = priority_order(priorities)
        self.neighbours: list[_Node] = []
        self.tree: deque[_Constraint] = deque([_Constraint(None, -1, -1)])


def edge_cost(before: Sequence[int], after: Sequence[int], goals: Sequence[int]) -> int:
    """Agents not resting at their goals over one step: what a step adds to the sum of loss.

    >>> edge_cost((0, 5), (1, 5), (1, 5))
    1
    """
    return sum(1 for b, a, goal in zip(before, after, goals, strict=True) if not b == a == goal)


def sum_of_loss(configs: Sequence[Sequence[int]], goals: Sequence[int]) -> int:
    """The cost LaCAM* minimises: `edge_cost` summed over the steps of `configs`.

    >>> sum_of_loss([(0,), (1,), (1,), (0,), (1,)], (1,))
    3
    """
    return sum(edge_cost(before, after, goals) for before, after in itertools.pairwise(configs))


def lacam(
    problem: MapfProblem,
    tables: NDArray[np.int32],
    *,
    time_limit_s: float,
    seed: int,
    node_limit: int | None = None,
    first_plan: bool = False,
) -> LacamOutcome:
    """Search with LaCAM* until the search space is exhausted or a limit is reached.

    The limits: `time_limit_s`, and `node_limit` configurations (default `max_nodes`); with
    `first_plan`, the search also stops as soon as it reaches the goals.

    >>> from sim.mapf.problem import distance_tables
    >>> problem = MapfProblem.from_cells(np.ones((1, 3), bool), [(0, 0)], [(0, 2)])
    >>> outcome = lacam(problem, distance_tables(problem), time_limit_s=1.0, seed=0)
    >>> outcome.configs, outcome.exhausted
    (((0,), (1,), (2,)), True)
    """
    deadline = time.perf_counter() + time_limit_s
    rng = SplitMix64(seed)
    stepper = Stepper(problem, tables, rng)
    rows = tables.tolist()
    goals = problem.goals

    def heuristic(config: Config) -> int:
        return sum(row[cell] for row, cell in zip(rows, config, strict=True))

    start = _Node(
        problem.starts, None, 0, heuristic(problem.starts), initial_priorities(problem, tables)
    )
    explored = {start.config: start}
    frontier = [start]
    best: _Node | None = None
    limit = max_nodes(problem.agents) if node_limit is None else node_limit
    while frontier:
        if time.perf_counter() > deadline or len(explored) >= limit:
            return LacamOutcome(_backtrack(best), False, len(explored))
        if best is not None and rng.below(RESTART_ODDS) == 0:
            frontier.append(start)
        node = frontier[-1]
        if best is None and node.config == goals:
            best = node
            if first_plan:
                return LacamOutcome(_backtrack(best), False, len(explored))
        if (best is not None and best.g <= node.f) or not node.tree:
            frontier.pop()
            continue
        constraint = node.tree.popleft()
        if constraint.depth < problem.agents:
            agent = node.order[constraint.depth]
            moves = stepper.moves(node.config[agent])
            rng.shuffle(moves)
            node.tree.extend(_Constraint(constraint, agent, cell) for cell in moves)
        successor = stepper.step(node.config, node.order, constraint.pairs())
        if successor is None:
            continue
        config = tuple(successor)
        known = explored.get(config)
        if known is not None:
            if known not in node.neighbours:
                node.neighbours.append(known)
            if best is None or known.f < best.g:
                frontier.append(known)
            _repair_costs(node, goals, best, frontier)
            continue
        new = _Node(
            config,
            node,
            node.g + edge_cost(node.config, config, goals),
            heuristic(config),
            next_priorities(node.priorities, config, goals),
        )
        node.neighbours.append(new)
        explored[config] = new
        frontier.append(new)
    return LacamOutcome(_backtrack(best), True, len(explored))


def _repair_costs(
    source: _Node, goals: Sequence[int], best: _Node | None, frontier: list[_Node]
) -> None:
    """Lower the costs reachable from `source` after it gained an edge (Dijkstra's relaxation)."""
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for neighbour in node.neighbours:
            g = node.g + edge_cost(node.config, neighbour.config, goals)
            if g < neighbour.g:
                neighbour.g, neighbour.f, neighbour.parent = g, g + neighbour.h, node
                queue.append(neighbour)
                if best is not None and neighbour.f < best.g:
                    frontier.append(neighbour)


def _backtrack(goal: _Node | None) -> tuple[Config, ...]:
    configs = []
    node = goal
    while node is not None:
        configs.append(node.config)
        node = node.parent
    return tuple(reversed(configs))
