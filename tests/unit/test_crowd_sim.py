"""CrowdSim on a bare World (no window, fixed dt): driven crowds, lone agents, the facade."""

from __future__ import annotations

import math

import numpy as np
import pytest
from panda3d.core import NodePath

from sim.components.agent_controller import AgentController, AgentState, ReplanCause
from sim.components.crowd import CROWD_THRESHOLD, CrowdField
from sim.components.crowd_sim import CrowdSim
from sim.components.grid_manager import GridManager
from sim.config import AgentConfig, AgentMode
from sim.crowd.disc_walls import Walls
from sim.engine import GameObject, World

DT = 1 / 60
RADIUS = 0.4
OVERLAP_BOUND = 0.1  # of the two radii's sum
WALL_TOLERANCE = 1e-6  # cells: a disc may touch a wall, and float rounding may graze it


class Scene:
    """A grid with walls, named objects and agents, each agent with a row in one CrowdSim.

    Each `run` frame checks what must hold in every frame: no two discs overlap deeper than
    `OVERLAP_BOUND` of their radii's sum, and no disc overlaps a blocked cell.
    """

    def __init__(self, rows: int, columns: int) -> None:
        self.world = World(NodePath("root"))
        self.grid = self.world.spawn("grid").add_component(
            GridManager(
                origin=(0.0, 0.0), num_of_rows=rows, num_of_columns=columns, grid_cell_size=1.0
            )
        )
        self.crowd = self.world.spawn("crowd").add_component(CrowdField(self.grid))
        self.sim = self.world.spawn("crowd-sim").add_component(CrowdSim(self.grid, self.crowd))
        self.agents: list[AgentController] = []
        self.worst_overlap = 0.0
        self.wall_frames = 0

    def add(
        self, name: str, tag: str, pos: tuple[float, float], scale=(1.0, 1.0, 1.0)
    ) -> GameObject:
        node = self.world.root.attach_new_node(name)
        node.set_pos(pos[0], pos[1], 0.0)
        node.set_scale(*scale)
        return self.world.add(GameObject(node, tag=tag))

    def wall(self, name: str, centre: tuple[float, float], size: tuple[float, float]) -> GameObject:
        return self.add(name, "Obstacle", centre, (size[0], size[1], 1.0))

    def agent(self, name: str, pos: tuple[float, float], **settings) -> AgentController:
        config = AgentConfig(**{"speed": 3.0, **settings})
        controller = AgentController(self.grid, config, crowd=self.crowd, crowd_sim=self.sim)
        self.agents.append(self.add(name, "Agent", pos).add_component(controller))
        return controller

    def step(self) -> None:
        self.world.step(DT)
        positions, radii = self.sim.positions, self.sim.radii
        self.worst_overlap = max(self.worst_overlap, overlap(positions, radii))
        walls = Walls(self.grid.walkable)
        self.wall_frames += int(walls.hit(positions, radii - WALL_TOLERANCE).any())

    def run(self, seconds: float) -> float:
        """Step until every agent arrived or `seconds` pass; return the simulated time taken."""
        for frame in range(1, round(seconds / DT) + 1):
            self.step()
            if all(agent.reached_goal for agent in self.agents):
                return frame * DT
        return math.inf


def overlap(positions: np.ndarray, radii: np.ndarray) -> float:
    """The deepest overlap of two discs, as a fraction of their radii's sum."""
    gap = positions[:, None, :] - positions[None, :, :]
    reach = radii[:, None] + radii[None, :]
    depth = (reach - np.hypot(gap[..., 0], gap[..., 1])) / reach
    np.fill_diagonal(depth, -1.0)
    return max(0.0, float(depth.max()))


def doorway(count: int) -> Scene:
    """A 30 x 16 room split by a wall at x = 15 with a 2-cell door; `count` agents in a line
    on the west side chase "exit" on the east side."""
    scene = Scene(16, 30)
    scene.wall("wall-south", (15.5, 3.5), (1.0, 7.0))
    scene.wall("wall-north", (15.5, 12.5), (1.0, 7.0))
    scene.add("exit", "Untagged", (26.5, 8.5))
    for index in range(count):
        scene.agent(
            f"walker-{index + 1}", (1.5 + index % 6, 6.5 + 1.2 * (index // 6)), target="exit"
        )
    return scene


def test_a_line_through_a_doorway_all_arrive_apart_and_off_the_walls():
    scene = doorway(12)
    taken = scene.run(30.0)
    assert scene.sim.driven.all(), "12 agents chasing one target: the crowd drives them"
    assert taken < 30.0, [(a.game_object.name, a.state, a.position) for a in scene.agents]
    assert scene.worst_overlap <= OVERLAP_BOUND
    assert scene.wall_frames == 0
    assert all(agent.blocked_cell_frames == 0 for agent in scene.agents)


def test_arrived_agents_gather_round_the_goal_without_stacking():
    scene = Scene(24, 24)
    scene.add("flag", "Untagged", (12.0, 12.0))
    for index in range(20):
        scene.agent(f"a{index}", (2.5 + (index % 5) * 1.1, 2.5 + (index // 5) * 1.1), target="flag")
    assert scene.run(30.0) < 30.0
    positions = scene.sim.positions
    spacing = np.hypot(*(positions[:, None, :] - positions[None, :, :]).transpose(2, 0, 1))
    np.fill_diagonal(spacing, np.inf)
    assert spacing.min() >= 2 * RADIUS * (1 - OVERLAP_BOUND), "no stack on the goal"
    # Packed round the flag: 20 discs of 0.4 fit within 2 units of it; those that came last
    # stand where they met the cluster, on the side they came from.
    away = np.hypot(*(positions - (12.0, 12.0)).T)
    assert np.median(away) < 2.5
    assert away.max() < 5.0


def test_the_same_scene_twice_moves_every_agent_the_same_way():
    runs = []
    for _ in range(2):
        scene = doorway(12)
        for _ in range(240):
            scene.step()
        runs.append(scene.sim.positions.copy())
    assert np.array_equal(runs[0], runs[1])


def test_a_driven_agent_shows_its_row_through_its_controller():
    scene = doorway(CROWD_THRESHOLD)
    scene.step()
    agent = scene.agents[0]
    assert agent.driven
    assert agent.state is AgentState.MOVING
    assert scene.sim.state_counts()[AgentState.MOVING] == CROWD_THRESHOLD
    assert agent.replans == 1
    assert agent.replans_by_cause == {
        ReplanCause.INTERVAL: 1,
        ReplanCause.PATH_CUT: 0,
        ReplanCause.GOAL_MOVED: 0,
    }
    assert agent.position == tuple(scene.sim.positions[0])
    assert 0.0 <= agent.heading_deg < 360.0
    assert agent.outcome is not None
    assert agent.outcome.found
    assert agent.outcome.expanded == 0
    assert agent.outcome.cells[-1] == (8, 26), "the field's goal: the exit's cell"
    assert len(agent.waypoints) == 1, "it heads for its cell's aim"
    before = agent.distance_travelled
    for _ in range(30):
        scene.step()
    assert agent.distance_travelled > before
    scene.sim.sync_nodes()  # nodes are written when read, not every frame
    assert agent.game_object.xy == pytest.approx(agent.position, abs=1e-5)


def test_a_target_gone_to_another_cell_is_a_goal_moved_replan_and_the_crowd_follows():
    scene = doorway(CROWD_THRESHOLD)
    scene.run(30.0)
    exit_flag = scene.world.find("exit")
    assert exit_flag is not None
    exit_flag.node.set_pos(26.5, 3.5, 0.0)
    scene.step()
    assert all(agent.replans_by_cause[ReplanCause.GOAL_MOVED] == 1 for agent in scene.agents)
    assert all(
        agent.outcome is not None and agent.outcome.cells[-1] == (3, 26)
        for agent in scene.agents
        if agent.state is AgentState.MOVING
    )
    assert scene.run(20.0) < 20.0
    assert all(math.dist(agent.position, (26.5, 3.5)) < 3.0 for agent in scene.agents)


def test_a_block_dropped_on_a_driven_agent_pushes_it_aside_and_counts():
    scene = doorway(CROWD_THRESHOLD)
    for _ in range(30):
        scene.step()
    agent = scene.agents[0]
    x, y = agent.position
    scene.wall("dropped", (math.floor(x) + 0.5, math.floor(y) + 0.5), (1.0, 1.0))
    scene.step()
    assert agent.pushes == 1
    assert agent.replans_by_cause[ReplanCause.PATH_CUT] >= 1
    assert scene.wall_frames == 0


def test_agents_left_too_few_steer_themselves_again():
    scene = doorway(CROWD_THRESHOLD)
    for _ in range(20):
        scene.step()
    assert not any(agent.needs_update for agent in scene.agents), "driven: out of the updates"
    scene.agents[0].game_object.destroy()
    scene.step()  # the agent leaves at the end of this frame
    scene.step()  # and its row at the start of this one
    remaining = scene.agents[1:]
    assert len(scene.sim) == CROWD_THRESHOLD - 1
    assert not any(agent.driven for agent in remaining)
    assert all(agent.needs_update for agent in remaining), "steering again: updated again"
    scene.agents = remaining
    assert scene.run(30.0) < 30.0
    assert scene.worst_overlap <= OVERLAP_BOUND


def test_reset_puts_a_driven_agent_where_it_spawned_and_patrol_turns_it_round():
    scene = doorway(CROWD_THRESHOLD)
    scene.add("start", "Start", (2.5, 2.5))
    for _ in range(60):
        scene.step()
    agent = scene.agents[0]
    agent.reset_to_start()
    assert agent.position == (1.5, 6.5), "a crowd's agent goes back where it spawned"
    agent.toggle_mode()
    assert agent.mode is AgentMode.PATROL
    scene.step()
    assert agent.state is AgentState.MOVING


@pytest.mark.parametrize("avoidance", [True, False], ids=["avoiding", "not-avoiding"])
def test_two_lone_agents_head_on(avoidance):
    scene = Scene(9, 24)
    scene.add("west", "Untagged", (2.5, 4.5))
    scene.add("east", "Untagged", (21.5, 4.5))
    scene.agent("going-east", (3.5, 4.5), target="east", avoidance=avoidance)
    scene.agent("going-west", (20.5, 4.5), target="west", avoidance=avoidance)
    taken = scene.run(20.0)
    assert not scene.sim.driven.any(), "two agents steer themselves"
    assert taken < 20.0
    if avoidance:
        assert scene.worst_overlap <= OVERLAP_BOUND
    else:
        assert scene.worst_overlap > 0.5, "without avoidance they walk through each other"
