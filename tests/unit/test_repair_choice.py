"""`RepairChoice`: D* Lite repairs while they cost less than a fresh search, exact either way."""

from __future__ import annotations

import math

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


def _choices(planner: RepairChoice, plans: int, change, start, goal, *, diagonal=True) -> str:
    """The planner's choice on each plan: f(resh), t(ree built) or r(epair); each exact."""
    walkable = np.ones((64, 64), dtype=bool)
    made = []
    for index in range(plans):
        change(walkable, index)
        result = planner.plan(walkable, start, goal)
        fresh = find_path(walkable, start, goal, diagonal=diagonal)
        assert result.cost == pytest.approx(fresh.cost, abs=1e-9)
        made.append("r" if planner.last_repaired else "f" if planner.last_fresh else "t")
    return "".join(made)


def _rent_paid_plans(planner: RepairChoice) -> int:
    """How many fresh plans pay the first tree's price: the grid's cells (plans priced alike)."""
    return math.ceil(64 * 64 / planner.fresh_price)


def test_dear_repairs_near_the_goal_give_way_to_fresh_searches():
    def toggle(walkable, index):
        # A wall beside the goal, open on even plans, closed on odd ones: closing it raises
        # every cell in its shadow, which D* Lite re-settles (dearer than jump point search's
        # few jumps across the open grid); opening it again is cheap.
        walkable[30:34, 29] = index % 2 == 0

    planner = RepairChoice()
    choices = _choices(planner, 170, toggle, (0, 0), (31, 31))
    rent = choices.index("t")  # the two walls' plans are priced apart: counted in the next test
    # Rent until a tree's price is paid, the tree, then: a cheap repair (the wait starts over),
    # a dear one (the wait doubles), fresh searches until the probe.
    after = ("rr" + "f" * 2 * PROBE_AFTER) * 10
    assert choices == ("f" * rent + "t" + after)[:170]
    assert planner.tree_plans == 1
    assert rent > 2 * PROBE_AFTER
    assert planner.fresh_plans == choices.count("f") > 4 * planner.repairs


def test_cheap_repairs_far_from_the_route_keep_d_star_lite():
    def toggle(walkable, index):
        walkable[63, 0] = index % 2 == 0  # a far corner, off every shortest route

    planner = RepairChoice(SearchSettings(rule=DiagonalRule.NEVER))  # fresh: 4-connected A*
    choices = _choices(planner, 30, toggle, (0, 63), (40, 30), diagonal=False)
    rent = _rent_paid_plans(planner)
    assert choices == "f" * rent + "t" + "r" * (29 - rent)


def test_a_new_goal_starts_the_rule_over():
    walkable = np.ones((16, 16), dtype=bool)
    planner = RepairChoice()
    while not planner.last_repaired:
        planner.plan(walkable, (0, 0), (15, 15))
    assert planner.last_repaired
    planner.plan(walkable, (0, 0), (15, 0))
    assert planner.last_fresh
    assert not planner.last_repaired
