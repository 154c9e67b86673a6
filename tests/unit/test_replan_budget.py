"""The replan budget in the app: ``[grid] replan_budget_ms``, and agents claiming plans under it.

The budget's clock is swapped for a count of plans made, so "the frame's work is bounded" is
checked by counting plans, never by timing them.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from panda3d.core import NodePath

from sim.commands.cli import main
from sim.components.agent_controller import AgentController
from sim.components.crowd import CrowdField
from sim.components.grid_manager import GridManager
from sim.config import AgentConfig
from sim.engine import GameObject, World
from sim.engine.replan_queue import ReplanQueue
from sim.scene.file import load_scene
from sim.scene.spec import SceneError

DT = 1 / 60
GRID = "version = 1\n\n[grid]\norigin = [0.0, 0.0]\nrows = 4\ncolumns = 4\ncell_size = 1.0\n"


def write_scene(tmp_path: Path, lines: str) -> Path:
    path = tmp_path / "scene.toml"
    path.write_text(GRID + lines, encoding="utf-8")
    return path


def test_the_budget_key_is_read_and_absent_means_no_budget(tmp_path: Path) -> None:
    assert load_scene(write_scene(tmp_path, "replan_budget_ms = 4\n")).grid.replan_budget_ms == 4.0
    assert load_scene(write_scene(tmp_path, "")).grid.replan_budget_ms is None


@pytest.mark.parametrize("value", ["0", "-2.5", '"fast"'], ids=["zero", "negative", "text"])
def test_a_bad_budget_is_one_line(tmp_path: Path, value: str) -> None:
    with pytest.raises(SceneError, match=r"grid\.replan_budget_ms: "):
        load_scene(write_scene(tmp_path, f"replan_budget_ms = {value}\n"))


def test_a_bad_budget_exits_2_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_scene(tmp_path, "replan_budget_ms = -1\n")
    assert main(["compare", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "replan_budget_ms: must be > 0, got -1" in err[0]


class PlanClock:
    """The budget's clock: one second per plan the agents made."""

    def __init__(self, agents: list[AgentController]) -> None:
        self.agents = agents

    def __call__(self) -> float:
        return float(sum(agent.replans for agent in self.agents))


def budget_world(count: int) -> tuple[World, list[AgentController], CrowdField]:
    """A 40 x 40 grid, End in a corner, `count` agents each chasing its own target."""
    world = World(NodePath("root"))
    grid = world.spawn("grid").add_component(
        GridManager(origin=(0.0, 0.0), num_of_rows=40, num_of_columns=40, grid_cell_size=1.0)
    )
    crowd = world.spawn("crowd").add_component(CrowdField(grid, replan_budget_ms=3000.0))
    agents = []
    for index in range(count):
        # Every agent chases a target of its own (no shared field), at its own distance.
        target = world.root.attach_new_node(f"target-{index}")
        target.set_pos(39.5, 39.5 - index, 0.0)
        world.add(GameObject(target, tag="Untagged"))
        node = world.root.attach_new_node(f"agent-{index}")
        node.set_pos(0.5 + (index * 7) % 30, 0.5 + index, 0.0)
        config = AgentConfig(target=f"target-{index}", replan_interval_s=60.0)
        agents.append(
            world.add(GameObject(node, tag="Agent")).add_component(
                AgentController(grid, config, crowd=crowd)
            )
        )
    assert crowd.budget is not None
    crowd.budget = ReplanQueue(3000.0, clock=PlanClock(agents))  # three plans' worth a frame
    return world, agents, crowd


def test_a_burst_is_spread_over_frames_within_the_budget_nearest_first() -> None:
    world, agents, _ = budget_world(20)
    first_frame: dict[int, int] = {}
    per_frame = []
    for frame in range(1, 20):
        before = sum(agent.replans for agent in agents)
        world.step(DT)
        per_frame.append(sum(agent.replans for agent in agents) - before)
        for index, agent in enumerate(agents):
            if agent.replans and index not in first_frame:
                first_frame[index] = frame
    assert len(first_frame) == 20, "every agent planned"
    assert max(per_frame) <= 3
    assert max(first_frame.values()) > 1, "not all in the first frame"
    # Those refused on the first frame were served on later ones nearest first: everyone
    # served on a frame is no farther than anyone served on a later one.
    distance = {i: math.dist((0.5 + (i * 7) % 30, 0.5 + i), (39.5, 39.5 - i)) for i in range(20)}
    later = sorted({frame for frame in first_frame.values() if frame > 1})
    assert len(later) > 1
    for earlier in later[:-1]:
        served_then = [distance[i] for i, f in first_frame.items() if f == earlier]
        served_after = [distance[i] for i, f in first_frame.items() if f > earlier]
        assert max(served_then) <= min(served_after), earlier


def test_without_a_budget_everyone_plans_on_the_first_frame() -> None:
    world = World(NodePath("root"))
    grid = world.spawn("grid").add_component(
        GridManager(origin=(0.0, 0.0), num_of_rows=40, num_of_columns=40, grid_cell_size=1.0)
    )
    crowd = world.spawn("crowd").add_component(CrowdField(grid))
    assert crowd.budget is None
    end = world.root.attach_new_node("end")
    end.set_pos(39.5, 39.5, 0.0)
    world.add(GameObject(end, tag="End"))
    agents = []
    for index in range(6):
        node = world.root.attach_new_node(f"agent-{index}")
        node.set_pos(0.5 + index, 0.5, 0.0)
        agents.append(
            world.add(GameObject(node, tag="Agent")).add_component(
                AgentController(grid, AgentConfig(), crowd=crowd)
            )
        )
    world.step(DT)
    assert all(agent.replans == 1 for agent in agents)
