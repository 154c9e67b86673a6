"""A self-steered agent's turn and step for one frame, with Unity's motion settings applied.

`AgentController` turns by a slerp of `1 - exp(-turn_rate * dt)` of the angle left and steps
along its facing (`sim.crowd.steering.step_length`). Its `AgentConfig` adds, under Unity's
NavMeshAgent names: `angular_speed` caps the slerp's turn at that many degrees a second;
`acceleration` lets the speed it drives at rise by at most `acceleration * dt` a frame and,
with `auto_braking`, fall early enough to stop at the last waypoint's circle (v² = 2ad over
the route still to go); `stopping_distance` widens that circle
(`sim.crowd.rules.motion_limits.stop_radius`). At the defaults (both inf) the step is the one
agents always took. A turn sharper than its speed allows still slows it at once (the step's
cosine), and a wall still stops it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from sim.config import AgentConfig
from sim.crowd.rules.motion_limits import braking_speed, stop_radius
from sim.crowd.steering import (
    Quaternion,
    angle_between_deg,
    distance_to_circle,
    look_rotation,
    quat_heading,
    slerp,
    step_length,
    turn_fraction,
)

Point = tuple[float, float]

ARRIVAL_MARGIN = 1e-4  # world units: the last step stops this far inside the arrival circle


@dataclass(frozen=True, slots=True)
class Steered:
    """One frame's turn and step: the new facing, the step along it, the angle left to turn."""

    rotation: Quaternion
    facing: Point
    step: float
    off_deg: float


def turn_and_step(
    config: AgentConfig,
    rotation: Quaternion,
    position: Point,
    waypoints: Sequence[Point],
    speed_now: float,
    dt: float,
) -> Steered:
    """Turn toward `waypoints[0]` and find the step along the new facing (see the module).

    Args:
        config: The agent's settings.
        rotation: Its facing now.
        position: Where it stands, world `(x, y)`.
        waypoints: The route still to go, at least one point; the last is where it stops.
        speed_now: The speed it moved at last frame, world units per second.
        dt: The frame's length, seconds.
    """
    waypoint = waypoints[0]
    dx, dy = waypoint[0] - position[0], waypoint[1] - position[1]
    desired = look_rotation(dx, dy)
    turned = turn_fraction(config.turn_rate, dt)
    if math.isfinite(config.angular_speed):
        left = angle_between_deg(quat_heading(rotation), quat_heading(desired))
        if left > 0.0:  # a slerp's turn is its fraction of the angle
            turned = min(turned, config.angular_speed * dt / left)
    rotation = slerp(rotation, desired, turned)
    heading = quat_heading(rotation)
    off_deg = angle_between_deg(heading, quat_heading(desired))
    reach = stop_radius(config)
    last = len(waypoints) == 1
    step = step_length(
        _speed(config, position, waypoints, speed_now, dt, reach),
        dt,
        distance=math.hypot(dx, dy),
        off_deg=off_deg,
        turned=turned,
        on_course_within=reach if last else config.arrival_radius,
    )
    radians = math.radians(heading)
    facing = (-math.sin(radians), math.cos(radians))
    if step > 0.0 and last:
        # A little inside the circle: positions pass through float32 nodes and a report
        # rounded to 5 decimals, and a reader checking the arrival radius must see it so.
        inside = reach - min(ARRIVAL_MARGIN, 0.1 * reach)
        step = min(step, distance_to_circle(position, facing, waypoint, inside))
    return Steered(rotation, facing, step, off_deg)


def _speed(
    config: AgentConfig,
    position: Point,
    waypoints: Sequence[Point],
    speed_now: float,
    dt: float,
    reach: float,
) -> float:
    """The speed to drive at this frame: `speed`, reached and shed within `acceleration`."""
    acceleration = config.acceleration
    if math.isinf(acceleration):
        return config.speed
    speed = min(config.speed, speed_now + acceleration * dt)
    if config.auto_braking:
        route = math.dist(position, waypoints[0]) + sum(
            math.dist(a, b) for a, b in itertools.pairwise(waypoints)
        )
        speed = braking_speed(speed, route - reach, acceleration, dt)
        speed = max(speed, min(config.speed, speed_now - acceleration * dt, speed_now))
    return max(speed, 0.0)
