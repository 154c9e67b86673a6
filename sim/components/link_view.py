"""LinkView: draws the scene's links, each kind its own way, in the palette's link colour.

A jump is an arc from its foot to where it lands, a ladder two rails up, over and down with
rungs between them (the way an agent climbs it, `sim.crowd.rules.link_crossing`), a teleport a
ring at each end. A one-way link has a chevron on the ground at its far end, pointing on.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from sim.config import PALETTE
from sim.crowd.rules.link_crossing import JUMP_HEIGHT, LADDER_HEIGHT, LADDER_RUNGS
from sim.engine import Component, Gizmos
from sim.navigation.links import NavLink, lanes

if TYPE_CHECKING:
    from sim.components.grid_manager import GridManager

Point = tuple[float, float]
Segment = tuple[tuple[float, float, float], tuple[float, float, float]]

LINKS_KEY = "links"
LINK_Z = 0.05  # over the ground and the block shading
THICKNESS = 4.0
ARC_STEPS = 16
RING_STEPS = 24
RING_RADIUS = 0.45  # of a cell
RAIL_OFFSET = 0.25  # of a cell, each side of the ladder's line
CHEVRON = 0.3  # of a cell: the one-way chevron's arms


class LinkView(Component):
    """Draws `grid.links` every frame (see the module); nothing when there are none."""

    def __init__(self, grid: GridManager) -> None:
        super().__init__()
        self._grid = grid
        self._drawn: tuple[tuple[NavLink, ...], NDArray[np.float32]] | None = None

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Draw the links' segments, built again only when the links change."""
        links = self._grid.links
        if not links:
            return
        if self._drawn is None or self._drawn[0] != links:
            self._drawn = (links, self._segments(links))
        gizmos.lines(LINKS_KEY, self._drawn[1], PALETTE.link, thickness=THICKNESS)

    def _segments(self, links: tuple[NavLink, ...]) -> NDArray[np.float32]:
        size = self._grid.grid_cell_size
        segments: list[Segment] = []
        for link in links:
            for start, end in lanes(link):
                a = self._grid.cell_to_world(start)
                b = self._grid.cell_to_world(end)
                segments += _shape(link.kind, a, b, size)
                if not link.bidirectional:
                    segments += _chevron(a, b, size)
        return np.asarray(segments, dtype=np.float32)


def _shape(kind: str, a: Point, b: Point, size: float) -> list[Segment]:
    if kind == "teleport":
        return _ring(a, RING_RADIUS * size) + _ring(b, RING_RADIUS * size)
    if kind == "ladder":
        return _ladder(a, b, size)
    span = math.dist(a, b)
    top = 4.0 * JUMP_HEIGHT * max(span, 1.0)
    points = [
        (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, LINK_Z + top * t * (1.0 - t))
        for t in (step / ARC_STEPS for step in range(ARC_STEPS + 1))
    ]
    return list(itertools.pairwise(points))


def _ring(centre: Point, radius: float) -> list[Segment]:
    points = [
        (
            centre[0] + radius * math.cos(2.0 * math.pi * step / RING_STEPS),
            centre[1] + radius * math.sin(2.0 * math.pi * step / RING_STEPS),
            LINK_Z,
        )
        for step in range(RING_STEPS + 1)
    ]
    return list(itertools.pairwise(points))


def _ladder(a: Point, b: Point, size: float) -> list[Segment]:
    """Two rails up at `a`, across the top and down at `b`, with rungs between them."""
    length = math.dist(a, b) or 1.0
    side = (
        -(b[1] - a[1]) / length * RAIL_OFFSET * size,
        (b[0] - a[0]) / length * RAIL_OFFSET * size,
    )
    top = LINK_Z + LADDER_HEIGHT
    segments: list[Segment] = []
    for sign in (1.0, -1.0):
        dx, dy = side[0] * sign, side[1] * sign
        foot_a = (a[0] + dx, a[1] + dy, LINK_Z)
        foot_b = (b[0] + dx, b[1] + dy, LINK_Z)
        top_a, top_b = (foot_a[0], foot_a[1], top), (foot_b[0], foot_b[1], top)
        segments += [(foot_a, top_a), (top_a, top_b), (top_b, foot_b)]
    for rung in range(1, LADDER_RUNGS + 1):
        z = LINK_Z + LADDER_HEIGHT * rung / LADDER_RUNGS
        for foot in (a, b):
            segments.append(
                (
                    (foot[0] + side[0], foot[1] + side[1], z),
                    (foot[0] - side[0], foot[1] - side[1], z),
                )
            )
    return segments


def _chevron(a: Point, b: Point, size: float) -> list[Segment]:
    """A `>` on the ground just before `b`, pointing from `a` on to `b`."""
    length = math.dist(a, b) or 1.0
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    arm = CHEVRON * size
    tip = (b[0] - ux * RING_RADIUS * size, b[1] - uy * RING_RADIUS * size, LINK_Z)
    left = (tip[0] - (ux + uy) * arm, tip[1] - (uy - ux) * arm, LINK_Z)
    right = (tip[0] - (ux - uy) * arm, tip[1] - (uy + ux) * arm, LINK_Z)
    return [(left, tip), (right, tip)]
