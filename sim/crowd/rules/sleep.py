"""Sleep: arrived agents that stand still, with nobody walking near, skip ORCA and parting.

A crowd gathered at its goal is thousands of discs that do not move, yet each frame every one
of them solved its ORCA program and had its overlaps searched and settled, and the step grew
twice as dear as the crowd gathered. Physics engines let resting bodies sleep; so does the
crowd, by these rules (all on the rows, so the same crowd sleeps and wakes the same way):

- **Falling asleep**, after a frame's move: a driven agent that has arrived, is not woken this
  frame, has stood still for `StepSettings.still_frames` frames and moves slower than
  `SLEEP_SPEED` of its speed. Its place (`home`) becomes where it stands and its velocity 0,
  so it stays exactly there while it sleeps.
- **Asleep**: ORCA does not move it (others avoid it as a disc standing still) and parting
  neither searches from it nor pushes it (its partner takes the whole push); it stays in the
  neighbour hash like any other row.
- **Waking**, before the frame's avoidance: it is no longer arrived (its goal moved or
  changed), a replan is asked for it, something moved it off its place (a wall pushed it
  out, a reset placed it) or it wants to move (it makes way for a self-steered agent); after
  the frame's avoidance and parting: a walking agent (on its way, or an arrived one moving
  faster than `WAKE_SPEED`) counts it among the neighbours it avoided, a moving agent the
  step does not drive (self-steered, or under a joint plan) comes within ORCA's neighbour
  distance of it, or parting found it pressed deeper than the allowance by an awake one.
  Woken after the frame, it takes part in the next one in full.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from sim.crowd.parting import FoundPairs, SeenNeighbours
from sim.crowd.rows import AgentRows, lengths
from sim.crowd.settings import StepSettings
from sim.crowd.state import AgentState

SLEEP_SPEED = 0.05
"""An arrived agent slower than this fraction of its speed may sleep."""
WAKE_SPEED = 0.2
"""An arrived agent faster than this fraction of its speed is making way: it wakes others (a
cluster's agents creep as they settle, and waking on any creep kept every one awake)."""
ARRIVED = tuple(AgentState).index(AgentState.ARRIVED)
MOVING = tuple(AgentState).index(AgentState.MOVING)


def wake_changed(rows: AgentRows, driven: NDArray[np.intp]) -> None:
    """Wake the `driven` sleepers whose state, replan or place changed since they fell asleep."""
    asleep = rows.asleep[driven]
    if not asleep.any():
        return
    moved = (rows.positions[driven] != rows.home[driven]).any(axis=1)
    kept = (rows.state[driven] == ARRIVED) & (rows.pending[driven] < 0) & ~moved
    rows.asleep[driven] = asleep & kept


def wake_wanting(rows: AgentRows, driven: NDArray[np.intp], preferred: NDArray[np.float64]) -> None:
    """Wake the `driven` sleepers whose `preferred` velocity (one row each) is not zero."""
    rows.asleep[driven] &= ~(preferred != 0.0).any(axis=1)


def settle_sleep(
    rows: AgentRows,
    driven: NDArray[np.intp],
    seen: SeenNeighbours | None,
    pairs: FoundPairs,
    settings: StepSettings,
) -> None:
    """After the frame's move: put the resting `driven` agents to sleep, wake the disturbed.

    `seen` is the frame's ORCA neighbour lists (None when nobody was active or ORCA did not
    search every row: then any walker wakes every sleeper) and `pairs` parting's pairs.
    """
    speed = lengths(rows.velocities[driven])
    slow = speed <= SLEEP_SPEED * rows.speeds[driven]
    fast = speed > WAKE_SPEED * rows.speeds[driven]
    resting = (rows.state[driven] == ARRIVED) & slow & (rows.still[driven] >= settings.still_frames)
    disturbed = np.zeros(len(rows), dtype=np.bool_)
    walking = driven[~rows.asleep[driven] & ((rows.state[driven] == MOVING) | fast)]
    if seen is None or not seen.near.shape[1]:
        # No lists (nobody was active, or ORCA did not search every row): any walker wakes all.
        disturbed[driven] = len(walking) > 0
    else:
        near = seen.near[walking].ravel()
        disturbed[near[near >= 0]] = True
    reach = (
        settings.neighbour_dist(rows.speeds, rows.radii) if seen is None else seen.neighbour_dist
    )
    _near_outsiders(rows, driven, driven[rows.asleep[driven] | resting], reach, disturbed)
    # Pressed deeper than the allowance: parting would push it, so it must be free to give.
    gap = rows.positions[pairs.second] - rows.positions[pairs.first]
    pressed = np.hypot(gap[:, 0], gap[:, 1]) < pairs.reach
    disturbed[pairs.second[pressed]] = True
    falling = driven[resting & ~rows.asleep[driven] & ~disturbed[driven]]
    rows.home[falling] = rows.positions[falling]
    rows.velocities[falling] = 0.0
    rows.asleep[falling] = True
    rows.asleep[driven] &= ~disturbed[driven]


def _near_outsiders(
    rows: AgentRows,
    driven: NDArray[np.intp],
    sleepers: NDArray[np.intp],
    reach: float,
    disturbed: NDArray[np.bool_],
) -> None:
    """Mark the `sleepers` within `reach` of a row outside `driven` moving or on its way.

    Self-steered agents and those under a joint plan were not searched by this step's ORCA;
    they are few, so each is measured against every sleeper (and every agent about to sleep).
    """
    if not len(sleepers):
        return
    outside = np.ones(len(rows), dtype=np.bool_)
    outside[driven] = False
    on_way = (rows.velocities != 0.0).any(axis=1) | (rows.state != ARRIVED)
    here = rows.positions[sleepers]
    for mover in np.flatnonzero(outside & on_way):
        gap = here - rows.positions[mover]
        disturbed[sleepers[gap[:, 0] * gap[:, 0] + gap[:, 1] * gap[:, 1] <= reach * reach]] = True
