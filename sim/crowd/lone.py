"""The crowd's part in a self-steered agent's frame: its ORCA velocity, and its arrival.

A lone agent (or one of a group too small for the crowd to drive) steers itself, but its row
sits in the crowd's arrays with every other agent's, so avoiding them costs one small ORCA
call over its nearest rows, and only when one is near (`lone_velocity`). It also arrives as a
crowd's agent does: standing still against those already arrived (`joins_cluster`), rather
than all trying to reach the same point.
"""

from __future__ import annotations

import math

import numpy as np

from sim.crowd.avoidance import avoid
from sim.crowd.goals import START_KEY
from sim.crowd.rows import AgentRows
from sim.crowd.rules.keep_right import keep_right
from sim.crowd.settings import StepSettings
from sim.crowd.state import AgentState

Point = tuple[float, float]

MOVING = tuple(AgentState).index(AgentState.MOVING)
ARRIVED = tuple(AgentState).index(AgentState.ARRIVED)
HELD_SPEED_FRACTION = 0.1
"""A moving neighbour slower than this fraction of its speed stands held (see `lone_velocity`)."""
STAY_RADII = 2.5
"""An arrived agent within this many of its radii past the others' cluster is still in it."""


def lone_velocity(
    rows: AgentRows,
    row: int,
    preferred: Point,
    dt: float,
    settings: StepSettings,
    *,
    resting: bool = False,
    goal: Point | None = None,
) -> Point:
    """The velocity ORCA gives agent `row` wanting `preferred`, against the other rows.

    `preferred` itself, exactly, when no other agent is within the neighbour distance
    (nothing is computed then) or none is in the way. `resting` (an agent standing at its
    goal) gives way with a low priority. It sidesteps when held back, as the crowd's agents
    meeting head-on do, but not at rest nor near its `goal`'s cluster, where it would only
    circle those already there; there too it keeps right of agents coming head-on
    (`sim.crowd.rules.keep_right`), so two meeting pass on a known side.
    """
    if len(rows) < 2 or dt <= 0.0:
        return preferred
    reach = settings.neighbour_dist(rows.speeds, rows.radii)
    here = rows.positions[row]
    delta = rows.positions - here
    distance_sq = delta[:, 0] * delta[:, 0] + delta[:, 1] * delta[:, 1]
    close = np.flatnonzero(distance_sq < reach * reach)
    close = close[close != row]
    if not len(close):
        return preferred
    nearest = close[np.lexsort((close, distance_sq[close]))][: settings.max_neighbours]
    index = np.concatenate([[row], nearest])
    wanted = rows.velocities[index].copy()
    wanted[0] = preferred
    active = rows.avoidance[index].copy()
    active[0] = True
    moving = rows.state[index] == MOVING
    priority = np.where(moving, 1.0, settings.rest_priority)
    priority[0] = settings.rest_priority if resting else 1.0
    priority *= rows.weights[index]  # avoidance_priority: Unity's, as an ORCA weight
    if resting:
        # A slow agent at rest cannot make the share of a turn a fast one at rest leaves it
        # (shoved into it by a walker): between two self-steered agents at rest, each takes
        # a share in proportion to its speed, whatever their avoidance priorities (equal
        # speeds: half each). Not against walkers nor the crowd's agents, whose sides of the
        # turn split by priority alone: two sides that disagree leave part of it to nobody.
        alike = ~rows.driven[index] & (rows.state[index] == ARRIVED)
        ratio = rows.speeds[row] / np.maximum(rows.speeds[index[alike]], 1e-9)
        priority[alike] *= ratio * rows.weights[row] / np.maximum(rows.weights[index[alike]], 1e-9)
    # A neighbour standing while it would move (pinned to a wall or a standing agent) cannot
    # take its share of a turn, however light its avoidance priority: this one does.
    speed = np.hypot(rows.velocities[index, 0], rows.velocities[index, 1])
    held = moving & (speed < HELD_SPEED_FRACTION * rows.speeds[index])
    held[0] = False
    priority[held] = settings.walled_priority * np.maximum(rows.weights[index[held]], 1.0)
    sidestep = np.zeros(len(index), dtype=np.bool_)
    sidestep[0] = not resting and (goal is None or not _near_cluster(rows, row, goal, settings))
    # Against agents resting at their goals it waits for them to make way (`make_way`), or
    # its sidestep would take it along their edge into a wall.
    walking = bool((rows.state[nearest] == MOVING).any())
    if sidestep[0]:
        sidestep[0] = walking
        wanted[0] = keep_right(
            (float(here[0]), float(here[1])),
            preferred,
            float(rows.radii[row]),
            rows.positions[nearest],
            rows.velocities[nearest],
            rows.radii[nearest],
            horizon_s=settings.time_horizon_s,
            share=_shares(rows, row, nearest),
        )
    chosen = avoid(
        rows.positions[index],
        rows.velocities[index],
        wanted,
        rows.radii[index],
        rows.speeds[index],
        dt=dt,
        time_horizon=settings.time_horizon_s,
        neighbour_dist=reach,
        max_neighbours=settings.max_neighbours,
        active=active,
        priority=priority,
        sidestep=sidestep,
    )
    return (float(chosen[0, 0]), float(chosen[0, 1]))


def _shares(rows: AgentRows, row: int, nearest: np.ndarray) -> np.ndarray | None:
    """`row`'s part of each pass with `nearest` by avoidance priority; None if all alike."""
    weights = rows.weights[nearest]
    if (weights == rows.weights[row]).all():
        return None  # half each, exactly as before priorities
    shared: np.ndarray = weights / (weights + rows.weights[row])
    return shared


def joins_cluster(rows: AgentRows, row: int, goal: Point, settings: StepSettings) -> bool:
    """Whether agent `row`, standing still, touches the arrived cluster at `goal`.

    The crowd's arrival rule: still for `StepSettings.still_frames` frames, and either
    within its radius plus its arrival radius of `goal` (others pressing in hold it there),
    or touching an arrived agent chasing the same target within the cluster's reach.

    An agent that arrived so is still in the cluster while it stands within `STAY_RADII` of
    its radii past the others' reach from `goal`, however it was jostled: as the crowd's own
    arrived agents stay arrived. Its owner asks at every replan, and a jostled agent a few
    hundredths from touching set off again, pressed in and arrived anew, so that a cluster
    of self-steered agents was seldom all arrived at once (doorway variant 12: the last of
    ten arrived 5.4 s after its joint plan had brought them all to their goal cells).
    """
    if rows.state[row] == ARRIVED:
        return _near_cluster(rows, row, goal, settings, reach_radii=STAY_RADII)
    if rows.still[row] < settings.still_frames:
        return False
    x, y = rows.positions[row]
    if math.dist((float(x), float(y)), goal) <= rows.radii[row] + rows.arrival_radii[row]:
        return True  # held back on the goal's doorstep: the first of the cluster
    others = _arrived_alike(rows, row)
    if not len(others):
        return False
    apart = np.hypot(*(rows.positions[others] - rows.positions[row]).T)
    margin = 1.0 + settings.touch_margin
    touching = (apart <= (rows.radii[others] + rows.radii[row]) * margin).any()
    return bool(touching) and _near_cluster(rows, row, goal, settings, others)


def _arrived_alike(rows: AgentRows, row: int) -> np.ndarray:
    """The rows that arrived chasing what `row` chases."""
    keys = np.where(rows.patrol & rows.to_start, START_KEY, rows.key)
    same = (keys == keys[row]) & (rows.state == ARRIVED)
    same[row] = False
    return np.flatnonzero(same)


def _near_cluster(
    rows: AgentRows,
    row: int,
    goal: Point,
    settings: StepSettings,
    others: np.ndarray | None = None,
    *,
    reach_radii: float | None = None,
) -> bool:
    """Whether `row` is within the arrived cluster's reach of `goal` (plus a few radii).

    The few: `reach_radii` of its radii (default `StepSettings.near_radii`).
    """
    radius = float(rows.radii[row])
    arrived = _arrived_alike(rows, row) if others is None else others
    cluster = 0.0
    if len(arrived):
        spread = np.hypot(*(rows.positions[arrived] - np.asarray(goal)).T) + rows.radii[arrived]
        cluster = float(spread.max())
    x, y = rows.positions[row]
    past = settings.near_radii if reach_radii is None else reach_radii
    return math.dist((float(x), float(y)), goal) <= cluster + past * radius
