"""Run a crowd scene headless on a bare World (no ShowBase) and watch it frame by frame.

`SceneRun` builds what the app builds for a scene's agents (grid, shared fields, the crowd,
every object as a node, each agent with its controller) and steps it at a fixed 1/60 s;
`run_until_arrived` records what the torture bounds speak of: when every agent arrived, the
deepest overlap, frames on blocked cells, the longest stall away from the goal outside a joint
plan, and the hand-offs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from panda3d.core import NodePath

from sim.bench.crowd import overlap_depth
from sim.components.agent_controller import AgentController
from sim.components.crowd import CrowdField
from sim.components.crowd_sim import CrowdSim
from sim.components.grid_manager import GridManager
from sim.config import AgentConfig, Tag
from sim.crowd.crowd import Crowd
from sim.crowd.disc_walls import Walls
from sim.crowd.state import AgentState
from sim.engine import GameObject, World
from sim.scene.spec import SceneSpec

DT = 1.0 / 60.0
WALL_TOLERANCE = 1e-6  # cells: a disc may graze a wall by rounding, as the benchmark allows
STALL_SPEED = 0.05  # below this fraction of its speed an agent stands, as the benchmark counts


class SceneRun:
    """`scene`'s agents on a bare World, stepped at `DT` (see the module)."""

    def __init__(self, scene: SceneSpec) -> None:
        self.scene = scene
        self.world = World(NodePath("torture"))
        spec = scene.grid
        self.grid = self.world.spawn("grid-manager").add_component(
            GridManager(
                origin=spec.origin,
                num_of_rows=spec.rows,
                num_of_columns=spec.columns,
                grid_cell_size=spec.cell_size,
                rule=spec.rule,
                show_grid=False,
                show_obstacle_blocks=False,
            )
        )
        self.fields = self.world.spawn("crowd-field").add_component(CrowdField(self.grid))
        self.sim = self.world.spawn("crowd-sim").add_component(CrowdSim(self.grid, self.fields))
        self.agents: list[AgentController] = []
        for obj in scene.objects:
            node = self.world.root.attach_new_node(obj.name)
            node.set_pos(*obj.pos)
            node.set_scale(*obj.scale)
            node.set_h(obj.heading)
            game_object = self.world.add(GameObject(node, tag=obj.tag))
            if obj.tag is Tag.AGENT:
                controller = AgentController(
                    self.grid, obj.agent or AgentConfig(), crowd=self.fields, crowd_sim=self.sim
                )
                self.agents.append(game_object.add_component(controller))
        self.time_s = 0.0

    @property
    def crowd(self) -> Crowd:
        return self.sim.crowd

    def step(self) -> None:
        self.world.step(DT)
        self.time_s += DT

    def arrived(self) -> list[bool]:
        return [agent.state is AgentState.ARRIVED for agent in self.agents]


@dataclass
class Outcome:
    """What a run showed (see `run_until_arrived`)."""

    arrived_s: float | None = None
    overlap_max: float = 0.0
    blocked_frames: int = 0
    wall_frames: int = 0  # frames in which some disc overlapped a blocked cell
    stalled_max_s: float = 0.0
    handoffs: int = 0
    joint_max: int = 0
    frames: list[np.ndarray] = field(default_factory=list)


def run_until_arrived(run: SceneRun, limit_s: float, *, keep_frames: bool = False) -> Outcome:
    """Step `run` until every agent arrived or `limit_s` passed; measure on the way.

    An agent stalls while it moves slower than `STALL_SPEED` of its speed, has not arrived
    and is in no joint plan (waiting in one is the plan's, not a stall).
    """
    outcome = Outcome()
    crowd = run.crowd
    run.step()  # everyone joins the crowd
    speeds = np.array([crowd.settings_of(index).speed for index in crowd.indices])
    stalled = np.zeros(len(speeds))
    walls = Walls(run.grid.walkable)
    origin, size = np.asarray(run.grid.origin), run.grid.grid_cell_size
    while run.time_s < limit_s:
        run.step()
        positions = crowd.positions
        hit = walls.hit((positions - origin) / size, crowd.radii / size - WALL_TOLERANCE)
        outcome.wall_frames += int(hit.any())
        outcome.overlap_max = max(outcome.overlap_max, overlap_depth(positions, crowd.radii))
        moving = np.hypot(crowd.velocities[:, 0], crowd.velocities[:, 1])
        away = np.array(
            [crowd.get(index, "state") is not AgentState.ARRIVED for index in crowd.indices]
        )
        planned = np.asarray(crowd.jam_members)
        standing = (moving < STALL_SPEED * speeds) & away & ~planned
        stalled = np.where(standing, stalled + DT, 0.0)
        outcome.stalled_max_s = max(outcome.stalled_max_s, float(stalled.max()))
        outcome.joint_max = max(outcome.joint_max, int(planned.sum()))
        if keep_frames:
            outcome.frames.append(positions.copy())
        if not away.any():
            outcome.arrived_s = run.time_s
            break
    outcome.blocked_frames = sum(agent.blocked_cell_frames for agent in run.agents)
    outcome.handoffs = crowd.jam_report().handoffs
    return outcome
