"""The maths of one agent's ORCA step: its half-planes and the linear programs over them.

The Python reference of `_avoidance.c` (see `sim.crowd.avoidance` for the contract): the
same operations in the same order, on plain floats, so the two agree to the last bit. After
van den Berg, Guy, Lin and Manocha, "Reciprocal n-body collision avoidance" (2011), and the
algorithm of their RVO2 library, written anew.

>>> lines = [(0.0, 0.5, -1.0, 0.0)]      # allowed: velocities with y <= 0.5
>>> solve_velocity(lines, 2.0, 0.0, 1.0, sidestep=False)
(0.0, 0.5)
"""

from __future__ import annotations

import math

EPSILON = 1e-5
"""Below this, two half-plane directions (unit vectors) count as parallel (RVO2's value)."""

PARTING = (
    (1.0, 0.0),
    (0.6, 0.8),
    (0.0, 1.0),
    (-0.8, 0.6),
    (-1.0, 0.0),
    (-0.6, -0.8),
    (0.0, -1.0),
    (0.8, -0.6),
)
"""Directions to part two agents on the same point with the same velocity, where geometry
gives none (see `parting`); literals that C and Python read to the same doubles."""

Line = tuple[float, float, float, float]
"""A half-plane of velocities: a point on its border and the border's unit direction
(px, py, dx, dy); the allowed side is to the left of the direction."""


def parting(i: int, j: int) -> tuple[float, float]:
    """The unit direction in which agent i leaves j when geometry gives none.

    Picked from the pair's indices, so the two take opposite ones and every pair of a stack
    (a crowd spawned on one point) parts in its own direction.
    """
    low, high = min(i, j), max(i, j)
    px, py = PARTING[(low * 7 + high * 3) % len(PARTING)]
    return (-px, -py) if i == low else (px, py)


def solve_velocity(
    lines: list[Line], max_speed: float, pref_x: float, pref_y: float, *, sidestep: bool
) -> tuple[float, float]:
    """The velocity within `max_speed` and every line nearest the preferred one.

    With `sidestep`, an agent the lines hold back turns its preferred velocity to the right
    in proportion to the progress it lost (fully stopped: straight to the right) and solves
    again. Without it, symmetric jams are stable: agents meeting from every side of a circle
    form a ring at the centre, each pushing inward against neighbours mirrored about its own
    line of travel, and stand still forever (measured: 4 at a crossing, 16 and 32 on a
    circle). Turning every blocked agent the same way makes the ring a roundabout; right
    angles were the only turn that unlocked every case measured (1.0 or 1.3 radians left the
    16-agent ring jammed, 2.0 slowed larger rings). Detour's crowd avoidance has a side bias
    for the same reason.
    """
    opt_x, opt_y = _clip_speed(pref_x, pref_y, max_speed)
    rx, ry = _best_velocity(lines, max_speed, opt_x, opt_y)
    opt_sq = opt_x * opt_x + opt_y * opt_y
    if not sidestep or opt_sq <= 0.0:
        return (rx, ry)
    progress = (rx * opt_x + ry * opt_y) / opt_sq
    if progress >= 1.0:
        return (rx, ry)
    blocked = 1.0 - progress if progress > 0.0 else 1.0
    # A blend toward the right-hand normal, not a rotation: no sin or cos, whose last bit
    # could differ between libm's entry points, so C and Python stay identical.
    keep = 1.0 - blocked
    qx, qy = keep * opt_x + blocked * opt_y, keep * opt_y - blocked * opt_x
    q_sq = qx * qx + qy * qy
    if q_sq <= 0.0:
        return (rx, ry)
    scale = math.sqrt(opt_sq) / math.sqrt(q_sq)
    return _best_velocity(lines, max_speed, qx * scale, qy * scale)


def _clip_speed(x: float, y: float, max_speed: float) -> tuple[float, float]:
    """(x, y) shortened to `max_speed` if longer, as linear_program_2 starts."""
    if x * x + y * y > max_speed * max_speed:
        length = math.sqrt(x * x + y * y)
        return (x / length * max_speed, y / length * max_speed)
    return (x, y)


def _best_velocity(
    lines: list[Line], max_speed: float, opt_x: float, opt_y: float
) -> tuple[float, float]:
    failed, result = linear_program_2(lines, max_speed, opt_x, opt_y, False)
    if failed < len(lines):
        result = linear_program_3(lines, failed, max_speed, result)
    return result


def orca_line(
    pos_i: list[float],
    vel_i: list[float],
    radius_i: float,
    pos_j: list[float],
    vel_j: list[float],
    radius_j: float,
    *,
    share: float,
    margin: float,
    inv_tau: float,
    inv_dt: float,
    parting: tuple[float, float],
) -> Line:
    """Agent i's half-plane of velocities that avoid j: i takes `share` of a needed turn.

    The velocity obstacle of j (relative velocities that touch within the horizon) is a
    cone cut off by a circle; u is the smallest change of the relative velocity that takes
    it to the obstacle's border. On a collision course (inside) u leads out and i makes
    ``share`` of it; otherwise u leads in, and i may use ``margin`` of that free room. The
    pair's shares and margins each sum to 1, so together they stay clear (the paper's
    reciprocity, which uses a half of both). Overlapping discs use the step `dt` as the
    horizon, so the pair parts within one step.
    """
    rel_px, rel_py = pos_j[0] - pos_i[0], pos_j[1] - pos_i[1]
    rel_vx, rel_vy = vel_i[0] - vel_j[0], vel_i[1] - vel_j[1]
    dist_sq = rel_px * rel_px + rel_py * rel_py
    combined = radius_i + radius_j
    combined_sq = combined * combined
    if dist_sq > combined_sq:
        # w: from the cut-off circle's centre (rel_p / tau) to the relative velocity.
        wx, wy = rel_vx - inv_tau * rel_px, rel_vy - inv_tau * rel_py
        w_sq = wx * wx + wy * wy
        dot = wx * rel_px + wy * rel_py
        if dot < 0.0 and dot * dot > combined_sq * w_sq and w_sq > 0.0:
            # Nearest to the cut-off circle.
            w_len = math.sqrt(w_sq)
            unit_x, unit_y = wx / w_len, wy / w_len
            dir_x, dir_y = unit_y, -unit_x
            scale = combined * inv_tau - w_len
            ux, uy = scale * unit_x, scale * unit_y
        else:
            # Nearest to one of the cone's legs; the side is where w points.
            leg = math.sqrt(dist_sq - combined_sq)
            if rel_px * wy - rel_py * wx > 0.0:
                dir_x = (rel_px * leg - rel_py * combined) / dist_sq
                dir_y = (rel_px * combined + rel_py * leg) / dist_sq
            else:
                dir_x = -(rel_px * leg + rel_py * combined) / dist_sq
                dir_y = -(rel_py * leg - rel_px * combined) / dist_sq
            along = rel_vx * dir_x + rel_vy * dir_y
            ux, uy = along * dir_x - rel_vx, along * dir_y - rel_vy
    else:
        wx, wy = rel_vx - inv_dt * rel_px, rel_vy - inv_dt * rel_py
        w_sq = wx * wx + wy * wy
        if w_sq > 0.0:
            w_len = math.sqrt(w_sq)
            unit_x, unit_y = wx / w_len, wy / w_len
        else:  # same point, same velocity: no direction to leave in, so take the pair's own
            w_len = 0.0
            unit_x, unit_y = parting
        dir_x, dir_y = unit_y, -unit_x
        scale = combined * inv_dt - w_len
        ux, uy = scale * unit_x, scale * unit_y
    # u points to the allowed side (left of the border) exactly when the pair is on course.
    part = share if dir_x * uy - dir_y * ux > 0.0 else margin
    return (vel_i[0] + part * ux, vel_i[1] + part * uy, dir_x, dir_y)


def linear_program_1(
    lines: list[Line], index: int, radius: float, opt_x: float, opt_y: float, on_rim: bool
) -> tuple[float, float] | None:
    """The point on line `index` within the speed circle and lines[:index], best for `opt`.

    Best is nearest to (opt_x, opt_y), or with `on_rim` furthest along that direction.
    None when that part of the line is empty.
    """
    px, py, dx, dy = lines[index]
    dot = px * dx + py * dy
    discriminant = dot * dot + radius * radius - (px * px + py * py)
    if discriminant < 0.0:
        return None  # the line misses the speed circle
    root = math.sqrt(discriminant)
    t_left, t_right = -dot - root, -dot + root
    for qx, qy, ex, ey in lines[:index]:
        denominator = dx * ey - dy * ex
        numerator = ex * (py - qy) - ey * (px - qx)
        if abs(denominator) <= EPSILON:
            if numerator < 0.0:
                return None  # parallel, and wholly on the forbidden side of the other
            continue
        t = numerator / denominator
        if denominator >= 0.0:
            if t < t_right:
                t_right = t
        elif t > t_left:
            t_left = t
        if t_left > t_right:
            return None
    if on_rim:
        t = t_right if opt_x * dx + opt_y * dy > 0.0 else t_left
    else:
        t = dx * (opt_x - px) + dy * (opt_y - py)
        if t < t_left:
            t = t_left
        elif t > t_right:
            t = t_right
    return (px + t * dx, py + t * dy)


def linear_program_2(
    lines: list[Line], radius: float, opt_x: float, opt_y: float, on_rim: bool
) -> tuple[int, tuple[float, float]]:
    """The velocity within `radius` and every line, nearest `opt` (incremental, in order).

    Returns ``(len(lines), velocity)``, or the index of the first line that left no room and
    the best velocity for the lines before it. With `on_rim`, `opt` is a unit direction and
    the result the furthest point that way.
    """
    if on_rim:
        rx, ry = opt_x * radius, opt_y * radius
    else:
        rx, ry = _clip_speed(opt_x, opt_y, radius)
    for index, (qx, qy, ex, ey) in enumerate(lines):
        if ex * (qy - ry) - ey * (qx - rx) > 0.0:  # the result is on the forbidden side
            moved = linear_program_1(lines, index, radius, opt_x, opt_y, on_rim)
            if moved is None:
                return index, (rx, ry)
            rx, ry = moved
    return len(lines), (rx, ry)


def linear_program_3(
    lines: list[Line], begin: int, radius: float, result: tuple[float, float]
) -> tuple[float, float]:
    """No velocity satisfies every line: minimise the largest violation (a 3-D LP, in 2-D).

    From line `begin` on, each line the current result violates by more than the worst so
    far is met exactly, and the others become constraints on how far along it to move.
    """
    rx, ry = result
    worst = 0.0
    for index in range(begin, len(lines)):
        qx, qy, ex, ey = lines[index]
        if ex * (qy - ry) - ey * (qx - rx) <= worst:
            continue
        projected: list[Line] = []
        for sx, sy, fx, fy in lines[:index]:
            determinant = ex * fy - ey * fx
            if abs(determinant) <= EPSILON:
                if ex * fx + ey * fy > 0.0:
                    continue  # parallel and the same way: this line already covers it
                point_x, point_y = 0.5 * (qx + sx), 0.5 * (qy + sy)
            else:
                t = (fx * (qy - sy) - fy * (qx - sx)) / determinant
                point_x, point_y = qx + t * ex, qy + t * ey
            bx, by = fx - ex, fy - ey
            length = math.sqrt(bx * bx + by * by)
            projected.append((point_x, point_y, bx / length, by / length))
        failed, moved = linear_program_2(projected, radius, -ey, ex, True)
        # A failure here is rounding (the old result is feasible by construction): keep it.
        if failed == len(projected):
            rx, ry = moved
        worst = ex * (qy - ry) - ey * (qx - rx)
    return (rx, ry)
