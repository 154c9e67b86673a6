"""How a self-steered agent takes a link: its route in legs, and the crossing itself.

A path that uses links (`sim.navigation.links.link_hops`) is cut into legs at each link: the
agent walks a leg on the grid to the link's start cell, then crosses to its end cell in the
link's cost-based time, ``cost * cell_size / speed`` (a link of cost 0 is taken at once), and
walks on. How it looks depends on the link's kind (`Crossing.pose`): a jump arcs up and down,
a ladder climbs up at the start, crosses over the top and climbs down at the end, a teleport
is hidden for the crossing and shows again at the end.

>>> crossing = Crossing("jump", (0.0, 0.0), (4.0, 0.0), duration_s=1.0)
>>> crossing.advance(0.5)
False
>>> crossing.pose()  # half-way: at the top of its arc
(2.0, 0.0, 2.4, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sim.navigation.links import NavLink

Cell = tuple[int, int]
Point = tuple[float, float]

JUMP_HEIGHT = 0.6  # a jump's top, as a share of the distance it spans (1 at least)
LADDER_HEIGHT = 2.0  # world units a ladder climbs: over a wall of the usual height
LADDER_RUNGS = 6  # a climb goes up rung by rung
CLIMB_SHARE = 1.0 / 3.0  # of the crossing's time spent on each climb of a ladder


@dataclass(frozen=True, slots=True)
class Leg:
    """One stretch of a route: grid moves through `cells`, then `link` (None: the last leg)."""

    cells: tuple[Cell, ...]
    link: NavLink | None


def route_legs(cells: Sequence[Cell], hops: Sequence[NavLink | None]) -> list[Leg]:
    """`cells` cut at each link hop (`hops[i]` is the step ``cells[i] -> cells[i + 1]``).

    Each leg ends on the cell its link leaves from; the next one starts on the cell the link
    arrives at.

    >>> hop = NavLink((0, 1), (0, 5))
    >>> [(leg.cells, leg.link is hop) for leg in route_legs([(0, 0), (0, 1), (0, 5)], [None, hop])]
    [(((0, 0), (0, 1)), True), (((0, 5),), False)]
    """
    legs = []
    leg: list[Cell] = [cells[0]]
    for index, hop in enumerate(hops):
        if hop is None:
            leg.append(cells[index + 1])
            continue
        legs.append(Leg(tuple(leg), hop))
        leg = [cells[index + 1]]
    legs.append(Leg(tuple(leg), None))
    return legs


def leg_points(
    leg: Leg,
    to_world: Callable[[Cell], Point],
    smooth: Callable[[list[Cell]], list[Cell]],
) -> list[Point]:
    """The waypoints of a leg: its smoothed cells' centres after the first (at least one)."""
    kept = smooth(list(leg.cells)) if len(leg.cells) > 2 else list(leg.cells)
    return [to_world(cell) for cell in kept[1:]] or [to_world(leg.cells[0])]


class Crossing:
    """An agent crossing one link: from `start` to `end` (world x, y) over `duration_s`."""

    def __init__(self, kind: str, start: Point, end: Point, *, duration_s: float) -> None:
        self.kind = kind
        self.start, self.end = start, end
        self.duration_s = duration_s
        self.elapsed_s = 0.0

    @property
    def fraction(self) -> float:
        """How much of the crossing is done, 0 to 1."""
        if self.duration_s <= 0.0:
            return 1.0
        return min(self.elapsed_s / self.duration_s, 1.0)

    def advance(self, dt: float) -> bool:
        """Cross on for `dt` seconds; True once over."""
        self.elapsed_s += dt
        return self.fraction >= 1.0

    def pose(self) -> tuple[float, float, float, bool]:
        """``(x, y, height above the ground, shown)`` now (see the module)."""
        t = self.fraction
        (x0, y0), (x1, y1) = self.start, self.end
        if self.kind == "teleport":
            x, y = (x1, y1) if t >= 1.0 else (x0, y0)
            return (x, y, 0.0, t >= 1.0)
        if self.kind == "ladder":
            up = min(t / CLIMB_SHARE, 1.0)
            down = min(max((1.0 - t) / CLIMB_SHARE, 0.0), 1.0)
            across = min(max((t - CLIMB_SHARE) / (1.0 - 2.0 * CLIMB_SHARE), 0.0), 1.0)
            climb = min(up, down)  # 0 at either foot, 1 over the top
            height = LADDER_HEIGHT * math.floor(climb * LADDER_RUNGS) / LADDER_RUNGS
            return (x0 + (x1 - x0) * across, y0 + (y1 - y0) * across, height, True)
        span = math.hypot(x1 - x0, y1 - y0)
        height = 4.0 * JUMP_HEIGHT * max(span, 1.0) * t * (1.0 - t)
        return (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, height, True)
