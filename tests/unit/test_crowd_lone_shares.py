"""Two self-steered agents at rest split a turn in proportion to their speeds.

Pillar variant 6: a walker shoved an arrived agent of speed 3.0 into one of speed 1.5, which
by avoidance priority alone owed most of the turn, more than its speed could make (0.131 of
the radii). `sim.crowd.lone.lone_velocity` solves one agent's side of the turn against its
nearest rows.
"""

from __future__ import annotations

import math

from sim.config import AgentConfig
from sim.crowd.lone import ARRIVED, MOVING, lone_velocity
from sim.crowd.rows import AgentRows
from sim.crowd.settings import StepSettings

DT = 1 / 60
FAST = 3.0


def _pair(
    speed: float, *, other_state: int = ARRIVED, weights: tuple[float, float] = (1.0, 1.0)
) -> AgentRows:
    """Agent 0 of `speed` standing at its goal; agent 1 (speed 3) shoved towards it at 0.8."""
    rows = AgentRows()
    for index, (x, own_speed, vx, state) in enumerate(
        ((0.0, speed, 0.0, ARRIVED), (1.0, FAST, -0.8, other_state))
    ):
        rows.add(
            index=index,
            positions=(x, 0.0),
            velocities=(vx, 0.0),
            radii=0.4,
            speeds=own_speed,
            state=state,
            weights=weights[index],
            configs=AgentConfig(speed=own_speed),
        )
    rows.flush()
    return rows


def _dodge(rows: AgentRows) -> float:
    x, y = lone_velocity(rows, 0, (0.0, 0.0), DT, StepSettings(), resting=True)
    return math.hypot(x, y)


def test_a_slow_agent_at_rest_takes_a_share_in_proportion_to_its_speed() -> None:
    alike, slow = _dodge(_pair(FAST)), _dodge(_pair(FAST / 2))
    assert alike > 0.0
    # Half each at equal speeds; a third against one twice as fast: two thirds of the move.
    assert math.isclose(slow, alike * (1 / 3) / (1 / 2), rel_tol=1e-9)


def test_at_rest_avoidance_priorities_leave_the_shares_to_speed() -> None:
    # Pillar variant 6's pair: the slow one's priority (its ORCA weight 0.87 against 2.95)
    # would have it owe 63 % of the turn on top of its speed's part.
    assert math.isclose(
        _dodge(_pair(FAST / 2, weights=(0.87, 2.95))), _dodge(_pair(FAST / 2)), rel_tol=1e-9
    )


def test_against_a_walker_the_share_is_by_priority_alone() -> None:
    # The walker's own side of the turn splits by priority; so does this one, or part of the
    # turn would be left to nobody.
    assert math.isclose(
        _dodge(_pair(FAST, other_state=MOVING)),
        _dodge(_pair(FAST / 2, other_state=MOVING)),
        rel_tol=1e-9,
    )
