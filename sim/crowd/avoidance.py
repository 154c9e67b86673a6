"""Reciprocal collision avoidance between disc agents (ORCA): each agent's new velocity.

After van den Berg, Guy, Lin and Manocha, "Reciprocal n-body collision avoidance" (2011), and
the algorithm of their RVO2 library (written anew here, in Python and in `_avoidance.c`). For
each neighbour an agent takes a half-plane of velocities that keeps the two discs apart for
`time_horizon` seconds, assuming the neighbour takes its share of the turn; the new velocity
is the one inside every half-plane and within `max_speed` closest to the preferred velocity
(a 2-D incremental linear program). When the half-planes leave no room (a dense crowd), a
3-D linear program picks the velocity that violates the worst of them least, so the agent
still does the best it can. Discs that already overlap get a half-plane that parts them
within one step `dt`. Agents held back turn to their right (``sidestep``, see
`orca.solve_velocity`), so crowds meeting symmetrically pass instead of jamming.

Which neighbours count: every other agent closer than `neighbour_dist` (centre to centre,
strictly), the nearest `max_neighbours` of them, ordered by squared distance and then index,
so results never depend on the order agents are stored in a hash cell. The C kernel finds
them with a uniform spatial hash; the Python reference compares every pair and solves each
agent with `sim.crowd.orca`. Both compute the same sums in the same order and are
bit-identical (tests/unit/test_nav_avoidance.py checks it).

Agents that do not avoid (``active`` False: avoidance switched off, or parked by the caller)
keep their preferred velocity; their neighbours treat them as obstacles that will not take a
share and so make the whole turn themselves. Between two active agents ``priority`` splits
the work: on a collision course agent i makes ``priority[j] / (priority[i] + priority[j])``
of the turn, and while the pair is clear it may use ``priority[i] / (...)`` of the room left
(a half of each with equal priorities, exactly the paper's rule). Arrived agents that should
keep their place but let newcomers by work best active, with a zero preferred velocity and a
low priority: a newcomer heads on almost undisturbed and the parked agent steps aside, then
rests again where it stands, instead of standing as a wall newcomers pile up against (an
inactive agent) or being shoved by equals.

Walls are not part of the linear program: the caller keeps discs off blocked cells (the
clearance map) after choosing the velocity.

There is no positional push-apart safeguard: ORCA alone kept every measured overlap far below
the 10 % of the radii's sum the crowd scenes allow (moving by exactly the chosen velocities):
at most 1 % with dt = 1/60 s and 2.6 % with 1/30 s for 4 to 64 agents crossing a circle, and
5 % for 5,000 agents all pressing toward one point. Overlaps appear only where the 3-D program
has to trade one neighbour off against another.

>>> import numpy as np
>>> new = avoid(
...     np.array([[0.0, 0.0], [4.0, 0.0]]),   # two agents, 4 apart, head-on
...     np.array([[1.0, 0.0], [-1.0, 0.0]]),
...     np.array([[1.0, 0.0], [-1.0, 0.0]]),
...     np.array([0.5, 0.5]),
...     np.array([1.0, 1.0]),
...     dt=0.1, time_horizon=4.0, neighbour_dist=10.0, max_neighbours=8,
... )
>>> bool(new[0, 1] < 0.0 < new[1, 1])   # each turns to its own right
True
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.crowd.orca import Line, orca_line, parting, solve_velocity

AVOIDANCE_KERNEL_AVAILABLE: bool
"""Whether `_avoidance.c` imported; "auto" runs the C kernel when it is True."""
try:
    from sim.crowd import _avoidance

    AVOIDANCE_KERNEL_AVAILABLE = True
except ImportError as error:  # pragma: no cover - depends on the build
    AVOIDANCE_KERNEL_AVAILABLE = False
    warnings.warn(
        f"sim.crowd._avoidance is not built ({error}); avoiding in pure Python",
        RuntimeWarning,
        stacklevel=2,
    )

MAX_SPREAD = 2.0**28
"""The widest spread of positions, in neighbour distances, the spatial hash accepts."""
NOT_SEARCHED = -2
"""The first entry of an inactive agent's row of `avoid`'s `seen`: it searched no neighbours."""


@dataclass(frozen=True, slots=True)
class _Agents:
    """Checked input as C-contiguous float64 arrays (and the masks), shared by both cores."""

    positions: NDArray[np.float64]
    velocities: NDArray[np.float64]
    preferred: NDArray[np.float64]
    radii: NDArray[np.float64]
    max_speeds: NDArray[np.float64]
    priority: NDArray[np.float64] | None
    active: NDArray[np.bool_] | None
    sidestep: NDArray[np.bool_] | None


def avoid(
    positions: NDArray[Any],
    velocities: NDArray[Any],
    preferred: NDArray[Any],
    radii: NDArray[Any],
    max_speeds: NDArray[Any],
    *,
    dt: float,
    time_horizon: float,
    neighbour_dist: float,
    max_neighbours: int,
    active: NDArray[np.bool_] | None = None,
    priority: NDArray[Any] | None = None,
    sidestep: bool | NDArray[np.bool_] = True,
    implementation: str = "auto",
    seen: NDArray[np.int64] | None = None,
) -> NDArray[np.float64]:
    """Return each agent's new velocity (n, 2): collision-free for `time_horizon` if it can be.

    Args:
        positions: (n, 2) disc centres, world units.
        velocities: (n, 2) the velocities the agents move at now (their last choice).
        preferred: (n, 2) where each would go without others (toward its goal).
        radii: (n,) disc radii, >= 0.
        max_speeds: (n,) the longest velocity each may pick, >= 0.
        dt: the step the velocities will be applied for, seconds > 0; discs that overlap
            get a velocity that parts them within it.
        time_horizon: how far ahead agents look for collisions, seconds > 0; longer is
            earlier, smoother avoidance and less freedom in a crowd.
        neighbour_dist: only agents closer than this (centres) are considered, >= 0.
        max_neighbours: at most this many of them, the nearest, >= 0.
        active: (n,) False for agents not moved by avoidance (they keep their preferred
            velocity, and others avoid them on their own); None: all active.
        priority: (n,) >= 0; in a pair on a collision course agent i makes priority[j] /
            (priority[i] + priority[j]) of the turn, and while clear may use priority[i] /
            (...) of the room (halves when both are 0); None: all equal.
        sidestep: True, False or (n,): agents held back turn right to break symmetric
            jams (see `orca.solve_velocity`); switch it off where standing still is the
            goal, such as an agent pressing into the crowd already gathered at its target,
            or it keeps circling that crowd.
        implementation: "auto" (C when built), "c" or "python".
        seen: (n, min(max_neighbours, n - 1)) int64, C-contiguous, or None: filled with the
            neighbours each agent avoided, nearest first (`find_neighbours`'s lists), -1
            padded; an inactive agent's row starts with -2 (it searched none). Parting
            searches these again after the move instead of hashing anew.

    Raises:
        ValueError: on shapes that do not match, values that are not finite or out of range,
            or positions spread over more than 2**28 neighbour distances.
    """
    agents = _check_agents(
        positions, velocities, preferred, radii, max_speeds, active, priority, sidestep
    )
    _check_settings(dt, time_horizon, neighbour_dist, max_neighbours)
    # The C hash refuses a spread it cannot hold as it builds (its bounds cost no extra pass);
    # only the Python reference needs the check (min/max over a (n, 2) array: a millisecond
    # a call at 10,000 agents).
    if _use_c(implementation):
        out = np.empty_like(agents.positions)
        _avoidance.avoid(
            agents.positions,
            agents.velocities,
            agents.preferred,
            agents.radii,
            agents.max_speeds,
            agents.priority,
            agents.active,
            agents.sidestep,
            float(dt),
            float(time_horizon),
            float(neighbour_dist),
            int(max_neighbours),
            out,
            seen,
        )
        return out
    check_spread(agents.positions, neighbour_dist)
    if seen is not None:
        seen[...] = find_neighbours(
            agents.positions,
            neighbour_dist=neighbour_dist,
            max_neighbours=max_neighbours,
            implementation="python",
        )
        if agents.active is not None and seen.shape[1]:
            seen[~agents.active, 0] = NOT_SEARCHED
    return _avoid_python(agents, float(dt), float(time_horizon), neighbour_dist, max_neighbours)


def find_neighbours(
    positions: NDArray[Any],
    *,
    neighbour_dist: float,
    max_neighbours: int,
    implementation: str = "auto",
) -> NDArray[np.intp]:
    """Return the neighbours `avoid` considers: (n, min(max_neighbours, n - 1)), -1 padded.

    Row i lists the agents closer than `neighbour_dist` to agent i, nearest first (ties by
    index), at most `max_neighbours`; the rest of the row is -1.

    >>> import numpy as np
    >>> find_neighbours(np.array([[0.0, 0.0], [3.0, 0.0], [1.0, 0.0]]),
    ...                 neighbour_dist=2.5, max_neighbours=2).tolist()
    [[2, -1], [2, -1], [0, 1]]

    Raises:
        ValueError: on positions that are not (n, 2) finite numbers, a negative distance or
            count, or positions spread over more than 2**28 neighbour distances.
    """
    points = _as_float_array(positions, "positions", 2)
    _check_settings(1.0, 1.0, neighbour_dist, max_neighbours)
    n = len(points)
    width = min(int(max_neighbours), max(n - 1, 0))
    if _use_c(implementation):  # the C hash checks the spread itself
        out = np.empty((n, width), dtype=np.int64)
        _avoidance.neighbours(points, float(neighbour_dist), width, out)
        return out.astype(np.intp, copy=False)
    check_spread(points, neighbour_dist)
    rows = np.full((n, width), -1, dtype=np.intp)
    for i, found in enumerate(_neighbours_python(points, float(neighbour_dist), width)):
        rows[i, : len(found)] = found
    return rows


# ---- Input checks -------------------------------------------------------------------------


def _use_c(implementation: str) -> bool:
    if implementation not in ("auto", "c", "python"):
        raise ValueError(f"implementation must be auto, c or python, got {implementation!r}")
    if implementation == "c" and not AVOIDANCE_KERNEL_AVAILABLE:
        raise ValueError("implementation='c' but sim.crowd._avoidance is not built")
    return implementation != "python" and AVOIDANCE_KERNEL_AVAILABLE


def _as_float_array(values: NDArray[Any], name: str, columns: int | None) -> NDArray[np.float64]:
    array = np.ascontiguousarray(values, dtype=np.float64)
    shape_ok = array.ndim == 2 and array.shape[1] == columns if columns else array.ndim == 1
    if not shape_ok:
        expected = f"(n, {columns})" if columns else "(n,)"
        raise ValueError(f"{name} must have shape {expected}, got {array.shape}")
    if not np.isfinite(array).all():
        raise ValueError(f"{name} must be finite numbers")
    return array


def _check_agents(
    positions: NDArray[Any],
    velocities: NDArray[Any],
    preferred: NDArray[Any],
    radii: NDArray[Any],
    max_speeds: NDArray[Any],
    active: NDArray[np.bool_] | None,
    priority: NDArray[Any] | None,
    sidestep: bool | NDArray[np.bool_],
) -> _Agents:
    points = _as_float_array(positions, "positions", 2)
    if isinstance(sidestep, bool | np.bool_):
        sidestep_mask = None if sidestep else np.zeros(len(points), dtype=np.bool_)
    else:
        sidestep_mask = np.ascontiguousarray(sidestep, dtype=np.bool_)
    agents = _Agents(
        points,
        _as_float_array(velocities, "velocities", 2),
        _as_float_array(preferred, "preferred", 2),
        _as_float_array(radii, "radii", None),
        _as_float_array(max_speeds, "max_speeds", None),
        None if priority is None else _as_float_array(priority, "priority", None),
        None if active is None else np.ascontiguousarray(active, dtype=np.bool_),
        sidestep_mask,
    )
    n = len(agents.positions)
    for name in ("active", "sidestep"):
        mask = getattr(agents, name)
        if mask is not None and mask.ndim != 1:
            raise ValueError(f"{name} must have shape (n,), got {mask.shape}")
    for name in (
        "velocities",
        "preferred",
        "radii",
        "max_speeds",
        "priority",
        "active",
        "sidestep",
    ):
        array = getattr(agents, name)
        if array is not None and array.shape[0] != n:
            raise ValueError(f"{name} has {array.shape[0]} rows, positions {n}")
    for name in ("radii", "max_speeds", "priority"):
        array = getattr(agents, name)
        if array is not None and (array < 0.0).any():
            raise ValueError(f"{name} must be >= 0")
    return agents


def _check_settings(
    dt: float, time_horizon: float, neighbour_dist: float, max_neighbours: int
) -> None:
    for name, value in (("dt", dt), ("time_horizon", time_horizon)):
        if not (math.isfinite(value) and value > 0.0):
            raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    if not (math.isfinite(neighbour_dist) and neighbour_dist >= 0.0):
        raise ValueError(f"neighbour_dist must be a finite number >= 0, got {neighbour_dist!r}")
    if isinstance(max_neighbours, bool) or int(max_neighbours) != max_neighbours:
        raise ValueError(f"max_neighbours must be an integer, got {max_neighbours!r}")
    if not 0 <= max_neighbours < 2**31:
        raise ValueError(f"max_neighbours must be 0 to 2**31 - 1, got {max_neighbours!r}")


def check_spread(positions: NDArray[np.float64], neighbour_dist: float) -> None:
    """Refuse a spread the hash's integer cell coordinates cannot hold (absurd worlds)."""
    if len(positions) < 2 or neighbour_dist == 0.0:
        return
    spread = float((positions.max(axis=0) - positions.min(axis=0)).max())
    if not spread / neighbour_dist < MAX_SPREAD:
        raise ValueError(
            f"positions spread over {spread:g} units, more than 2**28 neighbour distances"
        )


# ---- The Python reference: the same arithmetic as _avoidance.c, one agent at a time -------


def _avoid_python(
    agents: _Agents, dt: float, time_horizon: float, neighbour_dist: float, max_neighbours: int
) -> NDArray[np.float64]:
    n = len(agents.positions)
    width = min(int(max_neighbours), max(n - 1, 0))
    neighbours = _neighbours_python(agents.positions, float(neighbour_dist), width)
    pos = agents.positions.tolist()
    vel = agents.velocities.tolist()
    pref = agents.preferred.tolist()
    radii = agents.radii.tolist()
    speeds = agents.max_speeds.tolist()
    priority = [1.0] * n if agents.priority is None else agents.priority.tolist()
    active = [True] * n if agents.active is None else agents.active.tolist()
    sidestep = [True] * n if agents.sidestep is None else agents.sidestep.tolist()
    inv_tau, inv_dt = 1.0 / time_horizon, 1.0 / dt
    out = agents.preferred.copy()
    for i in range(n):
        if not active[i]:
            continue
        lines: list[Line] = []
        for j in neighbours[i]:
            if not active[j]:
                share = margin = 1.0
            else:
                both = priority[i] + priority[j]
                share = priority[j] / both if both > 0.0 else 0.5
                margin = priority[i] / both if both > 0.0 else 0.5
            lines.append(
                orca_line(
                    pos[i],
                    vel[i],
                    radii[i],
                    pos[j],
                    vel[j],
                    radii[j],
                    share=share,
                    margin=margin,
                    inv_tau=inv_tau,
                    inv_dt=inv_dt,
                    parting=parting(i, j),
                )
            )
        out[i] = solve_velocity(lines, speeds[i], pref[i][0], pref[i][1], sidestep=sidestep[i])
    return out


def _neighbours_python(
    positions: NDArray[np.float64], neighbour_dist: float, width: int
) -> list[list[int]]:
    """Every pair compared: the nearest `width` closer than `neighbour_dist`, by (d², index)."""
    n = len(positions)
    if width == 0 or neighbour_dist == 0.0:
        return [[] for _ in range(n)]
    range_sq = neighbour_dist * neighbour_dist
    rows = []
    for i in range(n):
        # dx * dx + dy * dy in this order, as C sums it: the same d² to the last bit.
        delta = positions - positions[i]
        dist_sq = delta[:, 0] * delta[:, 0] + delta[:, 1] * delta[:, 1]
        close = np.flatnonzero(dist_sq < range_sq)
        close = close[close != i]
        order = np.lexsort((close, dist_sq[close]))
        rows.append(close[order][:width].tolist())
    return rows
