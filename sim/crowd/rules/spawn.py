"""Spread a spawn: agents added on top of others are moved to the nearest free places.

A burst of agents spawned on one point (a crowd whose area is a dot, a script spawning at a
door) would otherwise start as one stack of discs; avoidance cannot part discs that share a
centre, and the parting pushes of a hundred of them fight each other for seconds. So, as Detour
asks for a valid position before an agent joins, the crowd places each newly added agent that
sinks deeper than `SPAWN_OVERLAP` of the radii's sum into another: on the nearest point of a
hexagonal pattern of rings round where it was put (spacing its diameter and `SPAWN_GAP`), whose
disc is clear of walls (`sim.crowd.disc_walls`) and of every agent placed so far. Agents are
placed in row order, so a spawn spreads the same way every time; agents added apart are left
exactly where they were put.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

SPAWN_OVERLAP = 0.1
"""Overlaps up to this fraction of the two radii's sum are left for avoidance to settle."""
SPAWN_GAP = 0.05
"""Spread discs stand this fraction of their diameter apart."""
MAX_RINGS = 64
"""Rings searched round a spawn point before the agent is left where it was put."""

WallsHit = Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.bool_]]
"""Whether discs (world centres (m, 2), radii (m,)) overlap a wall."""


def spread_spawned(
    positions: NDArray[np.float64],
    radii: NDArray[np.float64],
    spawned: NDArray[np.intp],
    hits_wall: WallsHit,
) -> int:
    """Move the `spawned` rows of `positions` (in place) off the discs they sink into.

    Returns how many were moved.

    >>> points = np.zeros((3, 2))
    >>> spread_spawned(points, np.full(3, 0.4), np.arange(3), lambda p, r: np.zeros(len(p), bool))
    2
    >>> bool(np.hypot(*(points[1] - points[0])) >= 0.8)
    True
    """
    if not len(spawned):
        return 0
    size = 2.0 * float(radii.max()) * (1.0 + SPAWN_GAP)
    if size <= 0.0:
        return 0
    fresh = np.zeros(len(positions), dtype=bool)
    fresh[spawned] = True
    buckets: defaultdict[tuple[int, int], list[int]] = defaultdict(list)
    for kept in np.flatnonzero(~fresh).tolist():
        buckets[_bucket(positions[kept], size)].append(kept)
    moved = 0
    for row in spawned.tolist():
        radius = float(radii[row])
        here = positions[row].copy()
        if _too_close(positions, radii, buckets, here, radius, size, SPAWN_OVERLAP):
            spot = _free_spot(positions, radii, buckets, here, radius, size, hits_wall)
            if spot is not None:
                positions[row] = spot
                moved += 1
        buckets[_bucket(positions[row], size)].append(row)
    return moved


def _free_spot(
    positions: NDArray[np.float64],
    radii: NDArray[np.float64],
    buckets: dict[tuple[int, int], list[int]],
    centre: NDArray[np.float64],
    radius: float,
    size: float,
    hits_wall: WallsHit,
) -> NDArray[np.float64] | None:
    """The nearest point of the rings round `centre` where a disc of `radius` is clear."""
    step = 2.0 * radius * (1.0 + SPAWN_GAP)
    for ring in range(1, MAX_RINGS + 1):
        count = 6 * ring
        angles = np.arange(count) * (2.0 * math.pi / count)
        spots = centre + ring * step * np.column_stack([np.cos(angles), np.sin(angles)])
        clear = ~hits_wall(spots, np.full(count, radius))
        for spot in spots[clear]:
            if not _too_close(positions, radii, buckets, spot, radius, size, -SPAWN_GAP):
                return np.asarray(spot)
    return None


def _too_close(
    positions: NDArray[np.float64],
    radii: NDArray[np.float64],
    buckets: dict[tuple[int, int], list[int]],
    point: NDArray[np.float64],
    radius: float,
    size: float,
    allowed: float,
) -> bool:
    """Whether a disc at `point` sinks deeper than `allowed` of the radii's sum into one."""
    col, row = _bucket(point, size)
    near = [
        other
        for d_col in (-1, 0, 1)
        for d_row in (-1, 0, 1)
        for other in buckets.get((col + d_col, row + d_row), ())
    ]
    if not near:
        return False
    reach = radii[near] + radius
    apart = np.hypot(*(positions[near] - point).T)
    return bool(((reach - apart) > allowed * reach).any())


def _bucket(point: NDArray[np.float64], size: float) -> tuple[int, int]:
    return (math.floor(float(point[0]) / size), math.floor(float(point[1]) / size))
