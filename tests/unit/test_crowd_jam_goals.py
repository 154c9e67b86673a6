"""A jam's local goals filled from the back by the plan's steps (`sim.crowd.jams.window`)."""

from __future__ import annotations

import numpy as np

from sim.crowd.jams.detect import JamSettings
from sim.crowd.jams.local import joint_paths
from sim.crowd.jams.prioritized import Work, agent_orders, prioritized_paths
from sim.crowd.jams.window import local_goals, mean_steps
from sim.mapf import MapfProblem, distance_tables
from sim.navigation.field import distance_field

# Doorway variant 10's grid (8 x 13): the door is column 6, rows 4-5, and a wall west of its
# row 4 (columns 4-5) makes the way through one cell, (5, 6), with a bend. Cell (4, 3), in the
# corner west of that wall, lies nearer the eastern room in a straight line than the cells
# round it, though reached only through them.
HEIGHT, WIDTH = 8, 13
WALKABLE = np.ones((HEIGHT, WIDTH), dtype=bool)
WALKABLE[:4, 6] = False
WALKABLE[6:, 6] = False
WALKABLE[4, 4:6] = False
WEST_GOAL, EAST_GOAL = 4 * WIDTH + 2, 4 * WIDTH + 10
FIELDS = {
    goal: distance_field(WALKABLE, divmod(goal, WIDTH), diagonal=False).ravel()
    for goal in (WEST_GOAL, EAST_GOAL)
}
# Where the plan's members start when the variant's jam is handed off: 15 a side.
EASTBOUND = [(2, 0), (3, 1), (7, 1), (6, 1), (5, 2), (0, 3), (5, 3), (7, 3), (0, 4), (2, 3)]
EASTBOUND += [(5, 4), (7, 5), (0, 5), (2, 5), (3, 4)]
WESTBOUND = [(4, 7), (1, 8), (3, 8), (4, 8), (5, 7), (3, 9), (4, 9), (1, 10), (2, 10), (7, 9)]
WESTBOUND += [(5, 10), (4, 12), (5, 12), (6, 11), (7, 11)]
STARTS = [row * WIDTH + col for row, col in EASTBOUND + WESTBOUND]
GROUPS = np.array([EAST_GOAL] * len(EASTBOUND) + [WEST_GOAL] * len(WESTBOUND))


def _goals() -> list[int]:
    goals = local_goals(
        STARTS,
        np.zeros(len(STARTS), dtype=bool),
        GROUPS,
        np.arange(len(STARTS)),
        WALKABLE,
        (0, HEIGHT - 1, 0, WIDTH - 1),
        WIDTH,
        FIELDS.__getitem__,
    )
    assert goals is not None
    return goals


def test_mean_steps_count_the_way_round_a_wall() -> None:
    steps = mean_steps(WALKABLE, [5 * WIDTH + 7]).reshape(HEIGHT, WIDTH)
    # Under four cells away in a line, seven steps round the wall's end.
    assert steps[3, 4] == 7.0
    assert steps[0, 6] > WIDTH * HEIGHT


def test_no_goal_cell_is_walled_in_by_goals_filled_before_it() -> None:
    # Members nearer their goal fill first; each must still find a way from where its group
    # stands to its cell past the cells taken before it. By straight lines, (4, 3) was the
    # west group's last cell, walled in by (3, 3), (5, 3) and (4, 2).
    goals = _goals()
    for group in (EAST_GOAL, WEST_GOAL):
        members = [m for m in range(len(STARTS)) if GROUPS[m] == group]
        members.sort(key=lambda m: (FIELDS[group][STARTS[m]], m))
        taken = np.zeros(WALKABLE.size, dtype=bool)
        for member in members:
            open_cells = WALKABLE & ~taken.reshape(WALKABLE.shape)
            starts = [STARTS[m] for m in members]
            assert mean_steps(open_cells, starts)[goals[member]] < open_cells.size, divmod(
                goals[member], WIDTH
            )
            taken[goals[member]] = True


def test_the_priority_planner_files_the_groups_through_the_door() -> None:
    # On the straight-line goals no order of the priority planner found a plan within its
    # budget and LaCAM*'s, 44 steps with four rotations, stood; on these one group files
    # through after the other.
    problem = MapfProblem(WALKABLE, tuple(STARTS), tuple(_goals()))
    tables = distance_tables(problem)
    work = Work.for_window(int(WALKABLE.sum()), problem.agents)
    found = [
        prioritized_paths(problem, tables, order, work)
        for order in agent_orders(problem, tables, GROUPS.tolist())
    ]
    assert min(len(paths[0]) for paths in found if paths) <= 40
    assert len(joint_paths(problem, JamSettings(), GROUPS.tolist())[0]) <= 40
