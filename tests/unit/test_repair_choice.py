"""`RepairChoice`: D* Lite repairs while they cost less than a fresh search, exact either way."""

from __future__ import annotations

import numpy as np
import pytest

from sim.navigation import Box, box_footprint, find_path
from sim.navigation.carving import Carver
from sim.navigation.diagonal import DiagonalRule
from sim.navigation.query import SearchSettings
from sim.navigation.searches.repair_choice import PROBE_AFTER, RepairChoice


def test_every_plan_costs_what_a_fresh_search_costs_under_moving_boxes():
    rng = np.random.default_rng(3)
    walkable = np.ones((48, 48), dtype=bool)
    walkable[16, 4:44] = False
    walkable[32, 4:44] = False
    carver = Carver(walkable)
    boxes = [(float(rng.uniform(4, 44)), float(rng.uniform(4, 44))) for _ in range(12)]
    prints = [box_footprint(Box(x, y, 3.0, 2.0, 0.0), walkable.shape) for x, y in boxes]
    for footprint in prints:
        carver.add(footprint)
    planner = RepairChoice()
    goal, found = (46, 46), 0
    for frame in range(120):
        for index, (x, y) in enumerate(boxes):
            moved = box_footprint(
                Box(x + 6.0 * np.sin(frame / 7.0 + index), y, 3.0, 2.0, 0.0), walkable.shape
            )
            carver.move(prints[index], moved)
            prints[index] = moved
        start = (int(rng.integers(0, 8)), int(rng.integers(0, 48)))
        result = planner.plan(carver.walkable, start, goal)
        fresh = find_path(carver.walkable.copy(), start, goal, algorithm="astar")
        assert result.found == fresh.found
        if fresh.found:
            found += 1
            assert result.cost == pytest.approx(fresh.cost, abs=1e-9)
    assert found > 60
    assert planner.fresh_plans > 0
    assert planner.tree_plans > 0
    assert planner.repairs > 0


def test_dear_repairs_near_the_goal_give_way_to_fresh_searches_with_growing_waits():
    walkable = np.ones((64, 64), dtype=bool)
    planner = RepairChoice()
    choices = []
    for index in range(60):
        # A wall beside the goal, open on even plans, closed on odd ones: closing it raises
        # every cell in its shadow, which D* Lite re-settles (dearer than jump point search's
        # few jumps across the open grid); opening it again is cheap.
        walkable[30:34, 29] = index % 2 == 0  # walkable: the wall open
        planner.plan(walkable, (0, 0), (31, 31))
        choices.append("r" if planner.last_repaired else "f" if planner.last_fresh else "t")
    # A dear repair doubles the wait for the next probe; a cheap one resets it, then the
    # dear one after it doubles it from there.
    wait = PROBE_AFTER
    expected = "f" * wait + "tr" + "f" * 2 * wait + "rr" + "f" * 2 * wait + "rr" + "f" * 2 * wait
    assert "".join(choices) == expected[:60]
    assert (planner.fresh_plans, planner.tree_plans, planner.repairs) == (
        expected[:60].count("f"),
        1,
        expected[:60].count("r"),
    )


def test_cheap_repairs_far_from_the_route_keep_d_star_lite():
    walkable = np.ones((64, 64), dtype=bool)
    planner = RepairChoice(SearchSettings(rule=DiagonalRule.NEVER))  # fresh: 4-connected A*
    for index in range(30):
        walkable[63, 0] = index % 2 == 0  # a far corner, off every shortest route
        result = planner.plan(walkable, (0, 63), (40, 30))
        assert result.cost == find_path(walkable, (0, 63), (40, 30), diagonal=False).cost
    assert (planner.fresh_plans, planner.tree_plans, planner.repairs) == (
        PROBE_AFTER,
        1,
        30 - PROBE_AFTER - 1,
    )


def test_a_new_goal_starts_the_rule_over():
    walkable = np.ones((16, 16), dtype=bool)
    planner = RepairChoice()
    for _ in range(PROBE_AFTER + 2):
        planner.plan(walkable, (0, 0), (15, 15))
    assert planner.last_repaired
    planner.plan(walkable, (0, 0), (15, 0))
    assert planner.last_fresh
    assert not planner.last_repaired
