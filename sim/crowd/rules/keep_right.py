"""Keep right: two agents meeting head-on each bend to their own right, early and by a rule.

Reciprocal avoidance (ORCA) picks the side to pass from the geometry: two agents a hair off
one line pass on whichever side the hair points to, so a head-on meeting ends left shoulder
to left shoulder or right to right by chance, and a near-perfect one may dither before it
commits. Pedestrians and Detour's crowd settle it by convention; so does this crowd: an agent
that sees another coming toward it (`HEAD_ON_COS`) that would pass closer than the two radii
and a margin (`CLEARANCE`) within the time horizon bends its preferred velocity to its right,
by half of the sideways gap still missing over the time left (the other takes the other
half), keeping its speed. ORCA then finds both already diverging the same way: each keeps the
other on its left. Where others cross as well (a crossing of four), it leaves the choice to
avoidance.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

HEAD_ON_COS = -0.7
"""The other's velocity, against our heading, at most this cosine (about 135 degrees or more
apart) counts as coming toward us."""
CLEARANCE = 1.25
"""The two radii's sum times this is the sideways gap kept when passing."""
CROSSING_COS = 0.5
"""Others moving at more than 60 degrees to our heading (and not oncoming) are crossing."""
MOVING_FRACTION = 0.2
"""Others slower than this fraction of our speed are standing: ORCA goes round them."""

Point = tuple[float, float]


def keep_right(
    here: Point,
    preferred: Point,
    radius: float,
    others: NDArray[np.float64],
    velocities: NDArray[np.float64],
    radii: NDArray[np.float64],
    *,
    horizon_s: float,
    share: NDArray[np.float64] | None = None,
) -> Point:
    """`preferred` bent right so that each oncoming agent of `others` passes on our left.

    `others` (m, 2), `velocities` (m, 2) and `radii` (m,) are the neighbours; `preferred` is
    returned as it is when none is oncoming within `horizon_s`, and always keeps its length.
    `share` (m,) is our part of the gap to each (their avoidance priorities'; None: half).

    >>> x, y = keep_right((0.0, 0.0), (1.0, 0.0), 0.4, np.array([[4.0, 0.0]]),
    ...                   np.array([[-1.0, 0.0]]), np.array([0.4]), horizon_s=2.0)
    >>> bool(y < 0.0 < x), round(math.hypot(x, y), 9)   # turned to its right, same speed
    (True, 1.0)
    """
    speed = math.hypot(*preferred)
    if speed <= 0.0 or not len(others):
        return preferred
    ux, uy = preferred[0] / speed, preferred[1] / speed
    nx, ny = uy, -ux  # our right
    dx, dy = others[:, 0] - here[0], others[:, 1] - here[1]
    along = dx * ux + dy * uy
    lateral = dx * nx + dy * ny  # > 0: the other is on our right
    their_along = velocities[:, 0] * ux + velocities[:, 1] * uy
    their_speed = np.hypot(velocities[:, 0], velocities[:, 1])
    oncoming = (their_speed >= MOVING_FRACTION * speed) & (their_along <= HEAD_ON_COS * their_speed)
    closing = speed - their_along
    meet_s = np.divide(along, closing, out=np.full_like(along, np.inf), where=closing > 0.0)
    gap = (radius + radii) * CLEARANCE
    missing = lateral + gap  # how far right we still have to be for the other to pass left
    due = oncoming & (along > 0.0) & (meet_s <= horizon_s) & (missing > 0.0)
    if not due.any():
        return preferred
    # Crossing traffic near by (neither oncoming nor going our way): the convention is for
    # two streams meeting; where more cross, a bend would carry us into the crossers' path.
    near = np.hypot(dx, dy) <= (speed + their_speed) * horizon_s
    moving = their_speed >= MOVING_FRACTION * speed
    if (near & moving & ~oncoming & (their_along < CROSSING_COS * their_speed)).any():
        return preferred
    # Our part of the missing gap (half, or as priorities split it), over the time left; at
    # most our whole speed sideways.
    part = missing[due] / 2.0 if share is None else missing[due] * share[due]
    sideways = float(np.max(part / np.maximum(meet_s[due], 1e-3)))
    sideways = min(sideways, speed)
    forward = math.sqrt(speed * speed - sideways * sideways)
    return (ux * forward + nx * sideways, uy * forward + ny * sideways)
