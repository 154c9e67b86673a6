"""Wall slide: a self-steered agent pressed against a wall by others moves along it.

ORCA knows nothing of walls: beside one it may give an agent a velocity into it, which the
agent will not take, so a crowd pressing it sideways holds it there. The slide keeps the
velocity's x or y part instead, whichever leaves the disc clear of the walls. It slides only
where the slide does what ORCA's velocity was for, not against it:

- never backward (against the way it wants to go): in a one-cell corridor two groups meeting
  head-on would otherwise shove each other back and forth for ever, each retreat making way
  for the other's advance, and the jam rule (`sim.crowd.jams`) would never see them stand;
- never deeper into another disc: half of ORCA's velocity is not collision-free, and the part
  kept could carry the disc into the neighbour the other half stepped round.

Otherwise it keeps ORCA's velocity (which the agent will not take: it stands).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from sim.crowd.rows import AgentRows

Point = tuple[float, float]
Hits = Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.bool_]]
"""Whether discs (world centres (m, 2), radii (m,)) overlap a wall."""

WALL_GRAZE = 1e-6
"""World units a disc may graze a wall by in the slide (rounding, not a step)."""


def wall_slide(
    rows: AgentRows, row: int, preferred: Point, velocity: Point, dt: float, hits: Hits
) -> Point:
    """`velocity` (ORCA's for row `row`, wanting `preferred`) slid along a wall (see the module).

    >>> rows = AgentRows()
    >>> _ = rows.add(positions=(0.5, 0.5), radii=0.4)
    >>> rows.flush()
    >>> wall_north = lambda centres, radii: centres[:, 1] + radii > 1.0
    >>> wall_slide(rows, 0, (1.0, 0.0), (0.6, 0.8), 1.0, wall_north)  # y part dropped
    (0.6, 0.0)
    >>> wall_slide(rows, 0, (1.0, 0.0), (-0.6, 0.8), 1.0, wall_north)  # it would back away
    (-0.6, 0.8)
    """
    here = rows.positions[row]
    radius = float(rows.radii[row]) - WALL_GRAZE
    vx, vy = velocity
    slides = np.array([(vx, vy), (vx, 0.0), (0.0, vy)])
    clear = ~hits(here + slides * dt, np.full(3, radius))
    if clear[0] or not clear[1:].any():
        return velocity
    forward = slides[1:] @ np.asarray(preferred, dtype=np.float64) >= 0.0
    usable = np.flatnonzero(clear[1:] & forward & ~_presses(rows, row, slides[1:] * dt))
    if not len(usable):
        return velocity
    x, y = slides[1 + int(usable[0])]
    return (float(x), float(y))


def _presses(rows: AgentRows, row: int, moves: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Whether each move (k, 2) of row `row` takes it deeper into another disc than it is."""
    here = rows.positions[row]
    gap = rows.positions - here
    reach = rows.radii + rows.radii[row]
    before = np.hypot(gap[:, 0], gap[:, 1])
    after = np.hypot(gap[None, :, 0] - moves[:, None, 0], gap[None, :, 1] - moves[:, None, 1])
    deeper = (after < reach) & (after < before)
    deeper[:, row] = False
    presses: NDArray[np.bool_] = deeper.any(axis=1)
    return presses
