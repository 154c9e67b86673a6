"""The scene's keys, pressed through real key events (a VirtualMouse's button thrower)."""

from __future__ import annotations

import itertools
import math

import pytest

from sim.components.agent_controller import AgentState
from sim.config import AgentMode

pytestmark = pytest.mark.render


@pytest.fixture
def window_size():
    """Keys need no pixels: a small buffer renders fastest."""
    return (320, 240)


def test_k_cycles_the_heuristic_and_replans(default_scene):
    app, mouse = default_scene
    plans = app.path.plans
    mouse.key("k")
    app.step()
    assert app.grid.heuristic == "euclidean"
    assert app.path.plans > plans
    assert "A* euclidean" in app.hud.text()


def test_n_switches_to_four_connected_paths(default_scene):
    app, mouse = default_scene
    mouse.key("n")
    for _ in range(10):
        app.step()
    cells = app.path.outcome.cells
    steps = {(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(cells)}
    assert steps <= {(0, 1), (1, 0), (0, -1), (-1, 0)}, "no diagonal steps"
    assert "4-connected" in app.hud.text()


def test_m_switches_the_agent_to_patrol(default_scene):
    app, mouse = default_scene
    mouse.key("m")
    assert app.agents[0].mode is AgentMode.PATROL
    mouse.key("m")
    assert app.agents[0].mode is AgentMode.CHASE


def test_r_puts_the_agent_back_on_start(default_scene):
    app, mouse = default_scene
    for _ in range(120):
        app.step()
    agent = app.agents[0]
    start = app.world.find("start")
    assert math.dist(agent.position, (start.node.get_x(), start.node.get_y())) > 1.0
    mouse.key("r")
    assert math.dist(agent.position, (start.node.get_x(), start.node.get_y())) < 0.2
    assert agent.state is AgentState.MOVING


def test_space_pauses_simulated_time(default_scene):
    app, mouse = default_scene
    mouse.key("space")
    time_s, position = app.world.time_s, app.agents[0].position
    for _ in range(30):
        app.step()
    assert app.world.time_s == time_s
    assert app.agents[0].position == position
    assert "PAUSED" in app.hud.text()
