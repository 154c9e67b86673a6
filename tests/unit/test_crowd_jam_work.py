"""A jam's prioritized planning stays within its counted work (`sim.crowd.jams.prioritized`)."""

from __future__ import annotations

import heapq
from typing import Any

import numpy as np

from sim.crowd.jams import prioritized
from sim.crowd.jams.prioritized import Work, agent_orders, prioritized_paths
from sim.mapf import MapfProblem, distance_tables


class _CountedHeap:
    """`heapq` with its pops counted: one a state a space-time search expands."""

    pops = 0
    heappush = staticmethod(heapq.heappush)

    @classmethod
    def heappop(cls, heap: list[Any]) -> Any:
        cls.pops += 1
        return heapq.heappop(heap)


def _dense_jam_without_a_way() -> tuple[MapfProblem, list[int]]:
    """A 12 x 12 room packed with 30 agents of four groups, and a dead end no order solves.

    30 agents stand in the room's middle, each bound for the opposite side; off the room runs
    a one-cell dead end 5 cells long, with one agent at its far end bound for its mouth and
    one at its mouth bound for its far end: they cannot pass in it, so every order's search
    for the second of them explores the whole window at every step of its horizon.
    """
    walkable = np.zeros((12, 18), dtype=bool)
    walkable[:, :12] = True
    walkable[5, 12:17] = True
    starts: list[tuple[int, int]] = []
    goals: list[tuple[int, int]] = []
    for index in range(30):
        row, col = 3 + index // 6, 3 + index % 6
        starts.append((row, col))
        # Odd and even agents stand in columns of opposite parity: their goals never meet.
        goals.append((11 - row, 11 - col) if index % 2 else (row, 11 - col))
    starts += [(5, 16), (5, 12)]
    goals += [(5, 12), (5, 16)]
    problem = MapfProblem.from_cells(walkable, starts, goals)
    groups = [index % 4 for index in range(30)] + [4, 5]
    return problem, groups


def test_a_big_dense_jam_without_a_way_stays_within_its_counted_work(monkeypatch) -> None:
    problem, groups = _dense_jam_without_a_way()
    monkeypatch.setattr(prioritized, "heapq", _CountedHeap)
    _CountedHeap.pops = 0
    tables = distance_tables(problem)
    free = int(problem.walkable.sum())
    work = Work.for_window(free, problem.agents)
    budget = work.left
    plans = [
        prioritized_paths(problem, tables, order, work)
        for order in agent_orders(problem, tables, groups)
    ]
    assert len(plans) == 7  # by distance, and each of the six groups first
    assert not any(plans), "the dead end has no way, in any order"
    # Unbounded, a failed search may expand free cells x (2 x free + agents) states (49,170
    # here), on each of 9 restarts of 7 orders: the first alone took 225,532, the budget is 114,432.
    assert 0 < _CountedHeap.pops <= budget
    assert work.left >= 0


def test_one_search_stops_at_its_share_of_the_work(monkeypatch) -> None:
    problem, groups = _dense_jam_without_a_way()
    monkeypatch.setattr(prioritized, "heapq", _CountedHeap)
    _CountedHeap.pops = 0
    tables = distance_tables(problem)
    free = int(problem.walkable.sum())
    per_search = prioritized.SEARCH_WORK_PER_CELL * free
    work = Work(left=10**9, per_search=per_search)
    order = agent_orders(problem, tables, groups)[0]
    assert prioritized_paths(problem, tables, order, work) == ()
    searches = (prioritized.RESTARTS + 1) * problem.agents
    assert _CountedHeap.pops <= searches * per_search


def test_a_jam_whose_least_work_exceeds_what_is_left_is_not_searched(monkeypatch) -> None:
    problem, groups = _dense_jam_without_a_way()
    monkeypatch.setattr(prioritized, "heapq", _CountedHeap)
    _CountedHeap.pops = 0
    tables = distance_tables(problem)
    order = agent_orders(problem, tables, groups)[0]
    assert (
        prioritized_paths(problem, tables, order, Work(left=problem.agents, per_search=100)) == ()
    )
    assert _CountedHeap.pops == 0
