"""A jam's joint plan by priorities: agents planned one after another round those before them.

LaCAM* (`sim.crowd.jams.local.joint_paths`) minimises the sum of the agents' costs and, on a
budget of work, leaves a doorway swap of 24 agents with a makespan of 37-42 steps where about
30 do: its first plan meets both groups in the door and sorts them out there. A jam is over
only when its last agent is through, so the makespan is what the crowd waits for.

Prioritized planning (Silver's cooperative A*, 2005) gives a stream instead: each agent in
turn finds its shortest way in space and time (a move or a wait a step, 4-connected) that
keeps clear of the cells the agents before it hold at each step, never trades cells with one
of them, and ends on its goal once no earlier agent passes there again; it then holds its
goal for good. An order that puts one group first lets it file through the door one a step
while the other waits aside, then the other files through: the door's capacity, one agent a
step, with one change of direction. The orders tried (`ORDERS`) are the members by their
distance to their goals, and the same grouped by goal, each group first in turn; an order in
which some agent finds no way (an earlier one runs over its start and it cannot step aside
in time) is tried again with that agent first, a few times; then it gives nothing, and
LaCAM*'s plan stands. Deterministic: no randomness, ties broken by
cell and agent order.

The work is counted (`Work`), never timed: a space-time search may expand at most
`SEARCH_WORK_PER_CELL` states per free cell of the window, and all the orders of a jam
together `JAM_WORK_PER_CELL` per free cell and member. Without a bound, an agent that cannot
reach its goal explores every cell at every step of the horizon (cells x 2 cells), again on
each restart and order: a window of 128 cells and 17 agents in the torture suite took 580,000
expansions, and the jams of a dense crowd of 16 goal groups took most of its frame time. A
search over its bound finds no way (the order restarts with that agent first); an order whose
least work (each agent's distance to its goal) exceeds what is left is skipped, and once the
jam's work is spent the remaining orders give nothing and LaCAM*'s plan stands.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from sim.mapf import MapfProblem
from sim.mapf.problem import UNREACHABLE

HORIZON_PER_CELL = 2
"""A way may take at most this many steps per free cell of the window (then none is found)."""
RESTARTS = 8
"""Times an order is tried again with an agent that found no way put first."""
SEARCH_WORK_PER_CELL = 32
"""States one agent's space-time search may expand, per free cell of the window.

The doorway swaps of the torture suite need at most 16.4 a cell for a way found (1,593 of
97 cells), about half of it."""
JAM_WORK_PER_CELL = 24
"""States all of a jam's orders may expand together, per free cell of the window and member.

A doorway swap of 12 or 13 a side spends 11.5 to 12.3 (28,700 over its three orders)."""

Paths = tuple[tuple[int, ...], ...]


class Work:
    """The expansions a jam's prioritized planning has left: counted work, never time.

    >>> work = Work.for_window(free_cells=10, agents=3)
    >>> work.left, work.per_search
    (720, 320)
    """

    __slots__ = ("left", "per_search")

    def __init__(self, left: int, per_search: int) -> None:
        self.left = left
        self.per_search = per_search

    @classmethod
    def for_window(cls, free_cells: int, agents: int) -> Work:
        """The budget of a jam of `agents` members over `free_cells` free cells."""
        return cls(JAM_WORK_PER_CELL * free_cells * agents, SEARCH_WORK_PER_CELL * free_cells)

    @property
    def spent(self) -> bool:
        """Whether nothing is left."""
        return self.left <= 0


def agent_orders(
    problem: MapfProblem, tables: NDArray[np.int32], groups: Sequence[int]
) -> list[list[int]]:
    """The priority orders to try: by distance to goal, and grouped, each group first in turn.

    `groups` is each agent's group (the goal it chases beyond the window). Within a group (or
    all together) agents nearer their group's goals go first: in a queue the front agent is
    the nearest, and it must move for the others to follow.

    >>> from sim.mapf import distance_tables
    >>> problem = MapfProblem(np.ones((1, 5), bool), (0, 1, 4), (3, 2, 1))
    >>> agent_orders(problem, distance_tables(problem), [7, 7, 9])
    [[1, 0, 2], [1, 0, 2], [2, 1, 0]]
    """
    # Distance to the nearest goal of its group: its place in the group's queue, whichever
    # of the group's goals it was given.
    members: dict[int, list[int]] = {}
    for agent in range(problem.agents):
        members.setdefault(int(groups[agent]), []).append(agent)
    near = [
        min(int(tables[other][problem.starts[agent]]) for other in members[int(groups[agent])])
        for agent in range(problem.agents)
    ]
    by_distance = sorted(range(problem.agents), key=lambda agent: (near[agent], agent))
    grouped: dict[int, list[int]] = {}
    for agent in by_distance:
        grouped.setdefault(int(groups[agent]), []).append(agent)
    orders = [by_distance]
    if len(grouped) > 1:
        keys = sorted(grouped)
        for first in keys:
            ahead = [first, *(key for key in keys if key != first)]
            orders.append([agent for key in ahead for agent in grouped[key]])
    return orders


def prioritized_paths(
    problem: MapfProblem,
    tables: NDArray[np.int32],
    order: Sequence[int],
    work: Work | None = None,
) -> Paths:
    """Every agent's way, planned in `order` round those before it; () when none is found.

    An agent that finds no way (one before it runs over its start, and it is boxed in, or
    its search went over `work.per_search`) goes first and all are planned again, up to
    `RESTARTS` times. Each expansion is taken from `work` (default: the window's own budget,
    `Work.for_window`); when it is spent, or the order's least work (every agent's distance
    to its goal, a step an expansion) exceeds what is left, it gives (). The paths are
    ``[agent][t]`` flat cells, all as long as the longest (agents wait on their goals), in
    the problem's agent order.
    """
    free = int(problem.walkable.sum())
    if work is None:
        work = Work.for_window(free, problem.agents)
    least = sum(int(tables[agent][problem.starts[agent]]) + 1 for agent in range(problem.agents))
    if least > work.left:
        return ()
    horizon = HORIZON_PER_CELL * free + problem.agents
    neighbours = [problem.neighbours(cell) for cell in range(problem.walkable.size)]
    ranking = list(order)
    for _ in range(RESTARTS + 1):
        ways = _in_turn(problem, tables, ranking, neighbours, horizon, work)
        if work.spent:
            return ()
        if isinstance(ways, int):
            ranking = [ways, *(agent for agent in ranking if agent != ways)]
            continue
        makespan = max(len(way) for way in ways.values())
        return tuple(
            tuple(ways[agent] + [ways[agent][-1]] * (makespan - len(ways[agent])))
            for agent in range(problem.agents)
        )
    return ()


def _in_turn(
    problem: MapfProblem,
    tables: NDArray[np.int32],
    order: Sequence[int],
    neighbours: list[list[int]],
    horizon: int,
    work: Work,
) -> dict[int, list[int]] | int:
    """Each agent's way, planned in `order`; or the first agent that found none."""
    held: dict[tuple[int, int], int] = {}  # (cell, t) -> agent there at step t
    settled: dict[int, int] = {}  # cell -> step from which an agent holds it for good
    ways: dict[int, list[int]] = {}
    for agent in order:
        way = _space_time_search(
            problem.starts[agent],
            problem.goals[agent],
            tables[agent],
            neighbours,
            held,
            settled,
            ways,
            horizon,
            work,
        )
        if way is None:
            return agent
        for t, cell in enumerate(way):
            held[(cell, t)] = agent
        settled[way[-1]] = len(way) - 1
        ways[agent] = way
    return ways


def _space_time_search(
    start: int,
    goal: int,
    distance: NDArray[np.int32],
    neighbours: list[list[int]],
    held: dict[tuple[int, int], int],
    settled: dict[int, int],
    ways: dict[int, list[int]],
    horizon: int,
    work: Work,
) -> list[int] | None:
    """A* over (cell, step) from `start` at step 0 to `goal`, clear of `held` and `settled`.

    None when there is no way within the horizon or within `work.per_search` expansions
    (each taken from `work.left`).
    """
    if int(distance[start]) >= UNREACHABLE:
        return None
    last_held = max((t for (cell, t) in held if cell == goal), default=-1)

    def blocked(cell: int, t: int) -> bool:
        return (cell, t) in held or settled.get(cell, horizon + 1) <= t

    if blocked(start, 0):
        return None
    # (f, -t, turns, cell, cell before): deeper first, then the way with the fewest turns: a
    # follower turning behind a leader lags (`sim.crowd.joint.turn_delays`), holding a step up.
    frontier = [(int(distance[start]), 0, 0, start, start)]
    came_from: dict[tuple[int, int], tuple[int, int]] = {}
    seen = {(start, 0)}
    allowed = min(work.per_search, work.left)
    expanded = 0
    while frontier and expanded < allowed:
        expanded += 1
        _, minus_t, turns, current, before = heapq.heappop(frontier)
        t = -minus_t
        if current == goal and t > last_held:
            work.left -= expanded
            return _way(came_from, (current, t))
        if t >= horizon:
            continue
        for step in (current, *neighbours[current]):
            state = (step, t + 1)
            if state in seen or blocked(step, t + 1) or int(distance[step]) >= UNREACHABLE:
                continue
            # Trading cells with an earlier agent: it comes here as this one goes there.
            other = held.get((current, t + 1))
            if step != current and other is not None and held.get((step, t)) == other:
                continue
            if step != current and _closes_cycle(current, step, t, held, ways):
                continue
            seen.add(state)
            came_from[state] = (current, t)
            bends = turns + int(step - current != current - before and step != current)
            heapq.heappush(frontier, (t + 1 + int(distance[step]), -t - 1, bends, step, current))
    work.left -= expanded
    return None


def _closes_cycle(
    current: int, step: int, t: int, held: dict[tuple[int, int], int], ways: dict[int, list[int]]
) -> bool:
    """Whether moving `current` -> `step` at step `t` closes a ring of earlier agents' moves.

    Each of them enters the cell the next leaves, round a block: discs as wide as a cell's
    half cannot turn round one together (`sim.crowd.joint.rotations`).
    """
    here = current
    for _ in range(len(held)):
        entering = held.get((here, t + 1))
        if entering is None:
            return False
        left = ways[entering][t]
        if left == here:
            return False
        if left == step:
            return True
        here = left
    return False


def _way(came_from: dict[tuple[int, int], tuple[int, int]], end: tuple[int, int]) -> list[int]:
    way = [end[0]]
    state = end
    while state in came_from:
        state = came_from[state]
        way.append(state[0])
    way.reverse()
    return way
