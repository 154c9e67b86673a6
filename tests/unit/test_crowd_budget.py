"""A crowd's bounded work: plans spread over frames in turn, lookahead-bounded smoothing that
keeps a disc clear, and routes drawn for a bounded number of agents."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from panda3d.core import NodePath

from sim.components.agent_controller import AgentController, AgentState
from sim.components.crowd import SMOOTHING_LOOKAHEAD, CrowdField
from sim.components.grid_manager import GridManager
from sim.config import AgentConfig
from sim.engine import GameObject, Gizmos, World
from sim.navigation.line_of_sight import segment_is_clear

DT = 1 / 60


def add(world: World, name: str, tag: str, pos: tuple[float, float]) -> GameObject:
    node = world.root.attach_new_node(name)
    node.set_pos(pos[0], pos[1], 0.0)
    return world.add(GameObject(node, tag=tag))


def crowd_world(count: int, *, plans_per_frame: int, side: int = 20) -> tuple[World, CrowdField]:
    """A side x side grid (origin 0, 0), Start and End in opposite corners, `count` agents."""
    world = World(NodePath("root"))
    grid = world.spawn("grid").add_component(
        GridManager(origin=(0.0, 0.0), num_of_rows=side, num_of_columns=side, grid_cell_size=1.0)
    )
    crowd = world.spawn("crowd").add_component(CrowdField(grid, plans_per_frame=plans_per_frame))
    add(world, "start", "Start", (0.5, 0.5))
    add(world, "end", "End", (side - 0.5, side - 0.5))
    for index in range(count):
        agent = add(world, f"crowd-{index + 1}", "Agent", (0.5 + index % 5, 0.5 + index // 5))
        agent.add_component(AgentController(grid, AgentConfig(), crowd=crowd))
    return world, crowd


def controllers(world: World) -> list[AgentController]:
    found = (obj.get_component(AgentController) for obj in world.find_all_with_tag("Agent"))
    return [controller for controller in found if controller is not None]


def test_at_most_the_budget_plans_in_a_frame_and_every_agent_gets_its_turn():
    world, _ = crowd_world(25, plans_per_frame=4)
    agents = controllers(world)
    planned_per_frame = []
    for _ in range(10):
        before = sum(agent.replans for agent in agents)
        world.step(DT)
        planned_per_frame.append(sum(agent.replans for agent in agents) - before)
    assert max(planned_per_frame) == 4
    assert all(agent.replans >= 1 for agent in agents), "25 agents, 4 a frame: 7 frames"


def test_refused_agents_go_first_so_no_agent_waits_forever():
    world, crowd = crowd_world(25, plans_per_frame=4)
    agents = controllers(world)
    # 25 agents and a 1 s interval want 25 plans a second; 4 a frame serve 240.
    for _ in range(round(3.0 / DT)):
        world.step(DT)
    assert min(agent.replans for agent in agents) >= 3
    assert crowd.fields_computed == 1, "the grid did not change: one field serves all along"


def test_under_the_budget_every_agent_plans_on_the_first_frame():
    world, _ = crowd_world(10, plans_per_frame=64)
    world.step(DT)
    assert all(agent.replans == 1 for agent in controllers(world))
    assert all(agent.state is AgentState.MOVING for agent in controllers(world))


@pytest.mark.parametrize("radius", [0.0, 0.25, 0.5], ids=["point", "quarter", "half"])
def test_crowd_waypoints_keep_the_disc_clear_on_a_long_open_field(radius):
    side = 4 * SMOOTHING_LOOKAHEAD
    world, crowd = crowd_world(8, plans_per_frame=64, side=side)
    # A wall with a gap near its east end across the middle, and scattered blocks.
    wall = add(world, "wall", "Obstacle", ((side - 3) / 2, side / 2 + 0.5))
    wall.node.set_scale(side - 3, 1.0, 1.0)
    rng = np.random.default_rng(1)
    for index in range(60):
        col, row = rng.integers(6, side - 6, 2)
        add(world, f"block-{index}", "Obstacle", (col + 0.5, row + 0.5)).node.set_scale(0.5)
    world.step(DT)
    manager = next(c for obj in world.objects for c in obj.components if isinstance(c, GridManager))
    for start in [(0.5, 0.5), (3.2, 1.7), (side - 2.5, 1.5), (1.5, side / 2 - 1.5)]:
        plan = crowd.waypoints_from(start, (side - 0.5, side - 0.5), radius=radius)
        assert plan.found
        centre = manager.cell_to_world(plan.cells[0])
        for a, b in itertools.pairwise([centre, *plan.waypoints]):
            assert segment_is_clear(manager.walkable, a, b, radius=radius), (a, b)
        longest = max(math.dist(a, b) for a, b in itertools.pairwise(plan.waypoints))
        assert longest <= SMOOTHING_LOOKAHEAD * math.sqrt(2.0)


def test_routes_are_drawn_only_for_agents_told_to():
    world = World(NodePath("root"))
    gizmos = Gizmos(world.root)
    grid = world.spawn("grid").add_component(
        GridManager(origin=(0.0, 0.0), num_of_rows=10, num_of_columns=10, grid_cell_size=1.0)
    )
    add(world, "end", "End", (9.5, 9.5))
    for index, drawn in enumerate([True, False]):
        agent = add(world, f"agent-{index}", "Agent", (0.5, 0.5 + 2 * index))
        agent.add_component(AgentController(grid, AgentConfig(), draw_route=drawn))
    world.step(DT)
    for obj in world.find_all_with_tag("Agent"):
        controller = obj.get_component(AgentController)
        assert controller is not None
        controller.on_draw_gizmos(gizmos)
    gizmos.flush()
    assert gizmos.keys() == {"agent-path:agent-0"}
