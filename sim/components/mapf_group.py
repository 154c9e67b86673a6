"""MapfGroup: plan the agents with ``planner = "mapf"`` together and move them in step.

The scene's `[mapf]` table (`MapfSpec`) names the solver (`sim.mapf.solve`), its time limit and
the moves (4-connected, or 8 without corner cutting). The group's problem is the grid's walkable
cells, each agent's cell as its start and its target's cell as its goal; agents that chase one
target (a crowd chasing a marker) get distinct goal cells, the free ones nearest it, in agent
order (`sim.crowd.joint.nearest_free_cells`), and so do agents that stand on one cell or on a
wall.

The plan is followed in step (`sim.crowd.joint`): one cell per time step, a step lasting one
move's travel at the group's slowest speed (a diagonal's under 8-connected moves), the agents
gliding centre to centre and turning toward their way at their turn rate. The group plans again,
jointly and from where it stands, when the world changes: the grid's walkable mask (an obstacle
moved or dropped, a door closing or opening) or a target's cell. It waits for the next step
boundary first, where every agent is on a cell of the old plan, so the new one starts from cells
no two share. Replans count by cause on every agent (`path_cut` for the grid, `goal_moved` for a
target).

Its agents stay `AgentController`s (the report, the trace and the HUD read them as ever), but
their crowd marks their rows joint: the controllers do not steer them, their avoidance is off
(the others go around them; they do not give way) and the group commits their poses.
A plan the solver does not find leaves every agent where it stands, in state ``no path``,
until the world changes again. An agent removed from the scene leaves the group, which plans
again from where the others stand.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from panda3d.core import Quat

from sim.components.agent_controller import AgentController
from sim.components.grid_manager import GridManager
from sim.config import Tag
from sim.crowd.crowd import Crowd
from sim.crowd.joint import JointFollower, nearest_free_cells, step_seconds
from sim.crowd.state import AgentState, ReplanCause
from sim.crowd.steering import look_rotation, slerp, turn_fraction
from sim.engine import Component, GameObject
from sim.mapf import MapfProblem, distance_tables, solve
from sim.mapf.problem import UNREACHABLE
from sim.scene.spec import MapfSpec

SEED = 0
"""The solvers' seed: a scene plans the same way every run."""
MAPF_GROUP = "mapf-group"
"""The name of the game object that holds a scene's group."""


@dataclass(frozen=True, slots=True)
class MapfSummary:
    """The group's last plan, for the report.

    Attributes:
        solver: the `[mapf]` table's solver.
        solved: the last plan was found.
        soc: its sum of costs (0 when not solved).
        makespan: its makespan (0 when not solved).
        replans: joint plans made after the first.
        agents: how many agents the group plans.
    """

    solver: str
    solved: bool
    soc: int
    makespan: int
    replans: int
    agents: int


class MapfGroup(Component):
    """Plan `agents` jointly with `spec`'s solver and move them along the plan (see the module).

    Args:
        grid: The scene's grid.
        spec: The scene's `[mapf]` table.
        agents: The controllers of the agents with ``planner = "mapf"``, in scene order.
        crowd: The crowd their rows are in (the scene's, which they join at awake).
    """

    def __init__(
        self,
        grid: GridManager,
        spec: MapfSpec,
        agents: Sequence[AgentController],
        crowd: Crowd,
    ) -> None:
        super().__init__()
        self._grid, self._spec, self._crowd = grid, spec, crowd
        self.agents = tuple(agents)
        self._indices: list[int] = []
        self._follower: JointFollower | None = None
        self._planned: tuple[int, tuple[int, ...]] | None = None  # mask version, goal cells
        self._pending: ReplanCause | None = None
        self._summary = MapfSummary(spec.solver, False, 0, 0, 0, len(self.agents))
        self._plans = 0

    @property
    def summary(self) -> MapfSummary:
        """The last plan and how often the group planned again."""
        return self._summary

    def update(self, dt: float) -> None:
        """Plan again when the world changed (at a step boundary), then move along the plan."""
        self._drop_the_removed()
        if not self.agents:
            return
        if not self._indices:
            owners = {
                id(owner): index
                for index, owner in zip(self._crowd.indices, self._crowd.owners, strict=True)
            }
            self._indices = [owners[id(agent)] for agent in self.agents]
        goals = self._goal_cells()
        if self._planned is None:
            self._pending = ReplanCause.INTERVAL
        elif goals != self._planned[1]:
            self._pending = ReplanCause.GOAL_MOVED
        elif self._grid.mask_version != self._planned[0]:
            self._pending = ReplanCause.PATH_CUT
        follower = self._follower
        if self._pending is not None and (follower is None or follower.at_boundary):
            self._plan(goals, self._pending)
            self._pending = None
            follower = self._follower
        if follower is not None:
            follower.advance(dt, stop_at_boundary=self._pending is not None)
            self._move(follower, dt)

    def _drop_the_removed(self) -> None:
        """Forget agents destroyed in the scene (by a script, say); the rest plan again."""
        kept = tuple(agent for agent in self.agents if agent.game_object.alive)
        if len(kept) == len(self.agents):
            return
        self.agents, self._indices = kept, []
        self._follower, self._planned = None, None
        self._summary = dataclasses.replace(self._summary, agents=len(kept))

    # ---- Planning ---------------------------------------------------------------------------

    def _goal_cells(self) -> tuple[int, ...]:
        """Each agent's target's cell (its own cell when the target is gone), flat."""
        cells = []
        for agent in self.agents:
            target = self._target(agent)
            where = agent.position if target is None else target.xy
            row, col = self._grid.clamped_cell(where)
            cells.append(row * self._grid.num_of_columns + col)
        return tuple(cells)

    def _target(self, agent: AgentController) -> GameObject | None:
        world = self.world
        if world is None:
            return None
        name = agent.config.target
        found = world.find_with_tag(Tag.END) if name is None else world.find(name)
        return found if found is not None and found.alive else None

    def _plan(self, goals: tuple[int, ...], cause: ReplanCause) -> None:
        grid = self._grid
        self._planned = (grid.mask_version, goals)
        walkable = grid.walkable
        first = np.array([agent.position for agent in self.agents], dtype=np.float64)
        if self._follower is not None:
            here = [int(cell) for cell in self._follower.current_cells()]
        else:
            here = [self._flat(point) for point in first]
        starts = nearest_free_cells(walkable, here)
        problem = _problem(
            walkable, starts, nearest_free_cells(walkable, list(goals)), self._spec.connectivity
        )
        result = None
        if problem is not None:
            result = solve(
                problem[0],
                self._spec.solver,
                time_limit_s=self._spec.time_limit_s,
                seed=SEED,
                tables=problem[1],
            )
        for agent in self.agents:
            if self._plans:
                counts = agent.replans_by_cause
                counts[cause] += 1
                agent.replans_by_cause = counts
            agent.replans += 1
            agent.last_cause = cause
        replans = self._plans
        self._plans += 1
        if problem is None or result is None or not result.solved:
            self._follower = None
            self._summary = MapfSummary(self._spec.solver, False, 0, 0, replans, len(self.agents))
            for agent in self.agents:
                agent.state, agent.waypoints = AgentState.NO_PATH, []
            return
        cells = np.arange(walkable.size, dtype=np.intp)
        speeds = [agent.config.speed for agent in self.agents]
        self._follower = JointFollower(
            result.paths,
            problem[0].goals,
            grid.cell_centres(cells),
            first,
            step_seconds(grid.grid_cell_size, speeds, diagonal=self._spec.connectivity == 8),
        )
        self._summary = MapfSummary(
            self._spec.solver, True, result.soc, result.makespan, replans, len(self.agents)
        )

    def _flat(self, point: Sequence[float]) -> int:
        row, col = self._grid.clamped_cell((float(point[0]), float(point[1])))
        return row * self._grid.num_of_columns + col

    # ---- Moving -------------------------------------------------------------------------------

    def _move(self, follower: JointFollower, dt: float) -> None:
        positions = follower.positions()
        ways = follower.heading_for()
        arrived = follower.arrived()
        centres = self._grid.cell_centres
        for number, agent in enumerate(self.agents):
            index = self._indices[number]
            x, y = float(positions[number, 0]), float(positions[number, 1])
            before = agent.position
            rotation = self._crowd.rotation(index)
            dx, dy = float(ways[number, 0]), float(ways[number, 1])
            if dx or dy:
                turned = turn_fraction(agent.config.turn_rate, dt)
                rotation = slerp(rotation, look_rotation(dx, dy), turned)
            moved = math.dist(before, (x, y))
            velocity = (0.0, 0.0) if dt <= 0.0 else ((x - before[0]) / dt, (y - before[1]) / dt)
            self._crowd.commit_pose(index, (x, y), rotation, velocity)
            agent.distance_travelled += moved
            ahead = follower.cells_ahead(number)
            agent.waypoints = [
                (float(px), float(py)) for px, py in centres(np.array(ahead, dtype=np.intp))
            ]
            if arrived[number]:
                if agent.state is not AgentState.ARRIVED:
                    agent.arrivals += 1
                agent.state = AgentState.ARRIVED
            else:
                agent.state = AgentState.MOVING
            node = agent.game_object.node
            node.set_x(x)
            node.set_y(y)
            node.set_quat(Quat(*rotation))


def _problem(
    walkable: NDArray[np.bool_], starts: Sequence[int], goals: Sequence[int], connectivity: int
) -> tuple[MapfProblem, NDArray[np.int32]] | None:
    """The group's instance and its distance tables; None when a goal cannot be reached."""
    try:
        problem = MapfProblem(
            walkable.copy(), tuple(starts), tuple(goals), connectivity=connectivity
        )
    except ValueError:  # no free cell left for some agent: more agents than room
        return None
    tables = distance_tables(problem)
    alone = tables[np.arange(problem.agents), np.array(problem.starts, dtype=np.intp)]
    return None if (alone >= UNREACHABLE).any() else (problem, tables)
