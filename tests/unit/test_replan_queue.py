"""ReplanQueue: every request served, nearest first, each frame's work bounded by its budget.

The budget is checked with a clock that counts expansions, not milliseconds: each search
advances it by the cells it expanded, so the bound is exact and the test never times anything.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.engine.replan_queue import ReplanQueue
from sim.navigation import find_path
from sim.navigation.maps.generators import generate_layout


class ExpansionClock:
    """A clock whose second is one expansion: `budget_ms` 1000 is one expansion."""

    def __init__(self) -> None:
        self.expanded = 0

    def __call__(self) -> float:
        return float(self.expanded)


def test_nearest_first_and_ties_in_the_order_asked() -> None:
    queue: ReplanQueue[str] = ReplanQueue(math.inf)
    for key, priority in (("c", 3.0), ("a", 1.0), ("b", 1.0), ("d", 0.5)):
        queue.ask(key, priority)
    assert queue.serve(lambda key: None) == ["d", "a", "b", "c"]
    assert len(queue) == 0


def test_asked_again_nearer_moves_up_and_farther_keeps_its_place() -> None:
    queue: ReplanQueue[str] = ReplanQueue(math.inf)
    queue.ask("a", 1.0)
    queue.ask("b", 2.0)
    queue.ask("b", 0.5)
    queue.ask("a", 9.0)
    assert queue.serve(lambda key: None) == ["b", "a"]


def test_a_cancelled_request_is_not_served() -> None:
    queue: ReplanQueue[str] = ReplanQueue(math.inf)
    queue.ask("a", 1.0)
    queue.ask("b", 2.0)
    queue.cancel("a")
    assert "a" not in queue
    assert queue.serve(lambda key: None) == ["b"]


def test_one_request_a_frame_even_when_it_costs_more_than_the_budget() -> None:
    clock = ExpansionClock()
    queue: ReplanQueue[int] = ReplanQueue(1.0, clock=clock)  # a thousandth of an expansion

    def work(_key: int) -> None:
        clock.expanded += 50

    for key in range(3):
        queue.ask(key, float(key))
    assert [queue.serve(work) for _ in range(4)] == [[0], [1], [2], []]


def test_asked_again_while_served_waits_for_the_next_frame() -> None:
    queue: ReplanQueue[str] = ReplanQueue(math.inf)
    queue.ask("a", 1.0)
    assert queue.serve(lambda key: queue.ask(key, 1.0)) == ["a"]
    assert queue.serve(lambda key: None) == ["a"]


@pytest.mark.parametrize("budget", [200, 1000, 5000], ids=lambda b: f"{b}expansions")
def test_a_burst_is_served_whole_nearest_first_within_the_expansion_budget(budget: int) -> None:
    walkable = generate_layout("rooms", 96, 96, seed=3, room=10, door=3)
    rng = np.random.default_rng(budget)
    free = np.flatnonzero(walkable)
    starts = [divmod(int(c), 96) for c in rng.choice(free, 120, replace=False)]
    goals = [divmod(int(c), 96) for c in rng.choice(free, 120, replace=False)]
    clock = ExpansionClock()
    queue: ReplanQueue[int] = ReplanQueue(budget * 1000.0, clock=clock)
    for index in range(120):
        queue.ask(index, math.dist(starts[index], goals[index]))
    costs: dict[int, int] = {}

    def plan(index: int) -> None:
        result = find_path(walkable, starts[index], goals[index], algorithm="astar")
        costs[index] = result.expanded
        clock.expanded += result.expanded

    order: list[int] = []
    frames = 0
    while queue:
        before = clock.expanded
        served = queue.serve(plan)
        frames += 1
        spent = clock.expanded - before
        # Past the budget only by the last search started, never by a second one.
        assert spent - costs[served[-1]] < budget or len(served) == 1
        order.extend(served)
    assert sorted(order) == list(range(120))
    distances = [math.dist(starts[i], goals[i]) for i in order]
    assert distances == sorted(distances)
    assert frames > 1


def test_a_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="budget_ms must be a number > 0"):
        ReplanQueue(0.0)
