"""AgentController: replan when due, turn toward the next waypoint with a slerp, drive."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from panda3d.core import Quat

from sim.components.crowd import CrowdField
from sim.components.grid_manager import GridManager, PlanOutcome, Point
from sim.components.link_route import LinkRoute
from sim.components.quarry import Quarry
from sim.config import PALETTE, AgentConfig, AgentMode
from sim.crowd.crowd import Crowd
from sim.crowd.handle import CrowdHost, Kept
from sim.crowd.route import RouteCells, nearest_clear_point
from sim.crowd.rules.link_crossing import Crossing
from sim.crowd.rules.lone_step import turn_and_step
from sim.crowd.rules.motion_limits import stop_radius
from sim.crowd.state import CAUSES, AgentState, ReplanCause
from sim.crowd.steering import heading_quat, quat_heading
from sim.engine import Component, GameObject, Gizmos, ReplanGate
from sim.engine.replan_gate import CHANGED
from sim.navigation.searches.repair_choice import RepairChoice

__all__ = ["CAUSES", "ROUTES_DRAWN", "AgentController", "AgentState", "CrowdHost", "ReplanCause"]

ALIGNED_DEG = 2.0  # facing within this of the waypoint counts as aligned
CENTRE_EPSILON = 0.02  # world units: close enough to a cell centre to call it reached
PATH_Z = 0.06
AGENT_PATH_COLOR = PALETTE.route
ROUTES_DRAWN = 256  # agents whose routes are drawn: thousands of lines would only be a tangle


class AgentController(Component):
    """Chase End (or patrol Start <-> End) along A* paths, replanned every `replan_interval_s`.

    Steering: each frame the rotation is slerped toward the look rotation of the next waypoint, then
    the agent moves forward (along its own facing) by `speed * dt`, with two refinements that keep
    it frame-rate independent: the slerp fraction is `1 - exp(-turn_rate * dt)` rather than
    `turn_rate * dt`, and the step is scaled by the cosine of the angle still to turn (zero past 90
    degrees), so the agent slows and turns first instead of swinging wide. The step never overshoots
    the waypoint, and off course it closes no more of the distance than the turn closes of the angle
    (`step_length`), so an agent of any speed reaches its waypoints instead of circling them. A step
    that would enter a blocked cell or cut a wall corner is not taken. The position is kept in
    Python floats and copied to the node, so float32 rounding never accumulates.

    The agent is a disc of `config.radius` world units: it plans on the cells with room for
    it (`GridManager.usable_grid`), its path is smoothed for its swept disc, and a step that
    would bring the disc over a blocked cell or the grid's edge is not taken. When the disc
    overlaps a wall all the same (it spawned there, or a cube was dropped on it) the agent
    steps to the nearest point where its disc has room (`nearest_clear_point`), in the same
    frame, counts a push (`pushes`) and replans.

    It replans when its `ReplanGate` says so, each replan counted by cause (`ReplanCause`,
    `replans_by_cause`): at once when a cell its remaining route crosses becomes blocked (checked on
    the frames the grid's `mask_version` changes, against the cells of the legs not yet passed,
    `RouteCells`), when its goal moves to another cell, when the planner's settings change, on
    `replan_now()` and on a drop; otherwise every `replan_interval_s`. A change of the mask that
    leaves its route open waits for the interval, as do changed cell costs (the app asks for a
    replan when the user changes one), and so does an agent with no path (a closed door opening): it
    stands where it is and tries again on the interval. While `dragging()` the changes are let
    through at most every `DRAG_GAP_S`.

    Its own plans repair its last D* Lite search while that costs less than a fresh one, else
    search afresh (`sim.navigation.searches.repair_choice.RepairChoice`, kept while its goal
    cell stays the same, built again when the planner's heuristic or connectivity changes;
    A* from scratch when the grid gives none: `GridManager.incremental_search`).
    `compare_fresh` (the HUD's agent) also runs A* from scratch after each plan, so the HUD can
    show what the repair saved (`PlanOutcome.fresh_expanded`).

    Given a `crowd`, the agent tells it which goal cell it chases; while `crowd.active_for` that
    cell (`CROWD_THRESHOLD` agents or more share it) each replan follows the crowd's shared
    distance field instead of running its own A* search. Nothing else changes: the same
    replans, waypoints (of an equally short path) and steering. The crowd also spreads large
    numbers of replans over frames: when it refuses one (`CrowdField.claim_plan`) the agent
    keeps its waypoints, or stands, and asks again next frame.

    `draw_route` False leaves its route undrawn whatever `show_path` says (see `ROUTES_DRAWN`).

    It is a handle on its row of a `Crowd` (`sim.crowd.crowd`), which owns its settings and
    state (`update_settings`): with a `crowd_sim` the scene's, joined at awake, else its own.
    Driven, its update does nothing; else it steers from its row's pose, commits the new one,
    and unless alone avoids others (`Crowd.avoid`) and arrives by `Crowd.joins_cluster`.
    """

    state = Kept[AgentState]()
    replans = Kept[int]()
    replans_by_cause = Kept[dict[ReplanCause, int]]()
    last_cause = Kept[ReplanCause | None]()
    arrivals = Kept[int]()
    pushes = Kept[int]()
    expanded_total = Kept[int]()
    distance_travelled = Kept[float]()
    blocked_cell_frames = Kept[int]()
    waypoints = Kept[list[Point]]()
    mode = Kept[AgentMode]()
    _patrol_to_start = Kept[bool]()

    def __init__(
        self,
        grid: GridManager,
        config: AgentConfig,
        *,
        crowd: CrowdField | None = None,
        dragging: Callable[[], bool] | None = None,
        draw_route: bool = True,
        compare_fresh: bool = False,
        crowd_sim: CrowdHost[PlanOutcome] | None = None,
    ) -> None:
        super().__init__()
        self._host = crowd_sim
        self._alone = crowd_sim is None
        self._agents = Crowd(grid)  # its own until it joins the scene's, at awake
        self._index = self._agents.add_agent(config, owner=self)
        self._grid = grid
        self._crowd = crowd
        self.draw_route = draw_route
        self.compare_fresh = compare_fresh
        self.show_path = True
        self._gate = ReplanGate(interval_s=config.replan_interval_s, dragging=dragging)
        self._search: RepairChoice | None = None
        self._search_key: tuple[str, str] | None = None
        self._planned_goal: tuple[int, int] | None = None
        self._route: RouteCells | None = None
        self._route_checked = -1  # the mask_version the route was last checked against
        # Its pose while it steers itself: from its row as its update begins, back at the end.
        self._x = self._y = 0.0
        self._rotation = heading_quat(0.0)
        self._home: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self._cruising = False  # its last step went where it wanted (no one, no wall in the way)
        self._links = LinkRoute(grid)
        self._quarry = Quarry()

    @property
    def config(self) -> AgentConfig:
        """The agent's settings, as its crowd keeps them."""
        return self._agents.settings_of(self._index)

    @property
    def driven(self) -> bool:
        """Whether the crowd moves the agent (its update then does nothing)."""
        return self._agents.is_driven(self._index)

    def update_settings(self, **settings: Any) -> None:
        """Change the named settings (`AgentConfig`'s fields); the next step uses them."""
        self._agents.update_agent(self._index, **settings)
        self.needs_update = True  # a new planner may hand it back this very frame

    def replan_now(self, cause: ReplanCause = ReplanCause.INTERVAL) -> None:
        """Plan on the next update whatever changed, counted under `cause`."""
        if self.driven:
            self._agents.request_replan(self._index, cause)
        else:
            self._gate.request(cause)

    @property
    def position(self) -> Point:
        """World `(x, y)` of the agent."""
        if self.driven:
            return self._agents.position(self._index)
        return (self._x, self._y)

    @property
    def speed(self) -> float:
        """How fast it moved last frame, world units per second."""
        return math.hypot(*self._agents.velocity(self._index))

    @property
    def heading_deg(self) -> float:
        """Facing in degrees, Panda3D's heading (0 faces +Y), in [0, 360)."""
        if self.driven:
            return self._agents.heading_deg(self._index)
        return quat_heading(self._rotation) % 360.0

    @property
    def outcome(self) -> PlanOutcome | None:
        """The last plan: its own search's, or while driven the way down the crowd's field."""
        if self.driven and self._host is not None:
            return self._host.outcome_of(self._index)
        kept: PlanOutcome | None = self._agents.get(self._index, "outcome")
        return kept

    @outcome.setter
    def outcome(self, outcome: PlanOutcome | None) -> None:
        self._agents.set(self._index, "outcome", outcome)

    @property
    def reached_goal(self) -> bool:
        """True while the agent stands at its current goal."""
        return self.state is AgentState.ARRIVED

    def awake(self) -> None:
        """Take the scene's position and heading as the starting state; join the scene's crowd.

        It carries its row over (what was set on it so far); its colour is its node's.
        """
        position, heading = self.game_object.xy, self.game_object.heading
        self._home = (position[0], position[1], heading)
        if self._host is None:
            self._agents.place(self._index, position, heading)
        else:
            node = self.game_object.node
            r, g, b, a = (float(c) for c in node.get_color()) if node.has_color() else (1.0,) * 4
            placed = {"position": position, "heading_deg": heading, "color": (r, g, b, a)}
            joined = self._host.crowd
            self._index = self._agents.move_agent(self._index, joined, **placed)
            self._agents = joined
        self._load_pose()

    def start(self) -> None:
        """Tell the crowd which goal this agent chases, before anyone plans."""
        if self._crowd is not None:
            target = self._target()
            goal = None if target is None else target.xy
            cell = None if goal is None else self._grid.world_to_cell(*goal, clamp=True)
            self._crowd.track(self, cell)

    def on_destroy(self) -> None:
        """Leave the fields, and the scene's crowd for one of its own, carrying its row."""
        if self._crowd is not None:
            self._crowd.leave(self)
        if self._host is not None and self._agents is self._host.crowd:
            own = Crowd(self._grid)
            self._index, self._agents = self._agents.move_agent(self._index, own), own
            self._load_pose()

    def take_back(self) -> None:
        """Steer itself again from where the crowd left it (too few chase its target now)."""
        self._load_pose()
        self._route, self.waypoints = None, []
        self.replan_now()

    def _load_pose(self) -> None:
        """Take where it stands and faces from its row (it steers itself from there)."""
        self._x, self._y = self._agents.position(self._index)
        self._rotation = self._agents.rotation(self._index)

    def reset_to_start(self) -> None:
        """Put the agent back on Start (where it spawned: none, or in a crowd) and replan."""
        start = self._quarry.target(self.world, None, to_start=True)
        if start is not None and not self.driven:  # a crowd on one point would be a stack
            self._x, self._y = start.xy
        else:
            self._x, self._y = self._home[0], self._home[1]
        self._rotation = heading_quat(self._home[2])
        self._patrol_to_start = False
        self.replan_now()
        self.state = AgentState.IDLE
        self._route = None
        self._links.clear(self.game_object.node)
        self._agents.place(self._index, (self._x, self._y), self._home[2])
        if self.driven and self._host is not None:
            self._host.write_node(self._index)
        else:
            self._write_node()

    def toggle_mode(self) -> None:
        """Switch between chase and patrol and replan; patrol from the goal turns for Start."""
        self.mode = AgentMode.PATROL if self.mode is AgentMode.CHASE else AgentMode.CHASE
        self._patrol_to_start = self.mode is AgentMode.PATROL and self.state is AgentState.ARRIVED
        if self._patrol_to_start:  # else it would stay arrived: patrol turns round on arrival
            self.state = AgentState.IDLE
        self.replan_now()

    def update(self, dt: float) -> None:
        """Step out of a wall, replan when due, then turn and drive; nothing while driven."""
        if self.driven:  # its `CrowdSim` puts it back once it steers again; no route to draw
            self.needs_update = self.draws_gizmos = False
            return
        self.draws_gizmos = True
        self._load_pose()
        if self._links.crossing is not None:
            self._cross(self._links.crossing, dt)
            return
        before = (self._x, self._y)
        self._leave_blocked_cell()
        self._check_route()
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
            # The mask is left out of the key: a change that leaves the route open waits for
            # the interval (`_check_route` catches those that cut it). So are the costs, which
            # a moving patch changes every frame (the app asks for a replan on U). Cells to go
            # round (agents standing in the way, `sim.crowd.rules.detour`) replan at once.
            key = (goal_cell, self._grid.planning_key, self._agents.detour_cells(self._index))
            if self._gate.tick(dt, key):
                cause = self._cause(goal_cell)
                if self._crowd is None or self._crowd.claim_plan(self, self._distance_to(goal)):
                    self._plan(goal, goal_cell, cause)
                else:
                    self._gate.request(cause)  # queued by the crowd: due again next frame
            if self.state is AgentState.MOVING:
                self._steer(dt)
            if self.state is AgentState.MOVING and self._joins_cluster(goal):
                self._arrive()
        if self.state is not AgentState.MOVING and (self._x, self._y) == before:
            self._make_room(dt)  # not in the frame it arrived in: one move a frame
        if self._grid.is_blocked_at(self._x, self._y):
            self.blocked_cell_frames += 1
        self._write_node()
        step = (self._x - before[0], self._y - before[1])
        moved = (step[0] / dt, step[1] / dt) if dt > 0.0 else (0.0, 0.0)
        self._agents.commit_pose(self._index, (self._x, self._y), self._rotation, moved)

    def _cause(self, goal_cell: tuple[int, int] | None) -> ReplanCause:
        """Why the gate fired, in the agent's words: its own request, or a key change."""
        fired = self._gate.cause
        if fired in CAUSES:  # its own request, or the interval (the gate's word is the same)
            return ReplanCause(fired)
        if fired == CHANGED and self._planned_goal is not None and goal_cell != self._planned_goal:
            return ReplanCause.GOAL_MOVED
        return ReplanCause.INTERVAL

    def _check_route(self) -> None:
        """Replan at once when the mask changed under the route still to go (see the class)."""
        mask_version = self._grid.mask_version
        if mask_version == self._route_checked:
            return
        self._route_checked = mask_version
        route = self._route
        if route is None or not self.waypoints or self.state is not AgentState.MOVING:
            return
        if route.is_cut(self._grid, len(self.waypoints)):
            self._gate.request(ReplanCause.PATH_CUT, held=True)

    @property
    def lost_target(self) -> str | None:
        """`config.target` while no object has that name (it stands IDLE; the HUD says why)."""
        name = self.config.target
        if name is None or self.state is not AgentState.IDLE or self.world is None:
            return None
        return name if self._quarry.find(self.world, name) is None else None

    def _target(self) -> GameObject | None:
        """Where the agent goes: its `config.target` (End without one), or Start on patrol."""
        to_start = self.mode is AgentMode.PATROL and self._patrol_to_start
        return self._quarry.target(self.world, self.config.target, to_start=to_start)

    def _plan(self, goal: Point, goal_cell: tuple[int, int] | None, cause: ReplanCause) -> None:
        self.replans += 1
        counts = self.replans_by_cause
        counts[cause] += 1
        self.replans_by_cause = counts  # a row's counts are a copy: write them back
        self.last_cause = cause
        self._planned_goal = goal_cell
        smoothing, radius = self.config.smoothing, self.config.radius
        # The crowd's field serves an agent up to half a cell wide (it fits every walkable
        # cell, and every step of the field's paths keeps its disc clear); the crowd's
        # smoothing checks the disc's sweep.
        if (
            self._crowd is not None
            and self.config.areas is None  # the shared fields know no areas
            and radius <= self._grid.grid_cell_size / 2.0
            and self._crowd.active_for(goal_cell)
        ):
            outcome = self._crowd.waypoints_from(
                self.position, goal, smoothing=smoothing, radius=radius
            )
        else:
            outcome = self._grid.plan(
                self.position,
                goal,
                smoothing=smoothing and not self._grid.links,  # legs are smoothed one by one
                radius=radius,
                search=self._own_search(),
                compare=self.compare_fresh,
                avoid=self._agents.detour_cells(self._index),
                allowed=self._grid.allowed_cells(self.config.areas),
            )
        self.outcome = outcome
        self.expanded_total += outcome.expanded
        self._route = None
        if not outcome.found:
            self.state, self.waypoints = AgentState.NO_PATH, []
            return
        # No waypoints: the agent already stands on the path's last cell, the free cell nearest
        # a goal inside an obstacle; that cell's centre is as close as it can get.
        waypoints = list(outcome.waypoints) or [self._grid.cell_to_world(outcome.cells[-1])]
        if self._grid.links and not self.driven:
            allowed = self._grid.allowed_cells(self.config.areas)
            waypoints = self._links.waypoints(
                outcome, radius=radius, allowed=allowed, smoothing=smoothing
            )
        # From off-centre, the straight line to the first waypoint may clip a wall corner;
        # going through the path's next cell's centre, or else the own cell's, is legal.
        if not self._move_is_clear(self.position, waypoints[0]):
            waypoints.insert(0, self._way_in(outcome.cells, waypoints[0]))
        self.waypoints = waypoints
        self._route = RouteCells(
            [self.position, *waypoints], self.config.radius, self._grid.mask_version
        )
        self._route_checked = self._grid.mask_version
        end = waypoints[-1]  # the goal itself, or the free cell nearest it
        far = self._distance_to(end) > stop_radius(self.config)
        # Arrived against its cluster, it stays so for the same goal (`Crowd.joins_cluster`).
        stays = cause is not ReplanCause.GOAL_MOVED and self._joins_cluster(goal)
        if self.state is not AgentState.ARRIVED or (far and not stays):
            self.state = AgentState.MOVING
        self._advance_waypoints()

    def _own_search(self) -> RepairChoice | None:
        """The agent's incremental search, built again for changed planner settings."""
        key = self._grid.planning_key
        if key != self._search_key:
            self._search, self._search_key = self._grid.incremental_search(), key
        return self._search

    def _radius(self) -> float:
        return self.config.arrival_radius

    def _way_in(self, cells: Sequence[tuple[int, int]], first: Point) -> Point:
        """Where to go before `first`, when the line to it is not clear from here.

        The path's second cell's centre if the lines both ways keep clear (no step back),
        else the start cell's centre.
        """
        if len(cells) > 1:
            ahead = self._grid.cell_to_world(cells[1])
            if self._move_is_clear(self.position, ahead) and self._move_is_clear(ahead, first):
                return ahead
        return self._grid.cell_to_world(cells[0])

    def _move_is_clear(self, start: Point, end: Point) -> bool:
        return self._grid.move_is_clear(start, end, radius=self.config.radius)

    def _distance_to(self, point: Point) -> float:
        return math.hypot(point[0] - self._x, point[1] - self._y)

    def _advance_waypoints(self) -> None:
        while self.waypoints:
            waypoint = self.waypoints[0]
            distance = self._distance_to(waypoint)
            if len(self.waypoints) == 1:
                if distance <= stop_radius(self.config):
                    self._arrive()
                return
            # An intermediate waypoint is passed early only when the line to the next one is
            # clear from here; otherwise the agent goes on to (nearly) its centre first.
            near = distance <= self._radius() and self._move_is_clear(
                self.position, self.waypoints[1]
            )
            if not (near or distance <= CENTRE_EPSILON):
                return
            self.waypoints.pop(0)

    def _arrive(self) -> None:
        self.waypoints = []
        if self._links.link_ahead and self.state is AgentState.MOVING:
            self._links.begin(self.position, self.config.speed)  # at the link's foot
            return
        if self.state is AgentState.ARRIVED:  # a replan while standing at the goal
            return
        self.arrivals += 1
        if self.mode is AgentMode.PATROL:
            self._patrol_to_start = not self._patrol_to_start
            self.replan_now(ReplanCause.GOAL_MOVED)  # head for the other end on the next frame
            self.state = AgentState.MOVING
        else:
            self.state = AgentState.ARRIVED

    def _steer(self, dt: float) -> None:
        if not self.waypoints:
            return
        waypoint = self.waypoints[0]
        dx, dy = waypoint[0] - self._x, waypoint[1] - self._y
        steered = turn_and_step(
            self.config, self._rotation, self.position, self.waypoints, self.speed, dt
        )
        self._rotation, facing, step = steered.rotation, steered.facing, steered.step
        new = (self._x + facing[0] * step, self._y + facing[1] * step)
        avoided = self._avoided(new, dt)
        self._cruising = False
        if avoided is not None:
            if self._can_move_to(avoided):
                self.distance_travelled += math.dist(self.position, avoided)
                self._x, self._y = avoided
        elif step > 0.0:
            # Near a wall the facing may lead the disc onto it while the straight line to the
            # waypoint keeps clear (a leg the plan checked): the agent slides along that line.
            distance = max(math.hypot(dx, dy), step)
            straight = (self._x + dx * step / distance, self._y + dy * step / distance)
            self._cruising = self._can_move_to(new)
            for point in (new, straight):
                if self._can_move_to(point):
                    self._x, self._y = point
                    self.distance_travelled += step
                    break
            else:
                if steered.off_deg <= ALIGNED_DEG:
                    self._detour_through_cell_centre()
        self._advance_waypoints()

    def _avoided(self, new: Point, dt: float, *, resting: bool = False) -> Point | None:
        """Where the crowd's avoidance takes the agent instead of `new` this frame, if elsewhere.

        None without a crowd, with avoidance off, or when ORCA keeps the velocity that leads
        to `new` (no agent in the way): the agent then moves exactly as it would alone.
        """
        if self._alone or not self.config.avoidance or dt <= 0.0:
            return None
        wanted = ((new[0] - self._x) / dt, (new[1] - self._y) / dt)
        goal = self.waypoints[-1] if self.waypoints else None
        velocity = self._agents.avoid(self._index, wanted, dt, resting=resting, goal=goal)
        if velocity == wanted:
            return None
        return (self._x + velocity[0] * dt, self._y + velocity[1] * dt)

    def _joins_cluster(self, goal: Point) -> bool:
        """Whether it stands still against those already arrived at `goal` (a crowd's rule).

        Not while it brakes unhindered: with `auto_braking` slow is not held back.
        """
        return (
            not self._alone
            and self.mode is AgentMode.CHASE
            and not (math.isfinite(self.config.acceleration) and self._cruising)
            and self._agents.joins_cluster(self._index, goal)
        )

    def _make_room(self, dt: float) -> None:
        """At rest, step aside where the crowd's avoidance says someone needs the room."""
        here = self.position
        moved = self._avoided(here, dt, resting=True)
        if moved is not None and self._move_is_clear(here, moved):
            self.distance_travelled += math.dist(here, moved)
            self._x, self._y = moved

    def _can_move_to(self, new: Point) -> bool:
        allowed = self._grid.allowed_cells(self.config.areas)
        cell = self._grid.world_to_cell(*new)
        if allowed is not None and (cell is None or not allowed[cell]):
            return False  # off its areas (`AgentConfig.areas`), which no push may cross
        if self._grid.world_to_cell(self._x, self._y) is None:  # walking in from off the grid
            return not self._grid.is_blocked_at(*new)
        if not self._move_is_clear(self.position, new):
            return False
        # A disc keeps the straight line to its waypoint clear as it goes (the plan laid each
        # leg so): turning while it drives must not carry it where that line grazes a wall.
        # In open ground, a cell away from any wall, that cannot happen yet.
        return (
            self.config.radius == 0.0
            or self._grid.is_open_at(*new)
            or self._move_is_clear(new, self.waypoints[0])
        )

    def _detour_through_cell_centre(self) -> None:
        cell = self._grid.world_to_cell(self._x, self._y)
        if cell is not None:
            centre = self._grid.cell_to_world(cell)
            if self._distance_to(centre) > CENTRE_EPSILON:
                self.waypoints.insert(0, centre)
            else:  # blocked even from the centre: the route was laid out from elsewhere
                self.replan_now(ReplanCause.PATH_CUT)

    def _leave_blocked_cell(self) -> None:
        """Step out to room for the disc when an obstacle landed on it or it spawned in a wall."""
        cell = self._grid.world_to_cell(self._x, self._y)
        if cell is None or self._move_is_clear(self.position, self.position):
            return
        free = nearest_clear_point(self._grid, self.position, self.config.radius)
        if free is None:
            return
        self._x, self._y = free
        if self.replans:
            self.pushes += 1
            self.replan_now(ReplanCause.PATH_CUT)
        else:  # spawning over a wall is no push: nothing moved onto the agent
            self.replan_now()

    def _cross(self, crossing: Crossing, dt: float) -> None:
        """Cross a link (`LinkRoute`): no replans, walls or avoidance until it is over."""
        before = self.position
        (self._x, self._y), waypoints = self._links.step(crossing, dt, self.game_object.node)
        self.waypoints = self.waypoints if waypoints is None else waypoints
        self._write_node()
        moved = ((self._x - before[0]) / dt, (self._y - before[1]) / dt) if dt > 0 else (0, 0)
        self._agents.commit_pose(self._index, self.position, self._rotation, moved)

    def _write_node(self) -> None:
        node = self.game_object.node
        node.set_x(self._x)
        node.set_y(self._y)
        node.set_quat(Quat(*self._rotation))

    def on_draw_gizmos(self, gizmos: Gizmos) -> None:
        """Draw the agent's own (smoothed) route from where it stands (none while driven)."""
        if self.draw_route and self.show_path and not self.driven and self.waypoints:
            key = f"agent-path:{self.game_object.name}"
            points = [(self._x, self._y, PATH_Z)] + [(x, y, PATH_Z) for x, y in self.waypoints]
            gizmos.polyline(key, points, AGENT_PATH_COLOR, thickness=2.0)
