"""CrowdField and agents in crowd mode, on a bare World: no window, fixed dt."""

from __future__ import annotations

import pytest
from panda3d.core import NodePath

from sim.components.agent_controller import AgentController, AgentState
from sim.components.crowd import CROWD_THRESHOLD, CrowdField
from sim.components.grid_manager import GridManager
from sim.config import AgentConfig
from sim.engine import GameObject, World

DT = 1 / 60


class CrowdScene:
    """A 20x20 grid (origin -10, -10) with a wall, Start, End and `count` agents near Start."""

    def __init__(self, count: int, *, threshold: int = CROWD_THRESHOLD, end=(7.5, 7.5)):
        self.world = World(NodePath("root"))
        self.grid = self.world.spawn("grid").add_component(
            GridManager(
                origin=(-10.0, -10.0), num_of_rows=20, num_of_columns=20, grid_cell_size=1.0
            )
        )
        self.crowd = self.world.spawn("crowd").add_component(
            CrowdField(self.grid, threshold=threshold)
        )
        self.add("start", "Start", (-7.5, -7.5))
        self.end = self.add("end", "End", end)
        wall = self.add("wall", "Obstacle", (0.0, 0.0))
        wall.node.set_scale(1.0, 12.0, 1.0)
        self.agents = []
        for index in range(count):
            x, y = -8.5 + (index % 5) * 0.9, -8.5 + (index // 5) * 0.9
            agent_object = self.add(f"crowd-{index + 1}", "Agent", (x, y))
            self.agents.append(
                agent_object.add_component(
                    AgentController(self.grid, AgentConfig(speed=4.0), crowd=self.crowd)
                )
            )

    def add(self, name, tag, pos) -> GameObject:
        node = self.world.root.attach_new_node(name)
        node.set_pos(pos[0], pos[1], 0.0)
        return self.world.add(GameObject(node, tag=tag))

    def run(self, seconds: float) -> int:
        """Step until every agent arrived or `seconds` pass; return frames with one on a wall."""
        blocked = 0
        for _ in range(round(seconds / DT)):
            self.world.step(DT)
            blocked += sum(self.grid.is_blocked_at(*agent.position) for agent in self.agents)
            if all(agent.state is AgentState.ARRIVED for agent in self.agents):
                break
        return blocked


def test_twenty_agents_in_crowd_mode_all_reach_end():
    scene = CrowdScene(20)
    blocked = scene.run(30.0)
    assert scene.crowd.active
    for agent in scene.agents:
        assert agent.reached_goal, f"{agent.game_object.name} is {agent.state} at {agent.position}"
        assert agent.blocked_cell_frames == 0
        assert agent.outcome is not None
        assert agent.outcome.expanded == 0, "planned along the field, not with A*"
    assert blocked == 0
    # One field per simulated second at most, not one search per agent per replan.
    assert scene.crowd.fields_computed <= 1 + scene.world.time_s / scene.crowd.replan_interval_s


def test_below_the_threshold_agents_run_a_star():
    scene = CrowdScene(3)
    scene.run(0.5)
    assert not scene.crowd.active
    assert scene.crowd.fields_computed == 0
    assert all(agent.outcome is not None and agent.outcome.expanded > 0 for agent in scene.agents)


@pytest.mark.parametrize("smoothing", [True, False], ids=["smoothed", "raw"])
def test_field_plan_costs_what_the_a_star_plan_costs(smoothing):
    scene = CrowdScene(1, threshold=1)
    scene.world.step(DT)
    start, goal = (-8.5, -8.5), (7.5, 7.5)
    field_plan = scene.crowd.waypoints_from(start, goal, smoothing=smoothing)
    a_star = scene.grid.plan(start, goal, smoothing=smoothing)
    assert field_plan.found
    assert a_star.found
    assert field_plan.cost == pytest.approx(a_star.cost, abs=1e-9)
    assert field_plan.cells[0] == a_star.cells[0]
    assert field_plan.cells[-1] == a_star.cells[-1]
    assert field_plan.waypoints[-1] == a_star.waypoints[-1] == goal


def test_single_agent_waypoints_from_the_start_match_a_star():
    scene = CrowdScene(1, threshold=1)
    scene.world.step(DT)
    agent = scene.agents[0]
    start = agent.position
    assert agent.outcome is not None
    a_star = scene.grid.plan(start, (7.5, 7.5), smoothing=True)
    assert agent.outcome.cost == pytest.approx(a_star.cost, abs=1e-9)
    assert agent.outcome.expanded == 0


def test_field_follows_a_moved_end_and_a_changed_grid():
    scene = CrowdScene(CROWD_THRESHOLD)
    scene.run(1.0)
    before = scene.crowd.fields_computed
    scene.end.node.set_pos(-7.5, 7.5, 0.0)
    scene.run(0.2)
    assert scene.crowd.fields_computed > before
    goal_cell = scene.grid.world_to_cell(-7.5, 7.5)
    assert all(
        agent.outcome is not None and agent.outcome.cells[-1] == goal_cell for agent in scene.agents
    )
    scene.run(20.0)
    assert all(agent.reached_goal for agent in scene.agents)


def test_walled_in_end_means_no_path_for_the_crowd():
    scene = CrowdScene(CROWD_THRESHOLD)
    for name, (x, y, sx, sy) in {
        "n": (7.5, 9.0, 5.0, 1.0),
        "s": (7.5, 6.0, 5.0, 1.0),
        "w": (5.5, 7.5, 1.0, 4.0),
        "e": (9.5, 7.5, 1.0, 4.0),
    }.items():
        wall = scene.add(name, "Obstacle", (x, y))
        wall.node.set_scale(sx, sy, 1.0)
    scene.run(0.5)
    assert all(agent.state is AgentState.NO_PATH for agent in scene.agents)
    assert all(agent.outcome is not None and not agent.outcome.found for agent in scene.agents)


def test_destroyed_agents_leave_the_crowd():
    scene = CrowdScene(CROWD_THRESHOLD)
    scene.world.step(DT)
    goal_cell = scene.grid.world_to_cell(7.5, 7.5)
    assert scene.crowd.active_for(goal_cell)
    scene.agents[0].game_object.destroy()
    scene.world.step(DT)
    assert scene.crowd.sharing(goal_cell) == CROWD_THRESHOLD - 1
    assert not scene.crowd.active_for(goal_cell)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"threshold": 0}, "threshold"), ({"replan_interval_s": 0.0}, "replan_interval_s")],
    ids=["threshold-zero", "interval-zero"],
)
def test_bad_settings_are_value_errors(kwargs, message):
    grid = GridManager(origin=(0.0, 0.0), num_of_rows=2, num_of_columns=2, grid_cell_size=1.0)
    with pytest.raises(ValueError, match=message):
        CrowdField(grid, **kwargs)


@pytest.mark.parametrize("start", [(-8.5, -8.5), (-3.2, 6.1), (9.5, -9.5)], ids=["sw", "w", "se"])
def test_memoized_smoothing_equals_smoothing_the_whole_field_path(start):
    scene = CrowdScene(1, threshold=1)
    scene.world.step(DT)
    scene.crowd.waypoints_from((-8.5, 8.5), (7.5, 7.5))  # fills the anchor memo first
    plan = scene.crowd.waypoints_from(start, (7.5, 7.5))
    assert plan.waypoints == scene.grid._waypoints(plan.cells, (7.5, 7.5), smoothing=True)
