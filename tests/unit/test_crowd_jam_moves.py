"""A jam plan's members move no faster than their speed and never into an agent outside it.

The no-deadlock rule (`sim.crowd.jams.handoff.Jams`) runs here on its own over a small room,
the crowd's step left out: two agents stand nose to nose until the rule hands them to a joint
plan. What the crowd's step would do to them meanwhile is done by hand: a push from a crowd
pressing in (parting moves members a little), an agent the plan did not take standing on a
member's way (16 goal groups x 625 agents: one stood on the cell a member walked into, and the
member shoved it 0.108 of two radii into the plan's next member).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import numpy as np
from numpy.typing import NDArray

from sim.config import AgentConfig
from sim.crowd.grid import CrowdGrid
from sim.crowd.jams.flow import follow_plan
from sim.crowd.jams.handoff import HELD_S, Jams
from sim.crowd.jams.local import TURN_OVERLAP
from sim.crowd.jams.moves import capped, held_apart, into_others
from sim.crowd.rows import AgentRows
from sim.crowd.state import AgentState

DT = 1 / 60
SPEED = 3.0
RADIUS = 0.4
MOVING = tuple(AgentState).index(AgentState.MOVING)
EAST_GOAL, WEST_GOAL = (9.5, 2.5), (1.5, 2.5)


@dataclass
class Room:
    """What the rule reads of a crowd's grid: an open room, 1 unit a cell, walled round."""

    num_of_rows: int = 5
    num_of_columns: int = 12
    origin: tuple[float, float] = (0.0, 0.0)
    grid_cell_size: float = 1.0
    mask_version: int = 0
    walkable: NDArray[np.bool_] = field(default_factory=lambda: np.ones((5, 12), dtype=bool))

    def clamped_cell(self, point: tuple[float, float]) -> tuple[int, int]:
        col = min(max(int(point[0] // 1.0), 0), self.num_of_columns - 1)
        row = min(max(int(point[1] // 1.0), 0), self.num_of_rows - 1)
        return row, col


def _nose_to_nose() -> AgentRows:
    """Agent 0 bound east and agent 1 bound west, a disc's width apart in the room's middle."""
    rows = AgentRows()
    for index, (x, key) in enumerate(((5.5, 0), (6.3, 1))):
        rows.add(
            index=index,
            positions=(x, 2.5),
            radii=RADIUS,
            speeds=SPEED,
            driven=True,
            state=MOVING,
            key=key,
            configs=AgentConfig(speed=SPEED),
        )
    rows.flush()
    return rows


def _jams() -> Jams:
    return Jams(cast("CrowdGrid", Room()))  # the rule reads only what `Room` has


def _frame(jams: Jams, rows: AgentRows, time_s: float) -> None:
    targets = {0: EAST_GOAL, 1: WEST_GOAL, 2: None}
    jams.update(rows, rows.key, targets, ~rows.joint, DT, time_s)


def _handed_off(jams: Jams, rows: AgentRows) -> float:
    """Step until the two are in a joint plan; the time it took."""
    time_s = 0.0
    while not jams.under_plan(rows)[:2].all():
        time_s += DT
        _frame(jams, rows, time_s)
        assert time_s < 5.0, "the two nose to nose were never handed off"
    return time_s


def test_a_member_pushed_off_its_plan_walks_back_no_faster_than_its_speed() -> None:
    rows, jams = _nose_to_nose(), _jams()
    time_s = _handed_off(jams, rows)
    for frame in range(240):
        if frame % 20 == 0:
            rows.positions[1] += (0.0, 0.3)  # a crowd pressing in pushed it
        before = rows.positions.copy()
        time_s += DT
        _frame(jams, rows, time_s)
        moved = np.hypot(*(rows.positions - before).T)
        assert (moved <= SPEED * DT * (1.0 + 1e-9)).all(), f"frame {frame}: {moved / DT}"


def test_a_member_never_walks_into_an_agent_outside_its_plan() -> None:
    rows, jams = _nose_to_nose(), _jams()
    time_s = _handed_off(jams, rows)
    # The scene's own MAPF agent (never a member) steps onto agent 0's goal as the plan starts.
    rows.add(index=2, positions=EAST_GOAL, radii=RADIUS, speeds=SPEED, joint=True, key=2)
    rows.flush()
    added_s = time_s
    wanted = 2.0 * RADIUS * (1.0 - TURN_OVERLAP)
    closest, handed_back_s = np.inf, None
    for _ in range(round(4.0 / DT)):
        time_s += DT
        _frame(jams, rows, time_s)
        closest = min(closest, float(np.hypot(*(rows.positions[0] - rows.positions[2]))))
        if handed_back_s is None and not jams.under_plan(rows)[0]:
            handed_back_s = time_s
    assert closest >= wanted - 1e-9
    # Held still by it, the plan is over after `HELD_S`: the two are the crowd's again.
    assert handed_back_s is not None
    assert handed_back_s - added_s >= HELD_S
    assert jams.report().handbacks == 1


def test_the_first_glides_onto_a_plan_take_as_long_as_the_longest_needs() -> None:
    # A plan remade from where its members stand (a newcomer joined, windows merged) may send
    # one from off its cell's centre to a cell beside it: farther than the cell a step lasts.
    centres = np.array([[0.5 + col, 0.5 + row] for row in range(3) for col in range(3)])
    first = np.array([[0.2, 0.2], [2.5, 2.5]])
    paths = [(4, 4), (8, 8)]  # agent 0 to the middle cell, 1.06 from where it stands
    speeds = np.array([SPEED, SPEED])
    follower = follow_plan(
        paths,
        [4, 8],
        centres,
        first,
        speeds,
        np.full(2, RADIUS),
        1.0,
        turn_lag=0.0,
        open_cells=np.ones((3, 3), dtype=bool),
    )
    before = follower.positions()
    for _ in range(60):
        follower.advance(DT)
        after = follower.positions()
        assert (np.hypot(*(after - before).T) <= SPEED * DT * (1.0 + 1e-9)).all()
        before = after
    assert np.allclose(before, centres[[4, 8]])


def test_capped_moves_keep_their_way_and_stop_at_their_reach() -> None:
    here = np.array([[0.0, 0.0], [1.0, 1.0]])
    moved = capped(here, np.array([[0.0, 2.0], [1.05, 1.0]]), np.array([0.1, 0.1]))
    assert np.allclose(moved, [[0.0, 0.1], [1.05, 1.0]])


def test_only_moves_that_close_in_on_a_near_stranger_are_held() -> None:
    here = np.array([[0.0, 0.0], [5.0, 0.0], [10.0, 0.0]])
    there = here + np.array([0.05, 0.0])
    strangers = np.array([[0.7, 0.0], [4.4, 0.0], [11.0, 0.0]])
    everyone = np.concatenate([here, strangers])
    radii, checked = np.full(6, RADIUS), np.ones(6, dtype=bool)
    held = into_others(here, there, radii[:3], everyone, radii, np.arange(3), checked)
    # Closing in too near; moving away from one too near; closing in but still far enough.
    assert held.tolist() == [True, False, False]


def test_a_member_never_walks_into_a_held_member() -> None:
    # Members on their plan points are not checked against each other by `into_others`: a
    # fast member walked on into a slow one its plan held (0.103 of two radii, doorway
    # variant 25). A chain: 0 walks into 1, which walks into 2, held. Two walking into each
    # other are left to the plan's spacing (holding both stalled plans for good).
    apart = 2 * RADIUS * (1.0 - TURN_OVERLAP)
    here = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [10.0, 0.0], [11.0, 0.0]])
    step = 1.25 * (1.0 - apart)  # too near whoever stands a cell ahead
    there = here + np.array([[step, 0.0], [step, 0.0], [0.0, 0.0], [step, 0.0], [-step, 0.0]])
    held = np.array([False, False, True, False, False])
    grown = held_apart(here, there, np.full(5, RADIUS), held)
    assert grown.tolist() == [True, True, True, False, False]
    assert held.tolist() == [False, False, True, False, False], "the mask handed in is kept"
    settled = np.where(grown[:, None], here, there)
    assert (np.hypot(*(settled[:2] - settled[1:3]).T) >= apart).all()


def test_a_plan_held_as_a_whole_keeps_its_points() -> None:
    # Taking each frame's new points while held as a whole left a lock-step plan's members
    # all off their points, checked against each other where they stood, and holding each
    # other until the plan was over (doorway variant 18 lost its first plan so: 1 s held,
    # and 1.5 s more until the next hand-off).
    rows, jams = _nose_to_nose(), _jams()
    time_s = _handed_off(jams, rows)
    # The scene's own MAPF agents (never members) step onto both goals: both members held.
    for index, goal in enumerate((EAST_GOAL, WEST_GOAL), start=2):
        rows.add(index=index, positions=goal, radii=RADIUS, speeds=SPEED, joint=True, key=2)
    rows.flush()
    (plan,) = jams._plans  # its points and its follower's holds have no public view
    holds: list[bool] = []
    hold = plan.follower.hold

    def recorded(agents: NDArray[np.bool_]) -> NDArray[np.bool_]:
        holds.append(bool(agents.all()))
        return hold(agents)

    plan.follower.hold = recorded  # type: ignore[method-assign]
    whole = 0
    while jams.under_plan(rows)[:2].all() and time_s < 10.0:
        points = None if plan.targets is None else plan.targets.copy()
        time_s += DT
        _frame(jams, rows, time_s)
        if holds[-1] and points is not None:
            whole += 1
            assert plan.targets is not None
            assert np.array_equal(plan.targets, points)
    assert whole > 0, "the plan was never held as a whole"
