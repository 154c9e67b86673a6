"""AgentController: replan on an interval, turn toward the next waypoint with a slerp, drive."""

from __future__ import annotations

import math
from collections.abc import Callable
from enum import StrEnum

from panda3d.core import Quat

from sim.components.crowd import CrowdField
from sim.components.grid_manager import GridManager, PlanOutcome, Point
from sim.components.steering import (
    angle_between_deg,
    heading_quat,
    look_rotation,
    quat_heading,
    slerp,
    step_length,
    turn_fraction,
)
from sim.config import AgentConfig, AgentMode, Tag
from sim.engine import Component, GameObject, Gizmos, ReplanGate

ALIGNED_DEG = 2.0  # facing within this of the waypoint counts as aligned
CENTRE_EPSILON = 0.02  # world units: close enough to a cell centre to call it reached
PATH_Z = 0.06
AGENT_PATH_COLOR = (1.0, 0.6, 0.1, 1.0)


class AgentState(StrEnum):
    """What the agent is doing, as the HUD and the report show it."""

    IDLE = "idle"  # nothing to go to: the scene has no End (or no Start, in patrol)
    MOVING = "moving"
    ARRIVED = "arrived"
    NO_PATH = "no path"


class AgentController(Component):
    """Chase End (or patrol Start <-> End) along A* paths, replanned every `replan_interval_s`.

    Steering: each frame the rotation is slerped toward the look rotation of the next
    waypoint, then the agent moves forward (along its own facing) by `speed * dt`, with two
    refinements that keep it frame-rate independent: the slerp fraction is
    `1 - exp(-turn_rate * dt)` rather than `turn_rate * dt`, and the step is scaled by the
    cosine of the angle still to turn (zero past 90 degrees), so the agent slows and turns
    first instead of swinging wide. The step never overshoots the waypoint, and off course it
    closes no more of the distance than the turn closes of the angle (`step_length`), so an
    agent of any speed reaches its waypoints instead of circling them. A step that would
    enter a blocked cell or cut a wall corner is not taken. The position is kept in Python
    floats and copied to the node, so float32 rounding never accumulates.

    It replans when its `ReplanGate` says so: every `replan_interval_s`, on `replan_now()`, on
    a drop, and when the grid changes or its target moves to another cell (at most every
    `DRAG_GAP_S` while `dragging()`). With no path it stops where it is and keeps trying on the
    interval.

    Given a `crowd`, the agent tells it which goal cell it chases; while `crowd.active_for` that
    cell (`CROWD_THRESHOLD` agents or more share it) each replan follows the crowd's shared
    distance field instead of running its own A* search. Nothing else changes: the same
    replans, waypoints (of an equally short path) and steering.
    """

    def __init__(
        self,
        grid: GridManager,
        config: AgentConfig,
        *,
        crowd: CrowdField | None = None,
        dragging: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__()
        self._grid = grid
        self._crowd = crowd
        self.config = config
        self.mode = config.mode
        self.state = AgentState.IDLE
        self.replans = 0
        self.arrivals = 0
        self.distance_travelled = 0.0
        self.blocked_cell_frames = 0
        self.outcome: PlanOutcome | None = None
        self.waypoints: list[Point] = []
        self.show_path = True
        self._gate = ReplanGate(interval_s=config.replan_interval_s, dragging=dragging)
        self._patrol_to_start = False
        self._x = self._y = 0.0
        self._rotation = heading_quat(0.0)
        self._home: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def replan_now(self) -> None:
        """Plan on the next update whatever changed."""
        self._gate.request()

    @property
    def position(self) -> Point:
        """World `(x, y)` of the agent."""
        return (self._x, self._y)

    @property
    def heading_deg(self) -> float:
        """Facing in degrees, Panda3D's heading (0 faces +Y), in [0, 360)."""
        return quat_heading(self._rotation) % 360.0

    @property
    def reached_goal(self) -> bool:
        """True while the agent stands at its current goal."""
        return self.state is AgentState.ARRIVED

    def awake(self) -> None:
        """Take the scene's position and heading as the starting state."""
        self._x, self._y = self.game_object.xy
        heading = self.game_object.heading
        self._rotation = heading_quat(heading)
        self._home = (self._x, self._y, heading)

    def start(self) -> None:
        """Tell the crowd which goal this agent chases, before anyone plans."""
        if self._crowd is not None:
            target = self._target()
            goal = None if target is None else target.xy
            cell = None if goal is None else self._grid.world_to_cell(*goal, clamp=True)
            self._crowd.track(self, cell)

    def on_destroy(self) -> None:
        """Leave the crowd."""
        if self._crowd is not None:
            self._crowd.leave(self)

    def reset_to_start(self) -> None:
        """Put the agent back on the Start cube (or where it spawned) and replan."""
        start = self._find(Tag.START)
        if start is not None:
            self._x, self._y = start.xy
        else:
            self._x, self._y = self._home[0], self._home[1]
        self._rotation = heading_quat(self._home[2])
        self._patrol_to_start = False
        self.replan_now()
        self.state = AgentState.IDLE
        self._write_node()

    def toggle_mode(self) -> None:
        """Switch between chase and patrol; the next frame replans."""
        self.mode = AgentMode.PATROL if self.mode is AgentMode.CHASE else AgentMode.CHASE
        self._patrol_to_start = False
        self.replan_now()

    def update(self, dt: float) -> None:
        """Replan when due, then turn and drive toward the next waypoint."""
        self._leave_blocked_cell()
        target = self._target()
        if target is None:
            self.state, self.waypoints = AgentState.IDLE, []
            if self._crowd is not None:
                self._crowd.track(self, None)
        else:
            goal = target.xy
            goal_cell = self._grid.world_to_cell(*goal, clamp=True)
            if self._crowd is not None:
                self._crowd.track(self, goal_cell)
            if self._gate.tick(dt, (self._grid.version, goal_cell)):
                self._plan(goal, goal_cell)
            if self.state is AgentState.MOVING:
                self._steer(dt)
        if self._grid.is_blocked_at(self._x, self._y):
            self.blocked_cell_frames += 1
        self._write_node()

    def _target(self) -> GameObject | None:
        if self.mode is AgentMode.PATROL and self._patrol_to_start:
            return self._find(Tag.START)
        return self._find(Tag.END)

    def _find(self, tag: str) -> GameObject | None:
        world = self.world
        return None if world is None else world.find_with_tag(tag)

    def _plan(self, goal: Point, goal_cell: tuple[int, int] | None) -> None:
        self.replans += 1
        smoothing = self.config.smoothing
        if self._crowd is not None and self._crowd.active_for(goal_cell):
            outcome = self._crowd.waypoints_from(self.position, goal, smoothing=smoothing)
        else:
            outcome = self._grid.plan(self.position, goal, smoothing=smoothing)
        self.outcome = outcome
        if not outcome.found:
            self.state, self.waypoints = AgentState.NO_PATH, []
            return
        # No waypoints: the agent already stands on the path's last cell, the free cell nearest
        # a goal inside an obstacle; that cell's centre is as close as it can get.
        waypoints = list(outcome.waypoints) or [self._grid.cell_to_world(outcome.cells[-1])]
        # From off-centre, the straight line to the first waypoint may clip a wall corner;
        # going through the own cell's centre first is always legal.
        if not self._grid.move_is_clear(self.position, waypoints[0]):
            waypoints.insert(0, self._grid.cell_to_world(outcome.cells[0]))
        self.waypoints = waypoints
        end = waypoints[-1]  # the goal itself, or the free cell nearest it
        if self.state is not AgentState.ARRIVED or self._distance_to(end) > self._radius():
            self.state = AgentState.MOVING
        self._advance_waypoints()

    def _radius(self) -> float:
        return self.config.arrival_radius

    def _distance_to(self, point: Point) -> float:
        return math.hypot(point[0] - self._x, point[1] - self._y)

    def _advance_waypoints(self) -> None:
        while self.waypoints:
            waypoint = self.waypoints[0]
            distance = self._distance_to(waypoint)
            if len(self.waypoints) == 1:
                if distance <= self._radius():
                    self._arrive()
                return
            # An intermediate waypoint is passed early only when the line to the next one is
            # clear from here; otherwise the agent goes on to (nearly) its centre first.
            near = distance <= self._radius() and self._grid.move_is_clear(
                self.position, self.waypoints[1]
            )
            if not (near or distance <= CENTRE_EPSILON):
                return
            self.waypoints.pop(0)

    def _arrive(self) -> None:
        self.waypoints = []
        if self.state is AgentState.ARRIVED:  # a replan while standing at the goal
            return
        self.arrivals += 1
        if self.mode is AgentMode.PATROL:
            self._patrol_to_start = not self._patrol_to_start
            self.replan_now()  # head for the other end on the next frame
            self.state = AgentState.MOVING
        else:
            self.state = AgentState.ARRIVED

    def _steer(self, dt: float) -> None:
        if not self.waypoints:
            return
        waypoint = self.waypoints[0]
        dx, dy = waypoint[0] - self._x, waypoint[1] - self._y
        desired = look_rotation(dx, dy)
        turned = turn_fraction(self.config.turn_rate, dt)
        self._rotation = slerp(self._rotation, desired, turned)
        heading = quat_heading(self._rotation)
        off_deg = angle_between_deg(heading, quat_heading(desired))
        step = step_length(
            self.config.speed,
            dt,
            distance=math.hypot(dx, dy),
            off_deg=off_deg,
            turned=turned,
            on_course_within=self._radius(),
        )
        if step > 0.0:
            radians = math.radians(heading)
            new = (self._x - math.sin(radians) * step, self._y + math.cos(radians) * step)
            if self._can_move_to(new):
                self._x, self._y = new
                self.distance_travelled += step
            elif off_deg <= ALIGNED_DEG:
                self._detour_through_cell_centre()
        self._advance_waypoints()

    def _can_move_to(self, new: Point) -> bool:
        if self._grid.world_to_cell(self._x, self._y) is None:  # walking in from off the grid
            return not self._grid.is_blocked_at(*new)
        return self._grid.move_is_clear(self.position, new)

    def _detour_through_cell_centre(self) -> None:
        cell = self._grid.world_to_cell(self._x, self._y)
        if cell is not None:
            centre = self._grid.cell_to_world(cell)
            if self._distance_to(centre) > CENTRE_EPSILON:
                self.waypoints.insert(0, centre)

    def _leave_blocked_cell(self) -> None:
        """Step out when an obstacle was put down on top of the agent."""
        cell = self._grid.world_to_cell(self._x, self._y)
        if cell is None or self._grid.walkable[cell]:
            return
        free = self._grid.grid.nearest_walkable(cell)
        if free is not None:
            self._x, self._y = self._grid.cell_to_world(free)
            self.replan_now()

    def _write_node(self) -> None:
        node = self.game_object.node
        node.set_x(self._x)
        node.set_y(self._y)
        node.set_quat(Quat(*self._rotation))

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Draw the agent's own (smoothed) route from where it stands."""
        key = f"agent-path:{self.game_object.name}"
        if self.show_path and self.waypoints:
            points = [(self._x, self._y, PATH_Z)] + [(x, y, PATH_Z) for x, y in self.waypoints]
            gizmos.polyline(key, points, AGENT_PATH_COLOR, thickness=2.0)
