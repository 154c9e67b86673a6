"""One frame of a joint plan's members: where the plan puts them, and how far they may go.

`sim.crowd.jams.handoff` asks the plan's follower where its members stand after a frame,
then moves them there under four rules:

- **settled**: the follower's points kept apart (`sim.crowd.jams.local.kept_apart`) and clear
  of walls, `SETTLE_ROUNDS` times over (a disc pushed off a wall's corner may land on another);
- **no faster than its speed**: a member goes from where it stands towards its settled point
  by at most its speed times the frame (`capped`; that way cleared of walls again). Members
  are not the crowd's to move, but parting still gives them a wall's share of a push from a
  crowd pressing in; setting them back on the plan's point at once jumped them back by the
  whole push in one frame (19 units a second against a speed of 6, in 16 goal groups x 625
  agents);
- **never into a stranger**: a member whose move would take it closer than their radii (less
  `TURN_OVERLAP`) to an agent outside the plan, or to a member off its plan point (pushed, or
  held, and not yet back: the plan's own spacing counts on its point), and nearer than it
  stood, holds still for the frame (`into_others`), and the follower holds its progress
  (`FlowFollower.hold`; a lock-step plan holds as a whole). The plan's cells were free when
  it was made, but in a crowd the member limit keeps some newcomers out: one stood on the cell
  a member walked into, and the member shoved it into the plan's next member (0.108 of two
  radii, the deepest overlap of the 16 x 625 run). A member walking back to its point after a
  push lags behind it, where the plan's spacing does not see it (0.33 of two radii in a
  doorway variant): the others' moves are checked against it too.
- **never into each other**: members on their points are kept apart by the plan, but only
  where they all reach those points; one capped by its speed or held lags behind, and a member
  walking on closed in on a held one at 2.7 units a second (0.103 of two radii, a doorway
  variant of two speeds). So a member whose move would close in too near on a held member
  holds too (`held_apart`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from sim.crowd.disc_walls import Walls
from sim.crowd.grid import CrowdGrid
from sim.crowd.jams.flow import Follower
from sim.crowd.jams.local import TURN_OVERLAP, kept_apart
from sim.crowd.rows import AgentRows

SETTLE_ROUNDS = 4  # times a frame's plan positions are kept apart, then clear of walls
CLOSING = 1e-9  # world units: a move that shortens a gap by less does not close in
OFF_POINT = 1e-6  # world units: a member this far from its last plan point is off it
SPEED_SLACK = 1e-9  # a move this much past its reach is rounding, not a jump: left as it is
TURNING_SPEED = 1e-3  # world units per second: slower agents keep their heading


class WallCache:
    """The grid's `Walls`, rebuilt when its walkable mask changes.

    Args:
        grid: The scene's grid.
    """

    def __init__(self, grid: CrowdGrid) -> None:
        self._grid = grid
        self._walls: tuple[int, Walls] | None = None  # the mask version it was built for

    def clear_of_walls(
        self, positions: NDArray[np.float64], radii: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """`positions` with every disc that overlaps a wall pushed straight out of it.

        The plan's cells are free and no disc is wider than a cell, but its glides are not
        all cell to cell: from where an agent stood to its start cell, or round a block, a
        straight line past a wall's corner can clip it by a few hundredths of a cell.
        """
        grid = self._grid
        if self._walls is None or self._walls[0] != grid.mask_version:
            self._walls = (grid.mask_version, Walls(grid.walkable))
        size, origin = grid.grid_cell_size, np.asarray(grid.origin)
        distance, normal = self._walls[1].nearest((positions - origin) / size)
        depth = np.maximum(radii / size - distance, 0.0)  # inf distance: no wall, no push
        pushed: NDArray[np.float64] = positions + normal * (depth * size)[:, None]
        return pushed

    def settled(
        self, positions: NDArray[np.float64], radii: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """The plan's points kept apart and clear of walls (see the module)."""
        after = positions
        for _ in range(SETTLE_ROUNDS):
            after = self.clear_of_walls(kept_apart(after, radii), radii)
        return after


def move_members(
    rows: AgentRows,
    member_rows: NDArray[np.intp],
    follower: Follower,
    walls: WallCache,
    points: NDArray[np.float64] | None,
    dt: float,
) -> tuple[NDArray[np.float64], bool]:
    """Advance `follower` by `dt` and move its members (`member_rows`) under the four rules.

    `points` are where the plan put its members last frame (None: not yet). Writes the
    members' positions, velocities and headings; returns the plan's points now and whether
    the plan stood still, held (`HELD_S` counts those frames).
    """
    before = rows.positions[member_rows].copy()
    follower.advance(dt)
    radii = rows.radii[member_rows]
    reach = rows.speeds[member_rows] * dt
    target = walls.settled(follower.positions(), radii)
    after = walls.clear_of_walls(capped(before, target, reach), radii)
    checked = np.ones(len(rows), dtype=bool)  # members on their points: the plan's own
    if points is not None and len(points) == len(member_rows):
        on_point = np.hypot(*(before - points).T) <= OFF_POINT
        checked[member_rows[on_point]] = False
    else:
        points = before
        checked[member_rows] = False
    into = into_others(before, after, radii, rows.positions, rows.radii, member_rows, checked)
    held = follower.hold(held_apart(before, after, radii, into))
    after[held] = before[held]
    # A plan held as a whole (lock step) keeps its points: taking the frame's new ones left
    # every member off its point, and each then held the others (doorway variant 18 lost its
    # first plan so). A member held alone may lag its point.
    if held.all():
        target = points
    rows.positions[member_rows] = after
    velocity = (after - before) / dt
    rows.velocities[member_rows] = rows.preferred[member_rows] = velocity
    speed = np.hypot(velocity[:, 0], velocity[:, 1])
    heading = np.degrees(np.arctan2(-velocity[:, 0], velocity[:, 1])) % 360.0
    turning = speed > TURNING_SPEED
    rows.headings[member_rows] = np.where(turning, heading, rows.headings[member_rows])
    return target, bool(held.any() and not (after != before).any())


def capped(
    here: NDArray[np.float64], there: NDArray[np.float64], reach: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Each point of `here` moved towards `there` by at most its `reach` (world units).

    >>> capped(np.array([[0.0, 0.0], [0.0, 0.0]]), np.array([[3.0, 4.0], [0.1, 0.0]]),
    ...        np.array([1.0, 1.0])).tolist()
    [[0.6000000000000001, 0.8], [0.1, 0.0]]
    """
    step = there - here
    length = np.hypot(step[:, 0], step[:, 1])
    over = length > reach * (1.0 + SPEED_SLACK)
    scale = reach / np.where(over, length, 1.0)
    moved: NDArray[np.float64] = np.where(over[:, None], here + step * scale[:, None], there)
    return moved


def into_others(
    here: NDArray[np.float64],
    there: NDArray[np.float64],
    radii: NDArray[np.float64],
    positions: NDArray[np.float64],
    all_radii: NDArray[np.float64],
    members: NDArray[np.intp],
    checked: NDArray[np.bool_],
) -> NDArray[np.bool_]:
    """Which members' moves from `here` to `there` close in on another disc too near.

    The other discs are the `checked` rows of `positions` (radii `all_radii`), each member's
    own row (`members`) left out. Too near: closer than their radii's sum less `TURN_OVERLAP`
    of it. A move away from a disc already that near, or one that stays farther, is free.

    >>> into_others(np.array([[0.0, 0.0], [0.0, 5.0]]), np.array([[0.1, 0.0], [0.1, 5.0]]),
    ...             np.full(2, 0.4), np.array([[0.0, 0.0], [0.0, 5.0], [0.85, 0.0]]),
    ...             np.full(3, 0.4), np.array([0, 1]), np.ones(3, bool)).tolist()
    [True, False]
    """
    blocked = np.zeros(len(here), dtype=bool)
    if not len(here):
        return blocked
    reach = float(radii.max()) + float(all_radii.max(initial=0.0))
    low, high = there.min(axis=0) - reach, there.max(axis=0) + reach
    near = (positions[:, 0] >= low[0]) & (positions[:, 0] <= high[0])
    near &= (positions[:, 1] >= low[1]) & (positions[:, 1] <= high[1]) & checked
    rows = np.flatnonzero(near)
    others, other_radii = positions[rows], all_radii[rows]
    wanted = (radii[:, None] + other_radii[None, :]) * (1.0 - TURN_OVERLAP)
    after = np.hypot(*(there[:, None, :] - others[None, :, :]).transpose(2, 0, 1))
    before = np.hypot(*(here[:, None, :] - others[None, :, :]).transpose(2, 0, 1))
    itself = rows[None, :] == members[:, None]
    closing: NDArray[np.bool_] = ((after < wanted) & (after < before - CLOSING) & ~itself).any(
        axis=1
    )
    return closing


def held_apart(
    here: NDArray[np.float64],
    there: NDArray[np.float64],
    radii: NDArray[np.float64],
    held: NDArray[np.bool_],
) -> NDArray[np.bool_]:
    """`held` grown by every member whose move closes in on a held member too near.

    Members move from `here` to `there` unless held (they stay `here`). Too near: closer than
    their radii's sum less `TURN_OVERLAP` of it, as `into_others`. A member held back stands
    behind its plan point, where the plan's spacing does not see it; two members both moving
    are left to that spacing (holding both of a pair whose glides pass close stalled the plan
    for good). Holding only ever puts a member back where it stood, so this ends.

    >>> held_apart(np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0], [6.0, 0.0]]),
    ...            np.array([[0.5, 0.0], [1.0, 0.0], [5.2, 0.0], [5.8, 0.0]]),
    ...            np.full(4, 0.4), np.array([False, True, False, False])).tolist()
    [True, True, False, False]
    """
    held = held.copy()
    if len(here) < 2 or not held.any():
        return held
    wanted = (radii[:, None] + radii[None, :]) * (1.0 - TURN_OVERLAP)
    before = _distances(here, here)
    np.fill_diagonal(before, np.inf)
    onto_held = _distances(there, here)  # each member moved, the other where it stood
    closing = (onto_held < wanted) & (onto_held < before - CLOSING)
    for _ in range(len(here)):
        grown = held | (closing & held[None, :]).any(axis=1)
        if (grown == held).all():
            break
        held = grown
    return held


def _distances(first: NDArray[np.float64], second: NDArray[np.float64]) -> NDArray[np.float64]:
    """(len(first), len(second)) distances between the points of `first` and of `second`."""
    gap = first[:, None, :] - second[None, :, :]
    distances: NDArray[np.float64] = np.hypot(gap[..., 0], gap[..., 1])
    return distances
