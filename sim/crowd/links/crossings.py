"""Driven agents crossing links: the crossing is crowd state, one row's columns per agent.

A driven agent whose target's field goes down by a link from the cell it stands on
(`TargetGroup.hops`) starts across it (`begin_crossings`): from where it stands to the centre
of the link's far end, in the link's cost-based time ``cost * cell_size / speed``, as a
self-steered agent does (`sim.crowd.rules.link_crossing.Crossing`, whose pose it takes: a jump
arcs, a ladder climbs, a teleport hides it). While crossing it is out of the step: no aims,
walls, avoidance or arrival (`advance_crossings` moves it); then it stands on the far end and
walks on down the field, from rest. Its velocity meanwhile is the crossing's (out of every
avoidance, it only shows in the trace and the gizmos). The rows keep the link's kind
(`crossing`, an index into `LINK_KINDS`, -1 when not crossing), the seconds in and in all,
both ends, its height above the ground (`lift`) and whether it shows (`shown`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.crowd.goals import TargetGroup
from sim.crowd.grid import CrowdGrid
from sim.crowd.rows import AgentRows
from sim.crowd.rules.link_crossing import Crossing
from sim.crowd.state import AgentState
from sim.navigation.links import LINK_KINDS

MOVING = tuple(AgentState).index(AgentState.MOVING)


@dataclass(frozen=True, slots=True)
class LinkPoses:
    """Every agent's crossing as a renderer reads it, row i = agent i (read-only arrays).

    Attributes:
        crossing: (n,) whether the crowd moves it over a link now.
        lift: (n,) its height above the ground.
        shown: (n,) False while a teleport hides it.
    """

    crossing: NDArray[np.bool_]
    lift: NDArray[np.float64]
    shown: NDArray[np.bool_]


def begin_crossings(
    rows: AgentRows,
    walking: NDArray[np.intp],
    keys: NDArray[Any],
    groups: Mapping[int, TargetGroup],
    cells_of: Callable[[NDArray[np.float64]], NDArray[np.intp]],
    grid: CrowdGrid,
) -> None:
    """Start across its link each of the `walking` rows that stands on a hop of its field.

    Python per crossing begun only: a crowd's agents reach a link's foot a few a frame.
    """
    for key in np.unique(keys):
        hops = groups[int(key)].hops
        if not hops:
            continue
        members = walking[(keys == key) & (rows.state[walking] == MOVING)]
        cells = cells_of(rows.positions[members])
        at_foot = np.isin(cells, np.fromiter(hops, dtype=np.intp))
        for row, cell in zip(members[at_foot], cells[at_foot], strict=True):
            hop = hops[int(cell)]
            speed = float(rows.speeds[row])
            cost = hop.link.cost * grid.grid_cell_size
            rows.crossing[row] = LINK_KINDS.index(hop.link.kind)
            rows.cross_s[row] = 0.0
            rows.cross_time[row] = cost / speed if speed > 0.0 else 0.0
            rows.cross_from[row] = rows.positions[row]
            rows.cross_to[row] = grid.cell_to_world(divmod(hop.end, grid.num_of_columns))
            rows.velocities[row] = 0.0


def advance_crossings(rows: AgentRows, crossing: NDArray[np.intp], dt: float) -> None:
    """Move the `crossing` rows on for `dt` seconds; those over stand on the far end."""
    for row in crossing:
        ride = Crossing(
            LINK_KINDS[rows.crossing[row]],
            (float(rows.cross_from[row, 0]), float(rows.cross_from[row, 1])),
            (float(rows.cross_to[row, 0]), float(rows.cross_to[row, 1])),
            duration_s=float(rows.cross_time[row]),
        )
        ride.elapsed_s = float(rows.cross_s[row])
        done = ride.advance(dt)
        rows.cross_s[row] = ride.elapsed_s
        x, y, height, shown = ride.pose()
        moved = (x - rows.positions[row, 0], y - rows.positions[row, 1])
        rows.positions[row] = (x, y)
        rows.lift[row], rows.shown[row] = height, shown
        if done:
            land(rows, row)  # at rest: it sets off from the far end as from a standstill
        elif dt > 0.0:  # the crossing's own speed, as the trace reads it
            rows.velocities[row] = (moved[0] / dt, moved[1] / dt)


def land(rows: AgentRows, row: int) -> None:
    """End row `row`'s crossing at once: on the far end, on the ground, shown, at rest."""
    if rows.crossing[row] < 0:
        return
    rows.positions[row] = rows.cross_to[row]
    rows.crossing[row] = -1
    rows.lift[row], rows.shown[row] = 0.0, True
    rows.velocities[row] = 0.0
    rows.still[row] = rows.stuck[row] = 0
    rows.rest_from[row] = np.nan
