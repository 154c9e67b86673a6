"""Steering math for agents: quaternions about +Z, slerp, and a frame-rate-independent turn.

Quaternions are `(w, x, y, z)` tuples, the order Panda3D's `Quat(r, i, j, k)` takes. Panda3D has
no slerp, so it is written here (after Shoemake, "Animating rotation with quaternion curves",
1985). Headings follow Panda3D: 0 faces +Y, and a positive heading turns counter-clockwise.
"""

from __future__ import annotations

import math

Quaternion = tuple[float, float, float, float]

NEARLY_PARALLEL = 0.9995  # above this cosine, slerp falls back to a normalised lerp
# Facing a waypoint within this many degrees (and passing within its arrival radius) is on
# course. Each straight run to the closest point then ends at most sin(45 deg) = 0.71 times as
# far away as it began, so even an agent that must hit the waypoint's centre closes in fast.
ON_COURSE_DEG = 45.0


def heading_quat(heading_deg: float) -> Quaternion:
    """Return the rotation by `heading_deg` about +Z.

    >>> [round(v, 4) for v in heading_quat(90.0)]
    [0.7071, 0.0, 0.0, 0.7071]
    """
    half = math.radians(heading_deg) / 2.0
    return (math.cos(half), 0.0, 0.0, math.sin(half))


def quat_heading(quat: Quaternion) -> float:
    """Return the heading in degrees, in (-180, 180], of a rotation about +Z.

    >>> round(quat_heading(heading_quat(-135.0)), 6)
    -135.0
    """
    w, _, _, z = quat
    return math.degrees(2.0 * math.atan2(z, w) if w >= 0 else 2.0 * math.atan2(-z, -w))


def look_rotation(dx: float, dy: float) -> Quaternion:
    """Return the rotation that turns the forward axis (+Y) toward the direction `(dx, dy)`.

    A rotation about +Z only, so the agent stays upright however its target lies. A zero
    direction gives the identity.

    >>> round(quat_heading(look_rotation(-1.0, 0.0)), 6)  # facing -X is heading +90
    90.0
    """
    if dx == 0.0 and dy == 0.0:
        return (1.0, 0.0, 0.0, 0.0)
    return heading_quat(math.degrees(math.atan2(-dx, dy)))


def slerp(start: Quaternion, end: Quaternion, t: float) -> Quaternion:
    """Interpolate from `start` (t=0) to `end` (t=1) along the shorter great arc.

    `t` is clamped to [0, 1]; the result is a unit quaternion. Nearly equal rotations use a
    normalised linear blend, where the arc formula divides by a vanishing sine.

    >>> round(quat_heading(slerp(heading_quat(170.0), heading_quat(-170.0), 0.5)), 6)
    180.0
    """
    t = min(max(t, 0.0), 1.0)
    cos_angle = sum(a * b for a, b in zip(start, end, strict=True))
    if cos_angle < 0.0:  # q and -q are the same rotation: take the short way round
        end = (-end[0], -end[1], -end[2], -end[3])
        cos_angle = -cos_angle
    if cos_angle > NEARLY_PARALLEL:
        blended = tuple(a + (b - a) * t for a, b in zip(start, end, strict=True))
        return _normalised(blended)
    angle = math.acos(cos_angle)
    sin_angle = math.sin(angle)
    weight_start = math.sin((1.0 - t) * angle) / sin_angle
    weight_end = math.sin(t * angle) / sin_angle
    mixed = tuple(weight_start * a + weight_end * b for a, b in zip(start, end, strict=True))
    return _normalised(mixed)


def turn_fraction(turn_rate: float, dt: float) -> float:
    """The slerp `t` for one frame: `1 - exp(-turn_rate * dt)`.

    A plain `turn_rate * dt` would turn faster at low frame rates (and overshoot when
    `turn_rate * dt > 1`). This form closes the same fraction of the remaining angle per
    second at any frame rate, and equals `turn_rate * dt` to first order: at 60 fps with
    turn_rate 5 it is 0.0800 against 0.0833.

    >>> round(turn_fraction(5.0, 1 / 60), 4)
    0.08
    """
    return 1.0 - math.exp(-turn_rate * dt)


def step_length(
    speed: float,
    dt: float,
    *,
    distance: float,
    off_deg: float,
    turned: float,
    on_course_within: float,
) -> float:
    """How far an agent moves along its facing this frame, toward a waypoint `distance` away.

    `off_deg` is the angle still to turn after this frame's turn, `turned` the fraction of the
    angle this frame's turn closed (`turn_fraction`), and `on_course_within` the waypoint's
    arrival radius. The full step, `speed * dt * cos(off)` (nothing past 90 degrees), never
    goes past the point of the agent's line closest to the waypoint (`distance * cos(off)`),
    so the waypoint is never overshot. While the agent is off course, that is its line misses
    the waypoint by more than `on_course_within` or it still has more than `ON_COURSE_DEG` to
    turn, the step closes at most the fraction `turned` of that distance, as the turn closes
    that fraction of the angle: the waypoint's bearing then never swings faster than the
    agent turns, the distance shrinks every frame, and a fast agent spirals in instead of
    circling its waypoint for ever. Since `turned` is `1 - exp(-turn_rate * dt)`, this
    slowdown is the same at any frame rate; an agent that can turn in time never feels it.

    >>> far = {"distance": 5.0, "turned": 0.4, "on_course_within": 0.25}
    >>> round(step_length(3.0, 0.1, off_deg=0.0, **far), 6)  # on course, far: full speed
    0.3
    >>> near = {"distance": 0.5, "turned": 0.4, "on_course_within": 0.25}
    >>> step_length(30.0, 0.1, off_deg=0.0, **near)  # on course: up to the waypoint, no further
    0.5
    >>> round(step_length(30.0, 0.1, off_deg=60.0, **near), 6)  # off course: 0.4 of the way
    0.1
    """
    off = math.radians(off_deg)
    cos_off = max(0.0, math.cos(off))
    reach = distance * cos_off  # the point of the agent's line closest to the waypoint
    if off_deg > ON_COURSE_DEG or distance * math.sin(off) > on_course_within:
        reach *= turned
    return min(speed * dt * cos_off, reach)


def distance_to_circle(
    start: tuple[float, float],
    direction: tuple[float, float],
    centre: tuple[float, float],
    radius: float,
) -> float:
    """How far along unit `direction` from `start` the circle of `radius` round `centre` is.

    An agent's last step stops there, not a whole step inside its arrival circle, so where it
    arrives does not depend on the frame rate. Infinite when `start` is inside already or
    the line misses the circle.

    >>> distance_to_circle((0.0, 0.0), (1.0, 0.0), (5.0, 0.0), 1.0)
    4.0
    """
    ox, oy = start[0] - centre[0], start[1] - centre[1]
    along = ox * direction[0] + oy * direction[1]
    gap = ox * ox + oy * oy - radius * radius
    if gap <= 0.0 or along * along < gap:
        return math.inf
    return -along - math.sqrt(along * along - gap)


def angle_between_deg(heading_a: float, heading_b: float) -> float:
    """The absolute difference of two headings in degrees, in [0, 180].

    >>> angle_between_deg(170.0, -170.0)
    20.0
    """
    difference = (heading_a - heading_b) % 360.0
    return min(difference, 360.0 - difference)


def _normalised(values: tuple[float, ...]) -> Quaternion:
    norm = math.sqrt(sum(v * v for v in values))
    w, x, y, z = (v / norm for v in values)
    return (w, x, y, z)
