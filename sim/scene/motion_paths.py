"""Where a scene's moving objects are at simulated time `t`: pure functions, no Panda3D.

Motion is a function of time alone, never of the frames before: the same `t` always gives the
same place, heading and door state, whatever the frame rate, so runs repeat exactly and a
render test can check a node against these numbers. `sim.components.motion.SceneMotion` puts
the nodes there each frame.

- A mover (`MoverRoute`) travels its route at constant speed: from its origin through the
  waypoints, waiting at every stop, then back to the origin (loop) or the way it came
  (pingpong), for ever. Before time 0 it stands at its origin.
- A rotator turns at a constant rate: ``heading_at(h0, rate, t) = h0 + rate * t`` (mod 360).
- A door is open from `phase_s` for ``open_fraction * period_s``, then closed for the rest of
  the period, and so on, the schedule running backwards the same way (`door_is_open`). While
  closed it stands at full height, except that it rises from a low slit during the first
  `DOOR_RAMP_S` of the closed part and sinks back to the slit during the last (each at most
  half of the closed part); at the instant it opens it drops wholly below the ground
  (`door_height`). So it blocks (its top is above the ground) exactly while it is closed.
"""

from __future__ import annotations

import bisect
import itertools
import math
from dataclasses import dataclass
from typing import Final

from sim.config import DoorConfig, MoverConfig, MoverMode

Point = tuple[float, float]

DOOR_RAMP_S: Final = 0.4
"""How long a door takes to rise after it closes, and to sink before it opens."""
DOOR_SLIT: Final = 0.05
"""The share of its height a closed door shows at the ends of its ramps: still blocking."""
DOOR_OPEN: Final = 0.0
"""`door_height` of an open door: wholly below the ground, blocking nothing."""


@dataclass(frozen=True, slots=True)
class MoverRoute:
    """A mover's route as legs with their start times, so any time maps to a place at once.

    Build one with `MoverRoute.of(origin, config)`. The cycle is the legs in order, each
    followed by a wait of `wait_s`; `cycle_s` is its length (0 for a route that never leaves
    its origin and never waits).
    """

    points: tuple[Point, ...]  # the leg ends in travel order; points[0] is the origin
    starts: tuple[float, ...]  # starts[i]: when leg i (points[i] -> points[i + 1]) begins
    durations: tuple[float, ...]  # how long leg i takes, without the wait after it
    cycle_s: float

    @classmethod
    def of(cls, origin: Point, config: MoverConfig) -> MoverRoute:
        """The route of a mover that starts at world `origin`.

        >>> route = MoverRoute.of((0.0, 0.0), MoverConfig(((4.0, 0.0),), speed=2.0, wait_s=1.0))
        >>> route.points, route.cycle_s
        (((0.0, 0.0), (4.0, 0.0), (0.0, 0.0)), 6.0)
        """
        stops = [origin, *config.waypoints]
        if config.mode is MoverMode.LOOP:
            points = [*stops, origin]
        else:
            points = [*stops, *reversed(stops[:-1])]
        durations = [math.dist(a, b) / config.speed for a, b in itertools.pairwise(points)]
        starts, clock = [], 0.0
        for duration in durations:
            starts.append(clock)
            clock += duration + config.wait_s
        return cls(tuple(points), tuple(starts), tuple(durations), clock)

    def position_at(self, t: float) -> Point:
        """Where the mover is `t` seconds after it set off from its origin.

        >>> route = MoverRoute.of((0.0, 0.0), MoverConfig(((4.0, 0.0),), speed=2.0, wait_s=1.0))
        >>> [route.position_at(t) for t in (1.0, 2.5, 4.0, 6.0)]
        [(2.0, 0.0), (4.0, 0.0), (2.0, 0.0), (0.0, 0.0)]
        """
        if t <= 0.0 or self.cycle_s <= 0.0:
            return self.points[0]
        into = math.fmod(t, self.cycle_s)
        leg = max(bisect.bisect_right(self.starts, into) - 1, 0)
        along = into - self.starts[leg]
        start, end = self.points[leg], self.points[leg + 1]
        duration = self.durations[leg]
        if along >= duration:  # waiting at the leg's end (or a leg of no length)
            return end
        share = along / duration
        return (start[0] + (end[0] - start[0]) * share, start[1] + (end[1] - start[1]) * share)

    def resumed(self, old: MoverRoute, t: float) -> float:
        """When on this route a mover that was `t` seconds into `old` carries on from.

        For a new speed, wait or mode mid-run: the same place, on the same leg at the same share
        of it (or as far into the wait at its end, at most the new wait) where this route has
        that leg, else on the nearest leg of this route. `t` at or before the start stays.

        >>> old = MoverRoute.of((0.0, 0.0), MoverConfig(((4.0, 0.0),), speed=2.0))
        >>> new = MoverRoute.of((0.0, 0.0), MoverConfig(((4.0, 0.0),), speed=1.0))
        >>> new.resumed(old, 1.0), new.position_at(new.resumed(old, 1.0))
        (2.0, (2.0, 0.0))
        """
        if t <= 0.0 or old.cycle_s <= 0.0 or self.cycle_s <= 0.0:
            return min(t, 0.0)
        into = math.fmod(t, old.cycle_s)
        leg = max(bisect.bisect_right(old.starts, into) - 1, 0)
        along, duration = into - old.starts[leg], old.durations[leg]
        start, end = old.points[leg], old.points[leg + 1]
        if along >= duration:  # waiting at the leg's end
            share, waited = 1.0, along - duration
        else:
            share, waited = along / duration, None
        here = (start[0] + (end[0] - start[0]) * share, start[1] + (end[1] - start[1]) * share)
        legs = range(len(self.durations))
        same = [i for i in legs if (self.points[i], self.points[i + 1]) == (start, end)]
        if same:
            new_leg = min(same, key=lambda i: abs(i - leg))
        else:
            new_leg = min(legs, key=lambda i: (_distance_to_leg(self, i, here), abs(i - leg)))
            share = _share_along(self.points[new_leg], self.points[new_leg + 1], here)
        begins, takes = self.starts[new_leg], self.durations[new_leg]
        if waited is not None and share >= 1.0:
            return begins + takes + min(waited, self._wait_after(new_leg))
        return begins + share * takes

    def _wait_after(self, leg: int) -> float:
        ends = self.starts[leg + 1] if leg + 1 < len(self.starts) else self.cycle_s
        return max(ends - self.starts[leg] - self.durations[leg], 0.0)


def _share_along(a: Point, b: Point, point: Point) -> float:
    """The share of segment a-b at the foot of `point`'s perpendicular, within [0, 1]."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length2 = dx * dx + dy * dy
    if length2 == 0.0:
        return 0.0
    share = ((point[0] - a[0]) * dx + (point[1] - a[1]) * dy) / length2
    return min(max(share, 0.0), 1.0)


def _distance_to_leg(route: MoverRoute, leg: int, point: Point) -> float:
    a, b = route.points[leg], route.points[leg + 1]
    share = _share_along(a, b, point)
    foot = (a[0] + (b[0] - a[0]) * share, a[1] + (b[1] - a[1]) * share)
    return math.dist(foot, point)


def heading_at(heading_deg: float, deg_per_s: float, t: float) -> float:
    """A rotator's heading `t` seconds in, from `heading_deg` at time 0, in [0, 360).

    >>> heading_at(350.0, 30.0, 1.0), heading_at(0.0, -90.0, 1.0)
    (20.0, 270.0)
    """
    heading = (heading_deg + deg_per_s * t) % 360.0
    return 0.0 if heading >= 360.0 else heading  # -1e-17 % 360 rounds up to 360


def door_cycle_time(door: DoorConfig, t: float) -> float:
    """Seconds since the door last opened: in [0, period_s), the schedule extended both ways.

    >>> door_cycle_time(DoorConfig(6.0, 0.5, phase_s=1.0), 0.0)
    5.0
    """
    into = (t - door.phase_s) % door.period_s
    # A tiny negative remainder rounds up to the period itself: that is the cycle's start.
    return 0.0 if into >= door.period_s else into


def door_is_open(door: DoorConfig, t: float) -> bool:
    """Whether the door is open (sunk, blocking nothing) at time `t`.

    >>> door = DoorConfig(period_s=6.0, open_fraction=0.5)
    >>> [door_is_open(door, t) for t in (0.0, 2.9, 3.0, 5.9, 6.0)]
    [True, True, False, False, True]
    """
    return door_cycle_time(door, t) < door.open_fraction * door.period_s


def door_ramp_s(door: DoorConfig) -> float:
    """How long the door rises after closing and sinks before opening: `DOOR_RAMP_S`, or less.

    At most half the closed part, so a short closed part rises and sinks without standing.
    """
    closed_s = door.period_s * (1.0 - door.open_fraction)
    return min(DOOR_RAMP_S, closed_s / 2.0)


def door_height(door: DoorConfig, t: float) -> float:
    """The share of its full height the door stands above the ground at `t`.

    `DOOR_OPEN` (0) exactly while it is open; while closed at least `DOOR_SLIT`, rising to 1
    over the first `door_ramp_s` of the closed part and sinking back over the last.

    >>> door = DoorConfig(period_s=6.0, open_fraction=0.5)
    >>> [round(door_height(door, t), 3) for t in (1.0, 3.0, 3.2, 4.0, 5.8, 5.999)]
    [0.0, 0.05, 0.525, 1.0, 0.525, 0.052]
    """
    into = door_cycle_time(door, t)
    opened_s = door.open_fraction * door.period_s
    if into < opened_s:
        return DOOR_OPEN
    closed_for = into - opened_s
    closed_s = door.period_s - opened_s
    ramp = door_ramp_s(door)
    if ramp <= 0.0:
        return 1.0
    up = min(closed_for, max(closed_s - closed_for, 0.0)) / ramp
    return DOOR_SLIT + (1.0 - DOOR_SLIT) * min(up, 1.0)
