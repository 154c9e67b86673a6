"""Agent motion under Unity's NavMeshAgent names: acceleration, braking, turning, priority.

The settings live in `AgentConfig`; this module turns them into the crowd's row columns
(`setting_columns`) and applies them to a frame's velocities and headings, for the crowd's
driven rows (`sim.crowd.step`) and, one agent at a time, for the self-steered ones
(`sim.crowd.rules.lone_step`). Every rule is a no-op at the defaults (acceleration and
angular speed inf, stopping distance 0, priority 50), so motion stays exactly as it was.

>>> orca_weight(50), orca_weight(0), round(orca_weight(99), 4)
(1.0, 4.0, 0.257)
>>> round(braking_speed(3.0, 0.5, 2.0, 0.1), 6)  # 1.2, 1.0, ... 0.2 m/s cover 0.42 m
1.2
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.config import AgentConfig

DEFAULT_PRIORITY = 50
PRIORITY_DOUBLING = 25
"""Every this many steps of `avoidance_priority` below 50 doubles an agent's ORCA weight (and
above 50 halves it): 0 weighs 4, 99 about 1/4 against the default's 1."""


def orca_weight(priority: int) -> float:
    """The ORCA weight of Unity's `avoidance_priority` (0-99; lower: more important).

    In a pair on a collision course agent i takes ``w[j] / (w[i] + w[j])`` of the turn
    (`sim.crowd.avoidance`), so the more important agent yields less; two equal priorities
    split it half-half, ORCA's own rule.
    """
    return float(2.0 ** ((DEFAULT_PRIORITY - priority) / PRIORITY_DOUBLING))


def stop_radius(config: AgentConfig) -> float:
    """How near its target an agent counts as there: its arrival radius or stopping distance."""
    return max(config.arrival_radius, config.stopping_distance)


def setting_columns(config: AgentConfig) -> dict[str, Any]:
    """The crowd row columns (`sim.crowd.rows.COLUMNS`) that `config` sets, by name."""
    return {
        "radii": config.radius,
        "speeds": config.speed,
        "arrival_radii": stop_radius(config),
        "turn_rates": config.turn_rate,
        "accelerations": config.acceleration,
        "angular_speeds": config.angular_speed,
        "braking": config.auto_braking,
        "weights": orca_weight(config.avoidance_priority),
        "everywhere": config.areas is None,
    }


def braking_speed(speed: float, distance: float, acceleration: float, dt: float) -> float:
    """The most speed from which frames of `dt` stop within `distance` shedding `acceleration`.

    Frame by frame: from n steps of `acceleration * dt` a second the agent covers
    ``acceleration * dt² * n (n + 1) / 2`` before it stands, so n is the largest that fits
    (never below 1: the last step is cut to the distance left and then it stops).
    """
    if math.isinf(acceleration):
        return speed
    unit = acceleration * dt
    steps = math.floor((math.sqrt(1.0 + 8.0 * max(distance, 0.0) / (unit * dt)) - 1.0) / 2.0)
    return min(speed, unit * max(steps, 1))


def brake(
    speeds: NDArray[np.float64],
    distances: NDArray[np.float64],
    accelerations: NDArray[np.float64],
    braking: NDArray[np.bool_],
) -> NDArray[np.float64]:
    """`braking_speed` for many agents; those without auto braking keep `speeds`."""
    finite = braking & np.isfinite(accelerations)
    if not finite.any():
        return speeds
    stop = np.sqrt(2.0 * np.where(finite, accelerations, 0.0) * np.maximum(distances, 0.0))
    braked: NDArray[np.float64] = np.where(finite, np.minimum(speeds, stop), speeds)
    return braked


def accelerate(
    previous: NDArray[np.float64],
    wanted: NDArray[np.float64],
    accelerations: NDArray[np.float64],
    dt: float,
) -> NDArray[np.float64]:
    """Each velocity of `wanted`, changed from `previous` by at most `acceleration * dt`.

    Rows with an infinite acceleration take `wanted` as it is.
    """
    finite = np.isfinite(accelerations)
    if not finite.any():
        return wanted
    change = wanted - previous
    size = np.hypot(change[:, 0], change[:, 1])
    most = np.where(finite, accelerations, 0.0) * dt
    scale = np.divide(most, size, out=np.ones_like(size), where=size > most)
    scale = np.where(finite, np.minimum(scale, 1.0), 1.0)
    limited: NDArray[np.float64] = previous + change * scale[:, None]
    return limited


def cap_turns(
    turns_deg: NDArray[np.float64], angular_speeds: NDArray[np.float64], dt: float
) -> NDArray[np.float64]:
    """Each signed turn of `turns_deg`, no larger than `angular_speed * dt` degrees."""
    most = angular_speeds * dt
    capped: NDArray[np.float64] = np.clip(turns_deg, -most, most)
    return capped
