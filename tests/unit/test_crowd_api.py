"""The crowd's own API (`sim.crowd.crowd.Crowd`): agents by index, settings, targets, removal."""

from __future__ import annotations

import math

import pytest
from panda3d.core import NodePath

from sim.components.agent_controller import AgentController
from sim.components.crowd import CROWD_THRESHOLD, CrowdField
from sim.components.crowd_sim import CrowdSim
from sim.components.grid_manager import GridManager
from sim.config import AgentConfig, AgentMode
from sim.crowd.crowd import Crowd
from sim.crowd.state import AgentState
from sim.engine import GameObject, World

DT = 1 / 60


def open_grid() -> tuple[World, GridManager, CrowdField]:
    world = World(NodePath("root"))
    grid = world.spawn("grid").add_component(
        GridManager(origin=(0.0, 0.0), num_of_rows=12, num_of_columns=20, grid_cell_size=1.0)
    )
    fields = world.spawn("fields").add_component(CrowdField(grid))
    world.step(0.0)
    return world, grid, fields


def crowd_of(count: int, target: str = "a") -> tuple[Crowd, list[int]]:
    """`count` agents in a row on an open grid, chasing `target`."""
    _, grid, fields = open_grid()
    crowd = Crowd(grid, fields)
    config = AgentConfig(speed=3.0, target=target)
    indices = [
        crowd.add_agent(config, position=(1.5 + index, 2.5), heading_deg=0.0)
        for index in range(count)
    ]
    return crowd, indices


TARGETS = {"a": (16.5, 9.5), "b": (3.5, 9.5)}


def locate_by_name(crowd: Crowd, asked: list[str | None]):
    def locate(key: int) -> tuple[float, float] | None:
        name = crowd.target_name(key)
        asked.append(name)
        return TARGETS.get(name or "")

    return locate


def test_added_agents_read_back_what_they_were_given():
    crowd, indices = crowd_of(3)
    assert indices == [0, 1, 2]
    assert len(crowd) == 3
    assert crowd.position(1) == (2.5, 2.5)
    assert crowd.velocity(1) == (0.0, 0.0)
    assert crowd.heading_deg(1) == 0.0
    assert crowd.settings_of(2).speed == 3.0
    status = crowd.status(0)
    assert status.state is AgentState.IDLE
    assert (status.replans, status.arrivals, status.driven) == (0, 0, False)
    assert status.mode is AgentMode.CHASE


def test_update_steps_a_crowd_toward_its_target():
    crowd, indices = crowd_of(CROWD_THRESHOLD)
    asked: list[str | None] = []
    for _ in range(30):
        crowd.update(DT, locate_by_name(crowd, asked))
    assert set(asked) == {"a"}, "one look-up per target, by its name"
    assert all(crowd.is_driven(index) for index in indices)
    assert all(crowd.status(index).state is AgentState.MOVING for index in indices)
    assert all(crowd.position(index)[1] > 2.5 for index in indices), "heading north-east"


def test_update_agent_changes_what_the_next_step_uses():
    crowd, indices = crowd_of(CROWD_THRESHOLD)
    locate = locate_by_name(crowd, [])
    for _ in range(30):
        crowd.update(DT, locate)
    crowd.update_agent(indices[0], speed=0.5)
    assert crowd.settings_of(indices[0]).speed == 0.5
    crowd.update(DT, locate)
    assert math.hypot(*crowd.velocity(indices[0])) <= 0.5 + 1e-9
    assert math.hypot(*crowd.velocity(indices[1])) > 0.5


def test_update_agent_takes_a_whole_config():
    crowd, indices = crowd_of(1)
    crowd.update_agent(indices[0], AgentConfig(speed=1.0, mode=AgentMode.PATROL), radius=0.2)
    assert crowd.settings_of(indices[0]) == AgentConfig(
        speed=1.0, mode=AgentMode.PATROL, radius=0.2
    )


def test_request_target_makes_the_agents_chase_another_object():
    crowd, indices = crowd_of(CROWD_THRESHOLD)
    for index in indices:
        crowd.request_target(index, "b")
    asked: list[str | None] = []
    for _ in range(30):
        crowd.update(DT, locate_by_name(crowd, asked))
    assert set(asked) == {"b"}
    assert crowd.settings_of(indices[0]).target == "b"
    assert all(crowd.position(index)[0] < 1.5 + index + 1e-9 for index in indices[3:])


def test_removed_agents_leave_and_the_others_keep_their_indices():
    crowd, indices = crowd_of(4)
    where = crowd.position(indices[3])
    crowd.remove_agent(indices[1])
    crowd.update(DT, lambda _key: None)
    assert len(crowd) == 3
    assert indices[1] not in crowd
    assert crowd.position(indices[3]) == where
    assert crowd.indices == (0, 2, 3)


def test_updating_a_removed_agent_is_a_clear_error():
    crowd, indices = crowd_of(2)
    crowd.remove_agent(indices[0])
    with pytest.raises(ValueError, match="agent 0 is not in the crowd"):
        crowd.update_agent(indices[0], speed=1.0)


def test_an_unknown_setting_is_a_clear_error():
    crowd, indices = crowd_of(1)
    with pytest.raises(ValueError, match=r"unknown agent settings: \['sped'\]"):
        crowd.update_agent(indices[0], sped=1.0)


def test_a_removed_agent_carries_its_row_to_another_crowd():
    crowd, indices = crowd_of(CROWD_THRESHOLD)
    locate = locate_by_name(crowd, [])
    for _ in range(30):
        crowd.update(DT, locate)
    status, where = crowd.status(indices[0]), crowd.position(indices[0])
    other = Crowd(open_grid()[1])
    moved = crowd.move_agent(indices[0], other)
    assert other.position(moved) == where
    assert other.status(moved).replans == status.replans
    assert not other.is_driven(moved), "the other crowd drives no one"


def handled_scene(count: int) -> tuple[World, CrowdSim, list[AgentController]]:
    """`count` agents (controllers) in one CrowdSim, chasing "flag"."""
    world, grid, fields = open_grid()
    sim = world.spawn("crowd-sim").add_component(CrowdSim(grid, fields))
    node = world.root.attach_new_node("flag")
    node.set_pos(16.5, 9.5, 0.0)
    world.add(GameObject(node, tag="Untagged"))
    agents = []
    for index in range(count):
        agent_node = world.root.attach_new_node(f"agent-{index}")
        agent_node.set_pos(1.5 + index, 2.5, 0.0)
        controller = AgentController(
            grid, AgentConfig(speed=3.0, target="flag"), crowd=fields, crowd_sim=sim
        )
        agents.append(world.add(GameObject(agent_node, tag="Agent")).add_component(controller))
    return world, sim, agents


@pytest.mark.parametrize("count", [1, CROWD_THRESHOLD], ids=["self-steered", "driven"])
def test_settings_edited_through_a_handle_are_what_the_next_step_uses(count):
    world, sim, agents = handled_scene(count)
    for _ in range(30):
        world.step(DT)
    agent = agents[0]
    assert agent.driven == (count >= CROWD_THRESHOLD)
    agent.update_settings(speed=0.5)
    assert agent.config.speed == 0.5
    assert sim.crowd.settings_of(agent._index).speed == 0.5
    before = agent.position
    world.step(DT)
    assert math.dist(before, agent.position) <= 0.5 * DT + 1e-9


def test_a_handle_reads_and_writes_its_row_only():
    world, sim, agents = handled_scene(2)
    world.step(DT)
    agent = agents[1]
    agent.pushes = 7
    assert sim.crowd.status(agent._index).pushes == 7
    assert agent.position == sim.crowd.position(agent._index)
    assert agent.heading_deg == sim.crowd.heading_deg(agent._index)
