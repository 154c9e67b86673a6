"""M after the agent has arrived: patrol sets out for Start at once, and comes back to End."""

from __future__ import annotations

import math

import pytest

from sim.components.agent_controller import AgentState
from sim.config import AgentMode

pytestmark = pytest.mark.render

BUDGET_FRAMES = 1800  # 30 simulated seconds, ample for the default scene's crossing


@pytest.fixture
def window_size():
    """Keys need no pixels: a small buffer renders fastest."""
    return (320, 240)


def run_until(app, done, frames: int = BUDGET_FRAMES) -> bool:
    for _ in range(frames):
        if done():
            return True
        app.step()
    return done()


def test_m_after_arrival_starts_the_patrol(default_scene):
    app, mouse = default_scene
    agent = app.agents[0]
    start, end = app.world.find("start"), app.world.find("end")
    assert run_until(app, lambda: agent.state is AgentState.ARRIVED), "the agent never arrived"
    arrivals = agent.arrivals

    mouse.key("m")

    assert agent.mode is AgentMode.PATROL
    assert run_until(app, lambda: math.dist(agent.position, start.xy) < 1.0), (
        f"patrol never left End: {agent.state} at {agent.position}"
    )
    assert run_until(app, lambda: math.dist(agent.position, end.xy) < 1.0), "it never came back"
    assert agent.arrivals >= arrivals + 1


def test_m_twice_after_arrival_leaves_it_standing_at_end(default_scene):
    app, mouse = default_scene
    agent = app.agents[0]
    assert run_until(app, lambda: agent.state is AgentState.ARRIVED)
    mouse.key("m")
    mouse.key("m")
    for _ in range(60):
        app.step()
    assert agent.mode is AgentMode.CHASE
    assert agent.state is AgentState.ARRIVED
