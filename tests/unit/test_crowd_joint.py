"""Following a joint plan in step, and the crowd's joint rows (no window)."""

from __future__ import annotations

import numpy as np
import pytest

from sim.config import AgentConfig, Planner
from sim.crowd.joint import JointFollower, nearest_free_cells, step_seconds

# A 1 x 4 corridor of unit cells: cell c's centre is (c + 0.5, 0.5).
CENTRES = np.array([[c + 0.5, 0.5] for c in range(4)])


def follower(paths, goals, first=None, step_s=0.5):
    starts = np.array([CENTRES[path[0]] for path in paths]) if first is None else first
    return JointFollower(paths, goals, CENTRES, np.asarray(starts, dtype=float), step_s)


def test_a_step_lasts_one_cell_at_the_slowest_speed():
    assert step_seconds(2.0, [4.0, 1.0]) == 2.0


def test_a_speed_of_zero_is_refused():
    with pytest.raises(ValueError, match="speeds > 0"):
        step_seconds(1.0, [0.0])


def test_agents_chasing_one_cell_get_distinct_cells_nearest_it():
    walkable = np.array([[True, True, True, False]])
    assert nearest_free_cells(walkable, [1, 1, 1]) == [1, 0, 2]


def test_cells_beyond_a_wall_are_not_near_and_one_without_room_keeps_its_wish():
    walkable = np.array([[True, True, False, True]])
    assert nearest_free_cells(walkable, [1, 1, 1]) == [1, 0, 1]


def test_an_agent_on_a_wall_gets_the_nearest_free_cell():
    walkable = np.array([[True, False, False, True]])
    assert nearest_free_cells(walkable, [2]) == [3]


def test_agents_glide_centre_to_centre_in_step():
    plan = follower([[0, 1, 2], [3, 3, 3]], [2, 3])
    plan.advance(0.25)
    assert plan.positions().tolist() == [[1.0, 0.5], [3.5, 0.5]]
    plan.advance(0.25)
    assert plan.at_boundary
    assert plan.positions().tolist() == [[1.5, 0.5], [3.5, 0.5]]


def test_the_first_step_starts_where_the_agent_stood():
    plan = follower([[0, 1]], [1], first=[[0.5, 0.9]])
    plan.advance(0.25)
    assert plan.positions().tolist() == [[1.0, 0.7]]


def test_an_agent_arrives_when_it_stays_at_its_goal():
    plan = follower([[0, 1, 1], [2, 2, 3]], [1, 3])
    assert plan.arrival_steps.tolist() == [1, 2]
    plan.advance(0.5)
    assert plan.arrived().tolist() == [True, False]
    plan.advance(0.5)
    assert plan.finished
    assert plan.arrived().tolist() == [True, True]


def test_advancing_may_stop_at_the_next_boundary():
    plan = follower([[0, 1, 2, 3]], [3])
    plan.advance(0.3)
    plan.advance(0.9, stop_at_boundary=True)
    assert (plan.step, plan.at_boundary) == (1, True)


def test_the_cells_ahead_leave_out_waits():
    plan = follower([[0, 0, 1, 1, 2]], [2])
    assert plan.cells_ahead(0) == [1, 2]


class OpenGrid:
    """The members of `CrowdGrid` a crowd reads while it drives no one."""

    origin = (0.0, 0.0)
    num_of_rows = num_of_columns = 4
    grid_cell_size = 1.0
    version = mask_version = 0
    walkable = np.ones((4, 4), dtype=bool)  # avoidance slides along walls: there are none


class Fields:
    """Stands for the scene's shared fields: only a crowd given fields follows a joint plan."""

    threshold = 8


def test_the_scenes_crowd_leaves_a_joint_row_to_the_plan():
    from sim.crowd.crowd import Crowd

    crowd = Crowd(OpenGrid(), Fields())  # type: ignore[arg-type]
    alone = crowd.add_agent(AgentConfig())
    joint = crowd.add_agent(AgentConfig(planner=Planner.MAPF))
    assert (crowd.is_driven(alone), crowd.is_driven(joint)) == (False, True)
    crowd.update_agent(joint, planner=Planner.INDEPENDENT)
    assert not crowd.is_driven(joint)


def test_an_agents_own_crowd_lets_it_steer_itself():
    from sim.crowd.crowd import Crowd

    own = Crowd(OpenGrid())  # type: ignore[arg-type]
    joint = own.add_agent(AgentConfig(planner=Planner.MAPF))
    assert not own.is_driven(joint)


def test_others_go_around_a_joint_agent():
    from sim.crowd.crowd import Crowd

    crowd = Crowd(OpenGrid())  # type: ignore[arg-type]
    walker = crowd.add_agent(AgentConfig(speed=1.0), position=(0.5, 2.0))
    joint = crowd.add_agent(AgentConfig(planner=Planner.MAPF), position=(1.5, 2.0))
    ahead = crowd.avoid(walker, (1.0, 0.0), 0.5)
    assert ahead != (1.0, 0.0), "the walker turns aside"
    still = (crowd.position(joint), crowd.velocity(joint))
    assert still == ((1.5, 2.0), (0.0, 0.0))


def test_four_agents_rotating_round_a_block_beside_walls_keep_apart_and_off_them():
    # Cells 0, 1, 3, 2 of a 2 x 2 grid turn a quarter round its centre in the second step.
    centres = np.array([[c % 2 + 0.5, c // 2 + 0.5] for c in range(4)])
    paths = [(0, 0, 1), (1, 1, 3), (3, 3, 2), (2, 2, 0)]
    goals = [path[-1] for path in paths]
    follower = JointFollower(
        paths,
        goals,
        centres,
        centres[[0, 1, 3, 2]],
        1.0,
        turn_lag=0.075,
        width=2,
        open_cells=np.ones(4, dtype=bool),  # the grid's edge is round the block: no room
    )
    follower.advance(1.0)  # the first step waits where they stand
    closest, farthest = np.inf, 0.0
    while not follower.finished:
        follower.advance(0.05)
        at = follower.positions()
        gaps = np.hypot(*(at[:, None, :] - at[None, :, :]).transpose(2, 0, 1))
        closest = min(closest, float(gaps[~np.eye(4, dtype=bool)].min()))
        farthest = max(farthest, float(np.abs(at - 1.0).max()))
    # The turn lag's distance, (1 + lag) / sqrt(2) of a cell; beyond the cells' centres (0.5
    # from the block's centre) by a few hundredths, not the circle's 0.21 into a wall beside.
    assert closest >= (1.0 + 0.075) / np.sqrt(2.0) - 1e-6
    assert farthest <= 0.55
