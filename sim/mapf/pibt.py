"""PIBT: Priority Inheritance with Backtracking, one step of all agents at a time.

Okumura, Machida, Défago and Tamura (2022), "Priority inheritance with backtracking for
iterative multi-agent path finding". Agents choose their next cell in priority order, each
taking the free neighbour closest to its goal; an agent that wants a cell another agent stands
on lends it its priority, and that agent must move away first (or the chooser tries its next
cell). In a corridor, where pushing would only drive the other agent back the way it must
not go, the two swap instead: one backs off to the nearest junction, pulling the other after it
(Okumura 2024, "Engineering LaCAM*"). One step never fails; whether the steps ever bring every
agent home is not promised, which is why `lacam` wraps this generator in a complete search.

`Stepper.step` is the configuration generator LaCAM calls, with some agents' next cells fixed
by constraints. On an 8-connected problem a diagonal step is refused, like a swap, when another
agent already takes the other diagonal of the same 2x2 block. This module is the readable
reference; ``_mapf.c`` runs the same steps with the same random draws (`SplitMix64`), so both
give the same plan for the same seed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from sim.mapf.problem import MapfProblem, diagonal_corners, paths_from_configs
from sim.mapf.rng import SplitMix64

NOBODY = -1
MAX_STEPS_PER_CELL = 4
"""One-shot PIBT gives up after this many steps per walkable cell: it is not complete."""


def initial_priorities(problem: MapfProblem, tables: NDArray[np.int32]) -> list[float]:
    """Agents far from their goals go first; the fractions only break ties (as in LaCAM).

    >>> problem = MapfProblem.from_cells(np.ones((1, 4), bool), [(0, 0), (0, 3)], [(0, 1), (0, 0)])
    >>> from sim.mapf.problem import distance_tables
    >>> initial_priorities(problem, distance_tables(problem))
    [0.5, 1.5]
    """
    agents = problem.agents
    return [int(tables[i, start]) / agents for i, start in enumerate(problem.starts)]


def next_priorities(
    priorities: Sequence[float], config: Sequence[int], goals: Sequence[int]
) -> list[float]:
    """An agent away from its goal gains 1; one at its goal drops back to its tie-breaker.

    >>> next_priorities([2.5, 1.5], [1, 2], [1, 0])
    [0.5, 2.5]
    """
    return [
        p + 1.0 if cell != goal else p - math.floor(p)
        for p, cell, goal in zip(priorities, config, goals, strict=True)
    ]


def priority_order(priorities: Sequence[float]) -> list[int]:
    """Agents by priority, highest first; equal priorities by index.

    >>> priority_order([0.5, 2.0, 0.5])
    [1, 0, 2]
    """
    return sorted(range(len(priorities)), key=lambda agent: (-priorities[agent], agent))


class Stepper:
    """Plans one step of every agent with PIBT; holds the scratch tables between steps."""

    def __init__(self, problem: MapfProblem, tables: NDArray[np.int32], rng: SplitMix64) -> None:
        self._neighbours = [problem.neighbours(cell) for cell in range(problem.walkable.size)]
        self._tables: list[list[int]] = tables.tolist()
        self._goals = problem.goals
        self._width = problem.width
        self._diagonal = problem.connectivity == 8
        self._rng = rng
        self._occupied_now = [NOBODY] * problem.walkable.size
        self._occupied_next = [NOBODY] * problem.walkable.size
        self._came_from: Sequence[int] = ()
        self._going_to: list[int] = []

    def moves(self, cell: int) -> list[int]:
        """The cells an agent at `cell` may take next: its neighbours, then `cell` (wait)."""
        return [*self._neighbours[cell], cell]

    def step(
        self,
        config: Sequence[int],
        order: Sequence[int],
        constraints: Sequence[tuple[int, int]],
    ) -> list[int] | None:
        """Return the next configuration after `config`, or None if `constraints` clash.

        Args:
            config: every agent's cell now.
            order: the agents, highest priority first.
            constraints: ``(agent, cell)`` pairs fixing where those agents go next; two of
                them on one cell, or swapping two agents, is a clash.
        """
        self._begin(config)
        try:
            for agent, cell in constraints:
                if self._occupied_next[cell] != NOBODY:
                    return None
                mover = self._occupied_next[config[agent]]
                if mover != NOBODY and mover == self._occupied_now[cell]:
                    return None  # the two would swap
                if self._crosses(config[agent], cell):
                    return None
                self._going_to[agent] = cell
                self._occupied_next[cell] = agent
            for agent in order:
                if self._going_to[agent] == NOBODY and not self._plan(agent):
                    return None  # a constraint took its cell and it has nowhere else to go
            return list(self._going_to)
        finally:
            self._end(config)

    def free_step(self, config: Sequence[int], order: Sequence[int]) -> list[int]:
        """Return the next configuration after `config`, every agent free to choose."""
        self._begin(config)
        try:
            for agent in order:
                if self._going_to[agent] == NOBODY:
                    self._plan(agent)  # never fails: with nothing fixed, waiting stays open
            return list(self._going_to)
        finally:
            self._end(config)

    def _begin(self, config: Sequence[int]) -> None:
        self._came_from = config
        self._going_to = [NOBODY] * len(config)
        for agent, cell in enumerate(config):
            self._occupied_now[cell] = agent

    def _end(self, config: Sequence[int]) -> None:
        """Clear the scratch tables: only the cells of this step were written."""
        for cell in config:
            self._occupied_now[cell] = NOBODY
        for cell in self._going_to:
            if cell != NOBODY:
                self._occupied_next[cell] = NOBODY

    def _plan(self, agent: int) -> bool:
        """Choose `agent`'s next cell, pushing lower agents out of the way; False if it waits."""
        here = self._came_from[agent]
        candidates = self.moves(here)
        self._rng.shuffle(candidates)
        table = self._tables[agent]
        # Closest to the goal first; among equals a cell nobody stands on (stable: the shuffle
        # breaks the remaining ties).
        candidates.sort(key=lambda cell: (table[cell], self._occupied_now[cell] != NOBODY))
        partner = self._swap_partner(agent, here, candidates[0])
        if partner != NOBODY:
            candidates.reverse()  # back away from the partner, pulling it along
        for rank, cell in enumerate(candidates):
            if self._occupied_next[cell] != NOBODY:
                continue
            other = self._occupied_now[cell]
            if other != NOBODY and self._going_to[other] == here:
                continue  # the two would swap
            if self._crosses(here, cell):
                continue
            self._occupied_next[cell] = agent
            self._going_to[agent] = cell
            pushed = other not in (NOBODY, agent) and self._going_to[other] == NOBODY
            if pushed and not self._plan(other):
                continue  # it could not make way: try the next cell
            if (
                rank == 0
                and partner != NOBODY
                and self._going_to[partner] == NOBODY
                and self._occupied_next[here] == NOBODY
                and not self._crosses(self._came_from[partner], here)
            ):
                self._occupied_next[here] = partner
                self._going_to[partner] = here
            return True
        self._occupied_next[here] = agent
        self._going_to[agent] = here
        return False

    def _crosses(self, before: int, after: int) -> bool:
        """Whether the step `before` -> `after` crosses a diagonal step already chosen."""
        if not self._diagonal:
            return False
        corners = diagonal_corners(before, after, self._width)
        if corners is None:
            return False
        for start, end in (corners, corners[::-1]):
            other = self._occupied_now[start]
            if other != NOBODY and self._going_to[other] == end:
                return True
        return False

    # The swap of "Engineering LaCAM*" (Okumura 2024): in a corridor two agents heading for
    # each other's side cannot pass by pushing; instead one backs off to a junction, pulling
    # the other after it, until they can pass there.

    def _swap_partner(self, agent: int, here: int, best: int) -> int:
        """The agent `agent` should pull instead of push this step, or NOBODY."""
        if best == here:
            return NOBODY
        other = self._occupied_now[best]
        if (
            other != NOBODY
            and self._going_to[other] == NOBODY
            and self._swap_required(agent, other, here, best)
            and self._swap_possible(best, here)
        ):
            return other
        # An agent behind, bound the other way through `best`: pull it past instead.
        for cell in self._neighbours[here]:
            behind = self._occupied_now[cell]
            if (
                behind != NOBODY
                and best != cell
                and self._swap_required(behind, agent, here, best)
                and self._swap_possible(best, here)
            ):
                return behind
        return NOBODY

    def _corridor_step(self, behind: int, ahead: int) -> tuple[int, int]:
        """Ways on from `ahead` not back to `behind` nor into a dead end someone rests at.

        Returns the count of such neighbours and the last of them (NOBODY if none).
        """
        count, onward = 0, NOBODY
        for cell in self._neighbours[ahead]:
            resting = self._occupied_now[cell]
            if cell == behind or (
                len(self._neighbours[cell]) == 1
                and resting != NOBODY
                and self._goals[resting] == cell
            ):
                continue
            count, onward = count + 1, cell
        return count, onward

    def _swap_required(self, pusher: int, puller: int, at_pusher: int, at_puller: int) -> bool:
        """Whether the two must pass each other along the corridor ahead of the pusher."""
        pushing, pulling = self._tables[pusher], self._tables[puller]
        while pushing[at_puller] < pushing[at_pusher]:
            count, onward = self._corridor_step(at_pusher, at_puller)
            if count >= 2:
                return False  # a junction: they can pass there without a swap
            if count == 0:
                break
            at_pusher, at_puller = at_puller, onward
        return pulling[at_pusher] < pulling[at_puller] and (
            pushing[at_pusher] == 0 or pushing[at_puller] < pushing[at_pusher]
        )

    def _swap_possible(self, at_pusher: int, at_puller: int) -> bool:
        """Whether backing off from `at_puller` away from `at_pusher` reaches a junction."""
        origin = at_pusher
        while at_puller != origin:
            count, onward = self._corridor_step(at_pusher, at_puller)
            if count >= 2:
                return True
            if count == 0:
                return False
            at_pusher, at_puller = at_puller, onward
        return False


def pibt_configs(
    problem: MapfProblem, tables: NDArray[np.int32], *, time_limit_s: float, seed: int
) -> list[list[int]] | None:
    """Step every agent with PIBT until all stand at their goals; None if that never came.

    It gives up when `time_limit_s` has passed or after `MAX_STEPS_PER_CELL` steps per
    walkable cell. The configurations are returned from time 0 on.
    """
    deadline = time.perf_counter() + time_limit_s
    stepper = Stepper(problem, tables, SplitMix64(seed))
    goals = list(problem.goals)
    config = list(problem.starts)
    configs = [config]
    priorities = initial_priorities(problem, tables)
    max_steps = MAX_STEPS_PER_CELL * int(problem.walkable.sum())
    while config != goals:
        if len(configs) > max_steps or time.perf_counter() > deadline:
            return None
        config = stepper.free_step(config, priority_order(priorities))
        configs.append(config)
        priorities = next_priorities(priorities, config, goals)
    return configs


def pibt_paths(
    problem: MapfProblem, tables: NDArray[np.int32], *, time_limit_s: float, seed: int
) -> tuple[tuple[int, ...], ...] | None:
    """Per-agent paths of `pibt_configs`, or None.

    >>> from sim.mapf.problem import distance_tables
    >>> problem = MapfProblem.from_cells(np.ones((1, 3), bool), [(0, 0)], [(0, 2)])
    >>> pibt_paths(problem, distance_tables(problem), time_limit_s=1.0, seed=0)
    ((0, 1, 2),)
    """
    configs = pibt_configs(problem, tables, time_limit_s=time_limit_s, seed=seed)
    return None if configs is None else paths_from_configs(configs)
