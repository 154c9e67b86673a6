"""Make way: agents resting at their goal step out of the line of an agent walking through.

Arrived agents stay avoidance-active with a low priority, so a newcomer heading at one finds
it giving way. In a packed crowd that is not enough: the one in front cannot give way into its
neighbours, the newcomer stops against it, and its sidestep takes it along the crowd's edge
into a wall. So resting agents look ahead of every self-steered agent on the move (few, and
each already costs a search of its own): one within the walker's lane (its radius plus theirs,
times `LANE_CLEARANCE`) and within `LOOKAHEAD_S` of its speed ahead steps sideways out of the
lane, to whichever side of it it stands, at up to `ASIDE_SPEED` of its own speed. Avoidance
passes the push on to the neighbours it steps toward; once the walker has gone by, each drifts
back to its place as it always does.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from sim.crowd.rows import AgentRows
from sim.crowd.state import AgentState

MOVING = tuple(AgentState).index(AgentState.MOVING)
LANE_CLEARANCE = 1.5
"""The lane kept clear: the two radii's sum times this, each side of the walker's line."""
LOOKAHEAD_S = 1.5
"""How far ahead of a walker (seconds at its speed, plus the radii) resting agents step aside."""
ASIDE_SPEED = 0.6
"""The fastest a resting agent steps aside, as a fraction of its speed."""
ARRIVE_TIME_S = 0.3
"""It steps no faster than closes the gap to the lane's edge in this time."""


def make_way(
    rows: AgentRows, resting: NDArray[np.intp], positions: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The sideways velocity (k, 2) each `resting` row (standing at `positions`) adds.

    Zero for rows in no self-steered walker's lane; each walker's line runs from where it
    stands toward its next waypoint (so a walker already stopped by the crowd still counts).
    """
    aside = np.zeros((len(resting), 2))
    walkers = np.flatnonzero(~rows.driven & (rows.state == MOVING))
    if not len(walkers) or not len(resting):
        return aside
    radii = rows.radii[resting]
    room = rows.speeds[resting] * ASIDE_SPEED
    for walker in walkers:
        ahead = _heading(rows, int(walker))
        if ahead is None:
            continue
        ux, uy = ahead
        here = rows.positions[walker]
        dx, dy = positions[:, 0] - here[0], positions[:, 1] - here[1]
        along = dx * ux + dy * uy
        lateral = dx * uy - dy * ux  # > 0: on the walker's right
        reach = rows.speeds[walker] * LOOKAHEAD_S + rows.radii[walker] + radii
        lane = (rows.radii[walker] + radii) * LANE_CLEARANCE
        in_lane = (along > 0.0) & (along < reach) & (np.abs(lateral) < lane)
        if not in_lane.any():
            continue
        side = np.where(lateral >= 0.0, 1.0, -1.0)
        speed = np.minimum(room, (lane - np.abs(lateral)) / ARRIVE_TIME_S) * in_lane
        aside[:, 0] += side * uy * speed
        aside[:, 1] -= side * ux * speed
    return aside


def _heading(rows: AgentRows, walker: int) -> tuple[float, float] | None:
    """The unit direction from walker `walker` to its next waypoint (None: it has none)."""
    waypoints = rows.waypoints[walker]
    if not waypoints:
        return None
    x, y = rows.positions[walker]
    dx, dy = waypoints[0][0] - x, waypoints[0][1] - y
    length = float(np.hypot(dx, dy))
    if length <= 1e-9:
        return None
    return (float(dx / length), float(dy / length))
