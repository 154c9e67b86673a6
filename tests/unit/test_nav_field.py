"""The distance field: its costs are find_path's, and following it walks an optimal path."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.navigation import find_path
from sim.navigation.field import descend, distance_field, field_path
from sim.navigation.moves import SQRT2, MoveGraph

FIELD_SETTINGS = settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@st.composite
def grids(draw, *, with_costs: bool):
    """A seeded random grid (a walkable goal), its costs or None, and the goal cell."""
    height = draw(st.integers(2, 9))
    width = draw(st.integers(2, 9))
    seed = draw(st.integers(0, 2**32 - 1))
    density = draw(st.sampled_from([0.0, 0.2, 0.35]))
    rng = np.random.default_rng(seed)
    walkable = rng.random((height, width)) >= density
    goal = (int(rng.integers(height)), int(rng.integers(width)))
    walkable[goal] = True
    costs = rng.integers(1, 5, size=(height, width)).astype(float) if with_costs else None
    return walkable, costs, goal


def path_cost(cells, costs) -> float:
    total = 0.0
    for (r0, c0), (r1, c1) in itertools.pairwise(cells):
        step = SQRT2 if r0 != r1 and c0 != c1 else 1.0
        total += step * (1.0 if costs is None else costs[r1, c1])
    return total


def check_against_find_path(walkable, costs, goal, diagonal) -> None:
    field = distance_field(walkable, goal, diagonal=diagonal, costs=costs)
    height, width = walkable.shape
    graph = MoveGraph.build(walkable, diagonal=diagonal, costs=costs)
    for start in itertools.product(range(height), range(width)):
        result = find_path(walkable, start, goal, diagonal=diagonal, costs=costs)
        if not result.found:
            assert field[start] == math.inf, f"{start} cannot reach {goal}"
            assert field_path(field, start, walkable=walkable, diagonal=diagonal, costs=costs) == []
            continue
        assert field[start] == pytest.approx(result.cost, abs=1e-9), f"from {start}"
        cells = field_path(field, start, walkable=walkable, diagonal=diagonal, costs=costs)
        assert cells[0] == start
        assert cells[-1] == goal
        for (r0, c0), (r1, c1) in itertools.pairwise(cells):
            legal = {cell for cell, _ in graph.neighbours(r0 * width + c0)}
            assert r1 * width + c1 in legal, f"illegal step {(r0, c0)}->{(r1, c1)}"
        assert path_cost(cells, costs) == pytest.approx(result.cost, abs=1e-9)


@pytest.mark.parametrize("diagonal", [True, False], ids=["8-connected", "4-connected"])
@FIELD_SETTINGS
@given(case=grids(with_costs=False))
def test_field_equals_find_path_cost_from_every_cell(case, diagonal):
    walkable, costs, goal = case
    check_against_find_path(walkable, costs, goal, diagonal)


@pytest.mark.parametrize("diagonal", [True, False], ids=["8-connected", "4-connected"])
@FIELD_SETTINGS
@given(case=grids(with_costs=True))
def test_field_equals_find_path_cost_with_costs(case, diagonal):
    walkable, costs, goal = case
    check_against_find_path(walkable, costs, goal, diagonal)


def test_walled_in_cells_are_inf():
    walkable = np.ones((5, 5), dtype=bool)
    walkable[:, 2] = False
    field = distance_field(walkable, (0, 0))
    assert np.isinf(field[:, 2:]).all()
    assert np.isfinite(field[:, :2]).all()


def test_no_corner_cutting_between_two_walls():
    walkable = np.array([[True, False], [False, True]])
    field = distance_field(walkable, (0, 0))
    assert field[1, 1] == math.inf


def test_blocked_goal_makes_everything_inf():
    walkable = np.ones((3, 3), dtype=bool)
    walkable[1, 1] = False
    assert np.isinf(distance_field(walkable, (1, 1))).all()


def test_descend_from_goal_and_unreachable_is_none():
    walkable = np.ones((3, 3), dtype=bool)
    walkable[:, 1] = False
    field = distance_field(walkable, (0, 0))
    assert descend(field, (0, 0), walkable=walkable) is None
    assert descend(field, (0, 2), walkable=walkable) is None
    assert descend(field, (2, 0), walkable=walkable) == (1, 0)


def test_descend_ties_are_deterministic():
    walkable = np.ones((3, 3), dtype=bool)
    field = distance_field(walkable, (0, 1), diagonal=False)
    # From (1, 0): up to (0, 0) and right to (1, 1) both cost 2; DIRECTIONS order picks up.
    assert descend(field, (1, 0), walkable=walkable, diagonal=False) == (0, 0)


@pytest.mark.parametrize(
    ("goal", "message"),
    [((3, 0), "outside"), ((0, -1), "outside"), ((0.5, 1), "pair of integers")],
    ids=["row-past-end", "negative-col", "float"],
)
def test_bad_goal_is_a_value_error(goal, message):
    with pytest.raises(ValueError, match=message):
        distance_field(np.ones((3, 3), dtype=bool), goal)


def test_field_of_another_shape_is_a_value_error():
    walkable = np.ones((3, 3), dtype=bool)
    with pytest.raises(ValueError, match="shape"):
        field_path(np.zeros((2, 2)), (0, 0), walkable=walkable)
