"""Groups converging on a one-cell passage (`sim.crowd.jams.funnel`) and their local goals."""

from __future__ import annotations

import numpy as np

from sim.crowd.jams.funnel import PINCH, funnel_groups, narrow_cells
from sim.crowd.jams.window import local_goals
from sim.navigation.field import distance_field

# A 5 x 9 grid walled down column 4 but for its door in row 2.
WALKABLE = np.ones((5, 9), dtype=bool)
WALKABLE[:, 4] = False
WALKABLE[2, 4] = True
WEST_GOAL, EAST_GOAL = 2 * 9 + 0, 2 * 9 + 8
FIELDS = {
    goal: distance_field(WALKABLE, divmod(goal, 9), diagonal=False).ravel()
    for goal in (WEST_GOAL, EAST_GOAL)
}


def _funnels(cells: list[int], goals: list[int], reach: int = 3) -> list[tuple[int, list[int]]]:
    cells_array = np.array(cells, dtype=np.intp)
    distance = np.array([FIELDS[goal][cell] for cell, goal in zip(cells, goals, strict=True)])
    found = funnel_groups(
        cells_array,
        np.ones(len(cells), dtype=bool),
        distance,
        np.array(goals),
        FIELDS.__getitem__,
        narrow_cells(WALKABLE),
        reach,
    )
    return [(cell, group.tolist()) for cell, group in found]


def test_only_the_door_is_narrow() -> None:
    axis = narrow_cells(WALKABLE)
    assert np.flatnonzero(axis).tolist() == [2 * 9 + 4]
    assert axis[2, 4] == 1  # passed along the row


def test_groups_heading_through_the_door_from_both_sides_make_a_funnel() -> None:
    west, east = [2 * 9 + 2, 1 * 9 + 3], [2 * 9 + 6, 3 * 9 + 5]
    assert _funnels(west + east, [EAST_GOAL] * 2 + [WEST_GOAL] * 2) == [(22, [0, 1, 2, 3])]


def test_one_side_alone_or_out_of_reach_is_no_funnel() -> None:
    assert _funnels([2 * 9 + 2, 1 * 9 + 3], [EAST_GOAL] * 2) == []
    assert _funnels([2 * 9 + 0, 2 * 9 + 8], [EAST_GOAL, WEST_GOAL], reach=3) == []
    assert _funnels([2 * 9 + 0, 2 * 9 + 8], [EAST_GOAL, WEST_GOAL], reach=4) == [(22, [0, 1])]


def test_agents_whose_way_does_not_pass_the_door_are_left_out() -> None:
    # The agent at row 2 col 6 is bound east: the door lies behind it.
    assert _funnels([2 * 9 + 2, 2 * 9 + 6], [EAST_GOAL, EAST_GOAL]) == []


def test_the_first_through_fills_the_goal_cells_from_the_back() -> None:
    # Three agents in a row (columns 0-2) walk east to the three cells round their goal at
    # column 6. Nearest to the goal first, each taking the nearest free cell, the last would
    # have to pass the two others on it (to column 7).
    row = np.ones((1, 9), dtype=bool)
    field = np.abs(np.arange(9) - 6.0)
    goals = local_goals(
        [0, 1, 2],
        np.zeros(3, dtype=bool),
        np.array([6, 6, 6]),
        np.array([0, 1, 2]),
        row,
        (0, 0, 0, 8),
        9,
        lambda goal: field,
    )
    assert goals == [5, 6, 7]


# Doorway variant 18's door: two cells of the wall down column 4 (rows 2 and 3), with a wall
# east of its row 2 (columns 5-6). The way through is one cell wide and bends inside the door,
# and no cell of it has both neighbours along one axis walled.
BENT = np.ones((6, 9), dtype=bool)
BENT[:, 4] = False
BENT[2:4, 4] = True
BENT[2, 5:7] = False
BENT_WEST, BENT_EAST = 3 * 9 + 0, 3 * 9 + 8
BENT_FIELDS = {
    goal: distance_field(BENT, divmod(goal, 9), diagonal=False).ravel()
    for goal in (BENT_WEST, BENT_EAST)
}


def _bent_funnels(cells: list[int], goals: list[int]) -> list[tuple[int, list[int]]]:
    distance = np.array([BENT_FIELDS[goal][cell] for cell, goal in zip(cells, goals, strict=True)])
    found = funnel_groups(
        np.array(cells, dtype=np.intp),
        np.ones(len(cells), dtype=bool),
        distance,
        np.array(goals),
        BENT_FIELDS.__getitem__,
        narrow_cells(BENT),
        3,
    )
    return [(cell, group.tolist()) for cell, group in found]


def test_a_door_bent_by_a_wall_beside_it_pinches_the_way_through() -> None:
    codes = narrow_cells(BENT)
    # (3, 4) in the door and (3, 5) past it: each joins its two sides only through itself.
    assert np.argwhere(codes).tolist() == [[3, 4], [3, 5]]
    assert (codes[3, 4:6] >= PINCH).all()
    # Beside a straight door its mouths pinch too, but the narrow door is the passage.
    assert np.flatnonzero(narrow_cells(WALKABLE)).tolist() == [2 * 9 + 4]


def test_groups_heading_through_a_bent_door_from_both_sides_make_a_funnel() -> None:
    west, east = [3 * 9 + 2, 2 * 9 + 3], [3 * 9 + 6, 4 * 9 + 5]
    goals = [BENT_EAST] * 2 + [BENT_WEST] * 2
    assert _bent_funnels(west + east, goals) == [(31, [0, 1, 2, 3]), (32, [0, 1, 2, 3])]
    # One side alone converges on nothing: it passes in single file.
    assert _bent_funnels(west, goals[:2]) == []
    assert _bent_funnels(east, goals[2:]) == []
