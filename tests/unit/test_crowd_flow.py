"""A jam's joint plan followed continuously (`sim.crowd.jams.flow`): order kept, discs apart.

The plans here are the planners' own (`joint_paths`) for a small doorway swap, so the
follower meets what the crowd gives it: turns into the door, streams in both directions.
"""

from __future__ import annotations

import numpy as np
import pytest

from sim.crowd.jams.detect import JamSettings
from sim.crowd.jams.flow import FlowFollower, SplitFollower, compress, follow_plan, unrotated
from sim.crowd.jams.local import TURN_OVERLAP, joint_paths, turn_lag
from sim.crowd.joint import JointFollower, rotations, step_seconds
from sim.mapf import MapfProblem

DT = 1.0 / 60.0
SPEED = 3.0
RADIUS = 0.4


def _door() -> tuple[MapfProblem, np.ndarray]:
    """A 5 x 7 grid walled down column 3 but for its door in row 2; 4 agents a side swap."""
    walkable = np.ones((5, 7), dtype=bool)
    walkable[:, 3] = False
    walkable[2, 3] = True
    west = [(1, 2), (2, 2), (3, 2), (2, 1)]
    east = [(1, 4), (2, 4), (3, 4), (2, 5)]
    starts = [r * 7 + c for r, c in west + east]
    goals = [r * 7 + c + 3 for r, c in west] + [r * 7 + c - 3 for r, c in east]
    centres = np.array([[c + 0.5, r + 0.5] for r in range(5) for c in range(7)])
    return MapfProblem(walkable, tuple(starts), tuple(goals), name="door"), centres


def _plan() -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
    problem, centres = _door()
    paths = joint_paths(problem, JamSettings(), [0] * 4 + [1] * 4)
    assert paths
    return paths, centres


def _follower(paths, centres) -> FlowFollower:
    count = len(paths)
    first = centres[[path[0] for path in paths]]
    return FlowFollower(
        paths,
        centres,
        first,
        [SPEED] * count,
        np.full(count, RADIUS),
        1.0,
        step_seconds(1.0, [SPEED]),
    )


def _walk(follower: FlowFollower, frames: int = 3000) -> list[np.ndarray]:
    seen = [follower.positions()]
    for _ in range(frames):
        if follower.finished:
            break
        follower.advance(DT)
        seen.append(follower.positions())
    assert follower.finished
    return seen


def test_compress_drops_waits_and_keeps_each_entry_step() -> None:
    assert compress([3, 3, 3]) == ([3], [0])
    assert compress([1, 2, 2, 1]) == ([1, 2, 1], [0, 1, 3])


def test_a_doorway_plan_keeps_every_disc_apart_and_ends_on_the_goals() -> None:
    paths, centres = _plan()
    seen = _walk(_follower(paths, centres))
    apart = 2.0 * RADIUS * (1.0 - TURN_OVERLAP)
    for at in seen:
        gaps = np.hypot(*(at[:, None] - at[None]).transpose(2, 0, 1))
        assert gaps[~np.eye(len(at), dtype=bool)].min() >= apart - 1e-9
    assert np.allclose(seen[-1], centres[[path[-1] for path in paths]])


def test_every_cell_is_entered_in_the_plans_order() -> None:
    paths, centres = _plan()
    follower = _follower(paths, centres)
    reached: dict[int, list[int]] = {}  # cell: agents in the order they reached its centre
    done = [0] * len(paths)
    while not follower.finished:
        follower.advance(DT)
        for agent, cells in enumerate(follower.cells):
            while done[agent] < int(np.floor(follower.progress[agent] + 1e-9)):
                done[agent] += 1
                reached.setdefault(int(cells[done[agent]]), []).append(agent)
    planned: dict[int, list[tuple[int, int]]] = {}
    for agent, path in enumerate(paths):
        entered, steps = compress(path)
        for cell, step in zip(entered[1:], steps[1:], strict=True):
            planned.setdefault(cell, []).append((step, agent))
    assert reached == {cell: [agent for _, agent in sorted(v)] for cell, v in planned.items()}


def test_the_door_passes_sooner_than_in_lock_step() -> None:
    # Lock step as the crowd had it: a gathering step, then every step behind the turn lags.
    paths, centres = _plan()
    flowing = len(_walk(_follower(paths, centres)))
    first = centres[[path[0] for path in paths]]
    locked = JointFollower(
        [(path[0], *path) for path in paths],
        [path[-1] for path in paths],
        centres,
        first,
        1.0 / SPEED,
        turn_lag=turn_lag(RADIUS),
        width=7,
    )
    frames = 0
    while not locked.finished:
        locked.advance(DT)
        frames += 1
    assert flowing < frames


def test_an_agent_stays_back_until_the_one_before_it_has_reached_the_cell() -> None:
    # Agent 0 goes 0 -> 1 -> 2 along a row; agent 1 follows into cell 1 behind it, from above.
    centres = np.array([[c + 0.5, r + 0.5] for r in range(2) for c in range(3)])
    paths = [[0, 1, 2], [4, 4, 1]]
    follower = FlowFollower(
        paths, centres, centres[[0, 4]], [0.5, 3.0], np.full(2, RADIUS), 1.0, 1.0
    )
    closest = np.inf
    while not follower.finished:
        follower.advance(DT)
        at = follower.positions()
        closest = min(closest, float(np.hypot(*(at[0] - at[1]))))
        if follower.progress[0] < 1.0:  # the slow leader is not yet on cell 1
            assert follower.progress[1] <= 1.0 - (0.8 * (1 - TURN_OVERLAP)) + 1e-9
    assert closest >= 0.8 * (1.0 - TURN_OVERLAP) - 1e-9


def test_following_twice_gives_the_same_walk() -> None:
    paths, centres = _plan()
    one, two = _walk(_follower(paths, centres)), _walk(_follower(paths, centres))
    assert len(one) == len(two)
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))


def test_a_plan_with_a_rotation_is_followed_in_lock_step() -> None:
    centres = np.array([[c + 0.5, r + 0.5] for r in range(2) for c in range(2)])
    paths = [[0, 1], [1, 3], [3, 2], [2, 0]]
    follower = follow_plan(
        paths,
        [1, 3, 2, 0],
        centres,
        centres[[0, 1, 3, 2]],
        np.full(4, SPEED),
        np.full(4, RADIUS),
        1.0,
        turn_lag=0.1,
        open_cells=np.ones((2, 2), dtype=bool),
    )
    assert isinstance(follower, JointFollower)


@pytest.mark.parametrize("fraction", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_a_corner_is_cut_within_its_cell(fraction: float) -> None:
    centres = np.array([[c + 0.5, r + 0.5] for r in range(2) for c in range(2)])
    follower = FlowFollower(
        [[0, 1, 3]], centres, centres[[0]], [SPEED], np.full(1, RADIUS), 1.0, 0.1
    )
    point = follower._point(0, 0.5 + fraction)  # round cell 1's corner
    assert 1.0 - 1e-9 <= point[0] <= 2.0 + 1e-9
    assert 0.0 - 1e-9 <= point[1] <= 1.0 + 1e-9
    assert np.hypot(*(point - centres[1])) <= 0.5 + 1e-9


def test_a_rotation_within_one_group_is_undone_and_the_cells_held_stay_the_same() -> None:
    # Four agents turn round the 2 x 2 block of a 2 x 3 grid (cells 0, 1, 4, 3), then the
    # one that came to cell 1 goes on to 2.
    paths = [[0, 1, 2], [1, 4, 4], [4, 3, 3], [3, 0, 0]]
    undone = unrotated(paths, [5, 5, 5, 5])
    assert not any(rotations(np.array(undone).T))
    for before, after in zip(np.array(paths).T, np.array(undone).T, strict=True):
        assert sorted(before) == sorted(after)  # every step holds the same cells
    assert undone == [[0, 0, 0], [1, 1, 2], [4, 4, 4], [3, 3, 3]]
    # Of two groups, no agent may take over another group's way: the rotation stays.
    assert unrotated(paths, [5, 5, 6, 6]) == paths


def test_a_plan_is_followed_continuously_around_a_rotation_in_its_middle() -> None:
    # A row of four walks a cell east (continuously); two of it and two below then turn
    # round the 2 x 2 block of cells 2, 3, 9, 8 (lock step); then some walk on.
    width = 6
    centres = np.array([[c + 0.5, r + 0.5] for r in range(2) for c in range(width)])
    row = [[0, 1, 1, 1], [1, 2, 3, 4], [2, 3, 9, 10], [3, 4, 4, 5]]
    below = [[8, 8, 2, 2], [9, 9, 8, 8]]
    paths = row + below
    assert rotations(np.array(paths).T) == [[], [(1, 2, 4, 5)], []]
    follower = follow_plan(
        paths,
        [path[-1] for path in paths],
        centres,
        centres[[path[0] for path in paths]],
        np.full(len(paths), SPEED),
        np.full(len(paths), 0.25),
        1.0,
        turn_lag=0.0,
        open_cells=np.ones((2, width), dtype=bool),
        groups=list(range(len(paths))),  # all apart: nothing is undone
    )
    assert isinstance(follower, SplitFollower)
    for _ in range(600):
        if follower.finished:
            break
        follower.advance(DT)
    assert follower.finished
    assert np.allclose(follower.positions(), centres[[path[-1] for path in paths]])
