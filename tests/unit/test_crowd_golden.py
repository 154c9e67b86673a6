"""The crowd moves every agent exactly as it did when these traces were recorded.

Each scenario runs on a bare World (no window, fixed dt) and folds every agent's state of every
frame (position, heading, state, replan counts, ...) into a SHA-256 digest, checked every
`CHECK_EVERY` frames against `tests/data/crowd_golden.json`. A refactor of the crowd must keep
them bit for bit; a deliberate change of behaviour records them again with
`python -m tests.unit.test_crowd_golden` (and says why in its commit).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

import pytest
from panda3d.core import NodePath

from sim.bench.crowd import crowd_throughput
from sim.components.agent_controller import AgentController
from sim.components.crowd import CrowdField
from sim.components.crowd_sim import CrowdSim
from sim.components.grid_manager import GridManager
from sim.config import AgentConfig, AgentMode
from sim.engine import GameObject, World
from tests.helpers.paths import REPO_ROOT

GOLDEN = REPO_ROOT / "tests" / "data" / "crowd_golden.json"
DT = 1 / 60
FRAMES = 360
CHECK_EVERY = 60
BENCH = "bench_150_agents_3s"
TIMINGS = ("sim_fps", "sim_cpu_fps", "planning_ms_per_sim_s")


class Scene:
    """A walled grid and its agents in one crowd, traced frame by frame."""

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
        self.digest = hashlib.sha256()

    def add(
        self, name: str, tag: str, pos: tuple[float, float], scale=(1.0, 1.0, 1.0)
    ) -> GameObject:
        node = self.world.root.attach_new_node(name)
        node.set_pos(pos[0], pos[1], 0.0)
        node.set_scale(*scale)
        return self.world.add(GameObject(node, tag=tag))

    def agent(self, name: str, pos: tuple[float, float], **settings) -> AgentController:
        config = AgentConfig(**{"speed": 3.0, **settings})
        controller = AgentController(self.grid, config, crowd=self.crowd, crowd_sim=self.sim)
        self.agents.append(self.add(name, "Agent", pos).add_component(controller))
        return controller

    def step(self) -> None:
        self.world.step(DT)
        for agent in self.agents:
            self.digest.update(repr(trace_of(agent)).encode())


def trace_of(agent: AgentController) -> tuple[object, ...]:
    """Everything of an agent the report, the trace and the HUD read."""
    return (
        agent.position,
        agent.heading_deg,
        agent.state.value,
        agent.driven,
        agent.replans,
        tuple(sorted((cause.value, count) for cause, count in agent.replans_by_cause.items())),
        None if agent.last_cause is None else agent.last_cause.value,
        agent.arrivals,
        agent.pushes,
        agent.expanded_total,
        agent.distance_travelled,
        agent.blocked_cell_frames,
        tuple(agent.waypoints),
    )


def doorway_with_a_drop() -> Scene:
    """Twelve agents through a door (the crowd drives them); a block dropped in their way."""
    scene = Scene(16, 30)
    scene.add("wall-south", "Obstacle", (15.5, 3.5), (1.0, 7.0, 1.0))
    scene.add("wall-north", "Obstacle", (15.5, 12.5), (1.0, 7.0, 1.0))
    scene.add("exit", "Untagged", (26.5, 8.5))
    for index in range(12):
        scene.agent(
            f"walker-{index + 1}", (1.5 + index % 6, 6.5 + 1.2 * (index // 6)), target="exit"
        )
    for _ in range(40):
        scene.step()
    scene.add("dropped", "Obstacle", (9.5, 7.5))
    return scene


def lone_agents_head_on() -> Scene:
    """Two agents steering themselves toward each other, avoiding; a third without avoidance."""
    scene = Scene(9, 24)
    scene.add("west", "Untagged", (2.5, 4.5))
    scene.add("east", "Untagged", (21.5, 4.5))
    scene.agent("going-east", (3.5, 4.5), target="east")
    scene.agent("going-west", (20.5, 4.5), target="west")
    scene.agent("careless", (12.5, 2.5), target="west", avoidance=False, radius=0.3)
    return scene


def mixed_crowd() -> Scene:
    """A crowd on a flag, a patrol between Start and End, a chaser of a crowd agent; one leaves."""
    scene = Scene(20, 20)
    scene.add("start", "Start", (2.5, 17.5))
    scene.add("end", "End", (17.5, 2.5))
    scene.add("flag", "Untagged", (10.5, 10.5))
    scene.add("block", "Obstacle", (8.5, 10.5), (1.0, 5.0, 1.0))
    for index in range(10):
        scene.agent(f"a{index}", (2.5 + (index % 5) * 1.1, 2.5 + (index // 5) * 1.1), target="flag")
    scene.agent("patroller", (2.5, 15.5), mode=AgentMode.PATROL, speed=4.0)
    scene.agent("chaser", (17.5, 17.5), target="a3", speed=2.0)
    for _ in range(90):
        scene.step()
    leaving = scene.agents.pop(0)
    leaving.game_object.destroy()
    return scene


SCENARIOS: dict[str, Callable[[], Scene]] = {
    "doorway_with_a_drop": doorway_with_a_drop,
    "lone_agents_head_on": lone_agents_head_on,
    "mixed_crowd": mixed_crowd,
}


def digests(make: Callable[[], Scene]) -> list[str]:
    """The scenario's trace digest after every `CHECK_EVERY` frames of `FRAMES`."""
    scene = make()
    found = []
    for frame in range(1, FRAMES + 1):
        scene.step()
        if frame % CHECK_EVERY == 0:
            found.append(scene.digest.hexdigest())
    return found


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_crowd_traces_as_recorded(name: str) -> None:
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))[name]
    assert digests(SCENARIOS[name]) == recorded


def bench_result() -> dict[str, object]:
    """What `sim bench --crowd` measures of 150 agents for 3 s, its timings left out."""
    result = crowd_throughput(150, seconds=3.0)
    return {key: value for key, value in result.items() if key not in TIMINGS}


def test_the_crowd_bench_moves_its_agents_as_recorded() -> None:
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))[BENCH]
    assert bench_result() == recorded


if __name__ == "__main__":
    golden: dict[str, object] = {name: digests(make) for name, make in sorted(SCENARIOS.items())}
    golden[BENCH] = bench_result()
    GOLDEN.write_text(json.dumps(golden, indent=1) + "\n", encoding="utf-8")
