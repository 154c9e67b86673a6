"""Agents in a world that moves: replans by cause, pushes, incremental repairs.

A bare World with a GridManager, Start, End and one agent, stepped by hand at a fixed dt; the
obstacles are moved by the test between frames, as SceneMotion moves them before the grid.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from panda3d.core import NodePath

from sim.app.report import AgentEntry
from sim.app.report_builder import agent_entry
from sim.components.agent_controller import AgentController, AgentState, ReplanCause
from sim.components.grid_manager import GridManager
from sim.config import AgentConfig
from sim.crowd.route import RouteCells, nearest_clear_point, swept_cells
from sim.engine import GameObject, World
from sim.navigation import find_path

DT = 1 / 60
SLOW_INTERVAL_S = 30.0  # longer than any test runs: a replan it makes is not the interval's


class Scene:
    """A 20 x 20 grid (origin -10, -10) with Start, End and one agent, stepped by hand."""

    def __init__(
        self,
        *,
        agent: AgentConfig | None = None,
        start: tuple[float, float] = (-7.5, -7.5),
        end: tuple[float, float] = (7.5, 7.5),
        compare_fresh: bool = False,
    ) -> None:
        self.world = World(NodePath("root"))
        self.grid = self.world.spawn("grid").add_component(
            GridManager(
                origin=(-10.0, -10.0), num_of_rows=20, num_of_columns=20, grid_cell_size=1.0
            )
        )
        self.start = self.add("start", "Start", start)
        self.end = self.add("end", "End", end)
        config = agent or AgentConfig(replan_interval_s=SLOW_INTERVAL_S)
        controller = AgentController(self.grid, config, compare_fresh=compare_fresh)
        self.agent = self.add("agent", "Agent", start).add_component(controller)
        self.blocked_frames = 0

    def add(
        self,
        name: str,
        tag: str,
        pos: tuple[float, float],
        scale: tuple[float, float, float] = (1.0, 1.0, 1.0),
    ) -> GameObject:
        node = self.world.root.attach_new_node(name)
        node.set_pos(pos[0], pos[1], 0.0)
        node.set_scale(*scale)
        return self.world.add(GameObject(node, tag=tag))

    def wall(self, name: str, center: tuple[float, float], size: tuple[float, float]) -> GameObject:
        return self.add(name, "Obstacle", center, (size[0], size[1], 1.0))

    def step(self, frames: int = 1, until=None) -> int:
        """Step up to `frames` frames; stop early when `until()` holds. Returns frames stepped."""
        for frame in range(1, frames + 1):
            self.world.step(DT)
            if self.grid.is_blocked_at(*self.agent.position):
                self.blocked_frames += 1
            if until is not None and until():
                return frame
        return frames

    def by_cause(self) -> dict[str, int]:
        return {str(cause): count for cause, count in self.agent.replans_by_cause.items()}

    def disc_is_clear(self) -> bool:
        position = self.agent.position
        return self.grid.move_is_clear(position, position, radius=self.agent.config.radius)


def test_a_block_that_cuts_the_route_replans_at_once_as_path_cut():
    scene = Scene()
    scene.step(30)
    assert scene.by_cause() == {"interval": 1, "path_cut": 0, "goal_moved": 0}
    # Across the diagonal the agent heads along, well ahead of it.
    scene.wall("cut", (2.0, 2.0), (6.0, 1.0))
    scene.step(1)
    assert scene.by_cause() == {"interval": 1, "path_cut": 1, "goal_moved": 0}
    assert scene.agent.last_cause is ReplanCause.PATH_CUT
    route = [scene.agent.position, *scene.agent.waypoints]
    assert all(
        scene.grid.move_is_clear(a, b, radius=scene.agent.config.radius)
        for a, b in itertools.pairwise(route)
    ), "the new route goes round the block"


def test_a_block_off_the_route_waits_for_the_interval():
    scene = Scene()
    scene.step(30)
    scene.wall("aside", (6.5, -6.5), (1.0, 1.0))
    scene.step(30)
    assert scene.agent.replans == 1, "nothing it goes through changed"


def test_a_block_on_a_leg_already_passed_does_not_cut_the_route():
    scene = Scene(start=(-7.5, -7.5), end=(7.5, -7.5))
    scene.wall("wall", (0.0, -4.0), (1.0, 8.0))  # the route goes over its top end
    scene.step(240, until=lambda: scene.agent.position[0] > 2.0)
    assert scene.agent.position[0] > 2.0
    replans = scene.agent.replans
    scene.wall("behind", (-5.5, -7.5), (1.0, 1.0))  # where it started from
    scene.step(2)
    assert scene.agent.replans == replans


def test_the_goal_moving_to_another_cell_replans_as_goal_moved():
    scene = Scene()
    scene.step(30)
    scene.end.node.set_pos(7.9, 7.1, 0.0)  # the same cell
    scene.step(5)
    assert scene.agent.replans == 1
    scene.end.node.set_pos(7.5, -7.5, 0.0)
    scene.step(1)
    assert scene.by_cause() == {"interval": 1, "path_cut": 0, "goal_moved": 1}
    assert scene.agent.waypoints[-1] == pytest.approx((7.5, -7.5))


def test_the_interval_still_replans():
    scene = Scene(agent=AgentConfig(replan_interval_s=0.5))
    scene.step(61)
    assert scene.by_cause() == {"interval": 3, "path_cut": 0, "goal_moved": 0}


def test_a_block_sliding_onto_the_agent_pushes_it_aside_in_the_same_frame():
    scene = Scene()
    scene.step(60)
    x, y = scene.agent.position
    block = scene.wall("slider", (x + 1.5, y), (1.0, 1.0))
    scene.step(1)
    pushes, cuts = scene.agent.pushes, scene.agent.replans_by_cause[ReplanCause.PATH_CUT]
    # The block slides 0.9 units onto the agent's disc: its west face ends 0.1 past the centre.
    block.node.set_x(x + 0.4)
    scene.step(1)
    assert scene.agent.pushes == pushes + 1
    assert scene.agent.replans_by_cause[ReplanCause.PATH_CUT] == cuts + 1
    assert scene.disc_is_clear()
    assert scene.blocked_frames == 0
    moved = math.dist(scene.agent.position, (x, y))
    assert moved < 0.75, "just beside the block, not on some cell centre farther off"


def test_a_block_sweeping_over_a_standing_agent_never_leaves_it_in_a_wall():
    scene = Scene(start=(-7.5, -7.5), end=(-7.5, -7.5))
    scene.step(5)
    assert scene.agent.state is AgentState.ARRIVED
    block = scene.wall("sweeper", (-7.5, -4.0), (2.0, 1.0))
    for frame in range(180):  # down across the agent at 2 units a second
        block.node.set_y(-4.0 - 2.0 * DT * (frame + 1))
        scene.step(1)
        assert scene.disc_is_clear(), f"frame {frame}"
    assert scene.agent.pushes >= 1
    assert scene.blocked_frames == 0
    assert scene.agent.blocked_cell_frames == 0


def test_the_agent_waits_at_a_closed_door_and_goes_on_when_it_opens():
    scene = Scene(agent=AgentConfig(replan_interval_s=0.5))
    door = scene.wall("door", (0.5, 0.0), (1.0, 20.0))  # across the whole grid
    scene.step(30)
    assert scene.agent.state is AgentState.NO_PATH
    stood = scene.agent.position
    scene.step(60)
    assert scene.agent.position == stood
    door.node.set_z(-2.0)  # SceneMotion sinks an open door: its footprint leaves the grid
    door.node.set_sz(1.0)
    door.destroy()
    scene.step(60 * 20, until=lambda: scene.agent.state is AgentState.ARRIVED)
    assert scene.agent.state is AgentState.ARRIVED
    assert scene.agent.blocked_cell_frames == 0


def test_repaired_plans_cost_what_a_fresh_astar_costs():
    scene = Scene(compare_fresh=True)
    scene.step(1)
    rng = np.random.default_rng(15)
    repaired = 0
    for index in range(25):
        cx, cy = rng.integers(-6, 6, size=2)
        scene.wall(f"w{index}", (float(cx) + 0.5, float(cy) + 0.5), (2.0, 1.0))
        scene.agent.replan_now(ReplanCause.PATH_CUT)
        scene.step(1)
        outcome = scene.agent.outcome
        assert outcome is not None
        if not outcome.found:
            continue
        fresh = find_path(
            scene.grid.walkable, outcome.cells[0], outcome.cells[-1], algorithm="astar"
        )
        assert outcome.cost == pytest.approx(fresh.cost, abs=1e-9)
        assert outcome.fresh_expanded == fresh.expanded
        scene.step(10)
        repaired += outcome.repaired
    assert repaired >= 10, "most plans repair the last search"
    assert scene.agent.expanded_total > 0


def test_only_the_comparing_agent_runs_a_fresh_astar():
    scene = Scene()
    scene.step(1)
    assert scene.agent.outcome is not None
    assert scene.agent.outcome.fresh_expanded is None


def test_a_new_heuristic_gives_the_agent_a_new_search():
    scene = Scene(compare_fresh=True)
    scene.step(1)
    scene.grid.set_planning(heuristic="manhattan")  # not consistent 8-connected: plain A*
    scene.step(1)
    outcome = scene.agent.outcome
    assert outcome is not None
    assert outcome.found
    assert outcome.fresh_expanded is None, "no incremental search to compare"
    scene.grid.set_planning(heuristic="euclidean")
    scene.step(1)
    outcome = scene.agent.outcome
    assert outcome is not None
    assert not outcome.repaired, "a new search starts afresh"
    assert outcome.fresh_expanded is not None
    assert scene.by_cause()["interval"] == 3, "settings changes are explicit replans"


def test_patrol_turning_round_is_goal_moved():
    from sim.config import AgentMode

    scene = Scene(agent=AgentConfig(mode=AgentMode.PATROL, replan_interval_s=SLOW_INTERVAL_S))
    scene.step(60 * 20, until=lambda: scene.agent.arrivals >= 1)
    scene.step(2)
    assert scene.agent.replans_by_cause[ReplanCause.GOAL_MOVED] == 1


def test_report_entry_has_the_new_keys_and_causes_sum_to_replans():
    scene = Scene(agent=AgentConfig(replan_interval_s=0.5))
    scene.step(30)
    scene.wall("cut", (2.0, 2.0), (6.0, 1.0))
    scene.step(30)
    scene.end.node.set_pos(7.5, -7.5, 0.0)
    scene.step(30)
    entry: AgentEntry = agent_entry(scene.agent)
    causes = entry["replans_by_cause"]
    assert set(causes) == {"interval", "path_cut", "goal_moved"}
    assert causes["interval"] + causes["path_cut"] + causes["goal_moved"] == entry["replans"]
    assert min(causes["interval"], causes["path_cut"], causes["goal_moved"]) >= 1
    assert entry["pushes"] == 0
    assert entry["expanded_total"] >= entry["replans"]


def test_swept_cells_of_a_disc_reach_the_rows_beside_it():
    assert swept_cells((0.5, 1.5), (4.5, 1.5), 0.0, (3, 5)).tolist() == [5, 6, 7, 8, 9]
    assert swept_cells((0.5, 1.5), (4.5, 1.5), 0.5, (3, 5)).tolist() == [5, 6, 7, 8, 9]
    assert swept_cells((0.5, 1.5), (4.5, 1.5), 0.6, (3, 5)).tolist() == list(range(15))


def test_a_point_route_through_a_corner_counts_the_corner_cells():
    cells = swept_cells((0.5, 0.5), (1.5, 1.5), 0.0, (2, 2)).tolist()
    assert cells == [0, 1, 2, 3], "a block on a corner cell stops a corner-cutting move"


def test_route_cells_drop_the_legs_passed():
    world = World(NodePath("root"))
    grid = world.spawn("grid").add_component(
        GridManager(origin=(0.0, 0.0), num_of_rows=1, num_of_columns=10, grid_cell_size=1.0)
    )
    route = RouteCells([(0.5, 0.5), (4.5, 0.5), (9.5, 0.5)], 0.0, grid.mask_version)
    assert np.unique(route.remaining(grid, 2)).tolist() == list(range(10))
    assert np.unique(route.remaining(grid, 1)).tolist() == list(range(4, 10))
    assert route.remaining(grid, 0).tolist() == []


def test_a_cell_blocked_when_the_route_was_planned_does_not_cut_it():
    scene = Scene()
    old = scene.wall("old", (0.5, 0.5), (1.0, 1.0))
    scene.step(1)
    version = scene.grid.mask_version
    flat = np.array([10 * 20 + 10], dtype=np.intp)  # the cell (10, 10) the old wall covers
    assert not scene.grid.blocked_since_mask(flat, version)
    old.node.set_x(0.6)  # moves a little: the cell stays covered throughout
    scene.step(1)
    assert not scene.grid.blocked_since_mask(flat, version)
    scene.wall("new", (1.5, 0.5), (1.0, 1.0))
    scene.step(1)
    assert scene.grid.blocked_since_mask(np.array([10 * 20 + 11], dtype=np.intp), version)


def test_nearest_clear_point_is_beside_the_wall_not_on_a_cell_centre():
    world = World(NodePath("root"))
    grid = world.spawn("grid").add_component(
        GridManager(origin=(0.0, 0.0), num_of_rows=5, num_of_columns=5, grid_cell_size=1.0)
    )
    node = world.root.attach_new_node("wall")
    node.set_pos(2.5, 2.5, 0.0)
    world.add(GameObject(node, tag="Obstacle"))
    world.step(DT)
    point = nearest_clear_point(grid, (2.3, 1.9), 0.4)
    assert point is not None
    assert grid.move_is_clear(point, point, radius=0.4)
    assert point == pytest.approx((2.3, 1.6), abs=1e-3), "straight down, out of the wall's way"
    assert find_path(grid.walkable, (0, 0), (4, 4)).found


def test_incremental_searches_stop_at_their_memory_budget(monkeypatch):
    from sim.components import grid_manager

    monkeypatch.setattr(grid_manager, "INCREMENTAL_CELLS", 3 * 20 * 20)
    scene = Scene()
    searches = [scene.grid.incremental_search() for _ in range(3)]
    assert all(search is not None for search in searches)
    assert scene.grid.incremental_search() is None, "a fourth would pass the budget"
    del searches[0]
    assert scene.grid.incremental_search() is not None, "a search let go frees its share"
