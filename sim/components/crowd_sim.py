"""CrowdSim: every agent of a scene as a row of arrays; crowds moved with numpy and ORCA.

One per scene, updated right after the `CrowdField` and before the scene's objects. Every
`AgentController` given it takes a row at awake (`AgentRows`, struct of arrays) and from then
on keeps its state there (`sim.components.row_fields`), so the report, the trace and the HUD
read the same attributes whoever moves the agent. Two kinds of rows:

- **Driven** rows: the agents of a target that `CROWD_THRESHOLD` agents or more chase (and
  small enough for the shared field: at most half a cell). Their controllers do nothing;
  the crowd moves them all each frame with array operations (`sim.components.crowd_step`):
  preferred velocity toward their cell's aim down the target's distance field, reciprocal
  avoidance (`sim.navigation.avoid`, ORCA), walls (discs slide along blocked cells and the
  grid's edge, `sim.crowd.disc_walls`), heading, arrival. Their nodes are written only
  when something reads them (`sync_nodes`), every `node_sync_every` frames, or every frame
  for an agent others chase.
- **Self-steered** rows: everyone else (lone agents, small groups). Their controllers steer
  as before and, when avoidance is on and another agent is near, ask `avoid` for the
  velocity ORCA gives them against every row; they write where they stand back to the row.

A driven agent's replans are the fields it takes (`TargetGroup.take`), counted by cause as
`AgentController` counts its own: `goal_moved` when the target went to another cell,
`path_cut` when the grid changed under its aim (or a wall pushed it), `interval` otherwise
(the first plan, an interval passed on a grid that changed, or asked for from outside).

Arrival in a crowd: an agent arrives within `arrival_radius` of its goal, or when it has stood
still (`StepSettings.still_frames`) on the goal's doorstep (its radius plus its arrival radius
away: others press in too) or touching an arrived agent of the same target near the goal (the
cluster). Arrived agents keep their place, stay ORCA-active with a low priority, so they step
aside for newcomers instead of being stacked on, and drift back to their place after.

Everything runs in a fixed order on float64 arrays: the same scene twice gives the same
trace.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from sim.components.agent_state import AgentState, ReplanCause
from sim.components.crowd import CrowdField
from sim.components.crowd_goals import START_KEY, Rooms, TargetGroup, TargetKeys
from sim.components.crowd_lone import joins_cluster, lone_velocity
from sim.components.crowd_rows import AgentRows
from sim.components.crowd_settings import StepSettings
from sim.components.crowd_step import DrivenStep, count_still
from sim.components.field_routes import FieldRoute
from sim.components.grid_manager import GridManager, PlanOutcome, Point
from sim.config import AgentMode
from sim.engine import Component, GameObject

if TYPE_CHECKING:
    from sim.components.agent_controller import AgentController

STATES = tuple(AgentState)
CAUSES = tuple(ReplanCause)
STATE_CODE = {state: code for code, state in enumerate(STATES)}
CAUSE_CODE = {cause: code for code, cause in enumerate(CAUSES)}
MOVING = STATE_CODE[AgentState.MOVING]
ARRIVED = STATE_CODE[AgentState.ARRIVED]
IDLE = STATE_CODE[AgentState.IDLE]
NO_PATH = STATE_CODE[AgentState.NO_PATH]

_INT_FIELDS = {
    "replans": "replans",
    "arrivals": "arrivals",
    "pushes": "pushes",
    "expanded_total": "expanded",
    "blocked_cell_frames": "blocked",
}


class CrowdSim(Component):
    """The struct-of-arrays state of every agent; moves the driven ones (see the module).

    Args:
        grid: The scene's grid.
        crowd: The shared distance fields.
        settings: Avoidance and arrival tunables (`StepSettings`).
        node_sync_every: Write driven agents' nodes every this many frames (0: only when
            `sync_nodes` is called, and for agents others chase).
        hide_driven: Hide driven agents' own models (a batched renderer draws them).
    """

    def __init__(
        self,
        grid: GridManager,
        crowd: CrowdField,
        *,
        settings: StepSettings | None = None,
        node_sync_every: int = 0,
        hide_driven: bool = False,
    ) -> None:
        super().__init__()
        self._grid = grid
        self._crowd = crowd
        self.settings = settings or StepSettings()
        self.node_sync_every = node_sync_every
        self.hide_driven = hide_driven
        self._rows = AgentRows()
        self._keys = TargetKeys()
        self._groups: dict[int, TargetGroup] = {}
        self._rooms = Rooms()
        self._step = DrivenStep(grid, self.settings)
        self._left: list[AgentController] = []
        self._frame = 0
        self._time_s = 0.0
        self._nodes_synced = -1
        self._rows_by_object: dict[int, int] | None = None

    # ---- Rows --------------------------------------------------------------------------

    @property
    def planning_ms(self) -> float:
        """Wall-clock milliseconds spent computing aims so far.

        The fields count in the `CrowdField`'s own `planning_ms`.
        """
        return self._step.aim_ms

    def register(self, agent: AgentController, own: dict[str, Any]) -> int:
        """Give `agent` a row; return it.

        `own` holds what the agent kept on itself so far, by its attribute names (every
        `RowField`, `position` and `heading_deg`); settings come from its config, the colour
        from its node.
        """
        config = agent.config
        node = agent.game_object.node
        color = tuple(float(c) for c in node.get_color()) if node.has_color() else (1.0,) * 4
        cause = own["last_cause"]
        return self._rows.add(
            controllers=agent,
            outcomes=own["outcome"],
            waypoints=own["waypoints"],
            positions=own["position"],
            headings=own["heading_deg"],
            radii=config.radius,
            speeds=config.speed,
            arrival_radii=config.arrival_radius,
            turn_rates=config.turn_rate,
            avoidance=config.avoidance,
            key=self._keys.key_for(config.target),
            colors=color,
            state=STATE_CODE[own["state"]],
            replans=own["replans"],
            causes=[own["replans_by_cause"][cause] for cause in CAUSES],
            last_cause=-1 if cause is None else CAUSE_CODE[cause],
            arrivals=own["arrivals"],
            pushes=own["pushes"],
            expanded=own["expanded_total"],
            blocked=own["blocked_cell_frames"],
            distance=own["distance_travelled"],
            patrol=own["mode"] is AgentMode.PATROL,
            to_start=own["patrol_to_start"],
        )

    def refresh_settings(self, agent: AgentController) -> None:
        """Take `agent`'s settings from its config again (the inspector changed them).

        Its row copied them when it joined, so a changed speed or radius would not reach the
        crowd's step otherwise; an agent without a row here is left alone.
        """
        rows = self._rows
        rows.flush()
        if agent not in rows.controllers:
            return
        row = rows.controllers.index(agent)
        config = agent.config
        rows.radii[row] = config.radius
        rows.speeds[row] = config.speed
        rows.arrival_radii[row] = config.arrival_radius
        rows.turn_rates[row] = config.turn_rate
        rows.avoidance[row] = config.avoidance

    def leave(self, agent: AgentController) -> None:
        """Drop `agent`'s row at the start of the next update."""
        self._left.append(agent)

    def __len__(self) -> int:
        """How many agents have rows."""
        return len(self._rows)

    def row_get(self, row: int, name: str) -> Any:
        """One named attribute of `row` as `AgentController` exposes it (`RowField`)."""
        rows = self._rows
        rows.flush()
        if name in _INT_FIELDS:
            return int(getattr(rows, _INT_FIELDS[name])[row])
        if name == "state":
            return STATES[rows.state[row]]
        if name == "distance_travelled":
            return float(rows.distance[row])
        if name == "replans_by_cause":
            return {cause: int(rows.causes[row, code]) for code, cause in enumerate(CAUSES)}
        if name == "last_cause":
            code = int(rows.last_cause[row])
            return None if code < 0 else CAUSES[code]
        if name == "mode":
            return AgentMode.PATROL if rows.patrol[row] else AgentMode.CHASE
        if name == "patrol_to_start":
            return bool(rows.to_start[row])
        if name == "outcome":
            return self._driven_outcome(row) if rows.driven[row] else rows.outcomes[row]
        if name == "waypoints":
            return self._driven_waypoints(row) if rows.driven[row] else rows.waypoints[row]
        raise AttributeError(name)

    def row_set(self, row: int, name: str, value: Any) -> None:
        """Set one named attribute of `row` (`RowField`)."""
        rows = self._rows
        rows.flush()
        if name in _INT_FIELDS:
            getattr(rows, _INT_FIELDS[name])[row] = value
        elif name == "state":
            rows.state[row] = STATE_CODE[value]
        elif name == "distance_travelled":
            rows.distance[row] = value
        elif name == "replans_by_cause":
            rows.causes[row] = [value[cause] for cause in CAUSES]
        elif name == "last_cause":
            rows.last_cause[row] = -1 if value is None else CAUSE_CODE[value]
        elif name == "mode":
            rows.patrol[row] = value is AgentMode.PATROL
        elif name == "patrol_to_start":
            rows.to_start[row] = bool(value)
        elif name in ("outcome", "waypoints"):
            getattr(rows, f"{name}s" if name == "outcome" else name)[row] = value
        else:
            raise AttributeError(name)

    def position_of(self, row: int) -> Point:
        """World `(x, y)` of `row`."""
        self._rows.flush()
        x, y = self._rows.positions[row]
        return (float(x), float(y))

    def heading_of(self, row: int) -> float:
        """Heading of `row` in degrees, in [0, 360)."""
        self._rows.flush()
        return float(self._rows.headings[row]) % 360.0

    def write_pose(self, row: int, x: float, y: float, heading_deg: float, velocity: Point) -> None:
        """Where a self-steered agent stands now, its heading and the velocity it moved at."""
        rows = self._rows
        rows.flush()
        rows.positions[row] = (x, y)
        rows.headings[row] = heading_deg
        rows.velocities[row] = rows.preferred[row] = velocity
        count_still(rows, np.array([row]), self.settings)

    def joins_cluster(self, row: int, goal: Point) -> bool:
        """Whether self-steered agent `row` arrives by the crowd's rule (`crowd_lone`)."""
        return joins_cluster(self._flushed(), row, goal, self.settings)

    def place(self, row: int, x: float, y: float, heading_deg: float) -> None:
        """Put a driven agent at `(x, y)` facing `heading_deg`, at rest, wanting a new plan."""
        rows = self._rows
        rows.flush()
        rows.positions[row] = (x, y)
        rows.headings[row] = heading_deg % 360.0
        rows.velocities[row] = 0.0
        rows.still[row] = rows.stuck[row] = 0
        rows.rest_from[row] = np.nan
        self.request_replan(row, ReplanCause.INTERVAL)
        self._write_node(row)

    def request_replan(self, row: int, cause: ReplanCause) -> None:
        """A driven agent asks for a plan (counted under `cause`) on the next update."""
        self._rows.flush()
        self._rows.pending[row] = CAUSE_CODE[cause]

    # ---- What the renderer reads (read-only views, row i = agent i) ---------------------

    @property
    def positions(self) -> NDArray[np.float64]:
        """(n, 2) world x, y of every agent."""
        return _read_only(self._flushed().positions)

    @property
    def headings_deg(self) -> NDArray[np.float64]:
        """(n,) headings in degrees (Panda3D's: 0 faces +Y, counter-clockwise)."""
        return _read_only(self._flushed().headings)

    @property
    def radii(self) -> NDArray[np.float64]:
        """(n,) disc radii, world units."""
        return _read_only(self._flushed().radii)

    @property
    def colors(self) -> NDArray[np.float64]:
        """(n, 4) RGBA of each agent's node."""
        return _read_only(self._flushed().colors)

    @property
    def velocities(self) -> NDArray[np.float64]:
        """(n, 2) the velocity each moved at last, world units per second."""
        return _read_only(self._flushed().velocities)

    @property
    def driven(self) -> NDArray[np.bool_]:
        """(n,) which agents the crowd moves (their own models hidden when `hide_driven`)."""
        return _read_only(self._flushed().driven)

    def state_counts(self) -> Counter[AgentState]:
        """How many agents are in each state (one array count, not a read per agent)."""
        counts = np.bincount(self._flushed().state, minlength=len(STATES))
        return Counter({state: int(counts[code]) for code, state in enumerate(STATES)})

    @property
    def agents(self) -> Sequence[AgentController]:
        """The agents, in row order."""
        return tuple(self._flushed().controllers)

    def _flushed(self) -> AgentRows:
        self._rows.flush()
        return self._rows

    # ---- Self-steered agents ------------------------------------------------------------

    def avoid(
        self,
        row: int,
        preferred: Point,
        dt: float,
        *,
        resting: bool = False,
        goal: Point | None = None,
    ) -> Point:
        """The velocity ORCA gives self-steered agent `row` (`crowd_lone.lone_velocity`)."""
        return lone_velocity(
            self._flushed(), row, preferred, dt, self.settings, resting=resting, goal=goal
        )

    # ---- The frame ----------------------------------------------------------------------

    def update(self, dt: float) -> None:
        """Hand agents over between the crowd and themselves, then move the driven ones."""
        self._frame += 1
        self._time_s += dt
        self._drop_left()
        rows = self._flushed()
        if not len(rows):
            return
        keys = np.where(rows.patrol & rows.to_start, START_KEY, rows.key)
        targets = {int(key): self._keys.target(self.world, int(key)) for key in np.unique(keys)}
        self._assign(keys, targets)
        driven = np.flatnonzero(rows.driven)
        if not len(driven):
            return
        self._refresh_groups(driven, keys[driven], targets)
        if dt > 0.0:
            self._step.run(rows, driven, keys[driven], self._groups, self._rooms, dt)
            self._on_arrivals(driven)
        self._sync_due_nodes(driven, targets)

    def _drop_left(self) -> None:
        if not self._left:
            return
        leaving = {id(agent) for agent in self._left}
        self._left.clear()
        rows = self._flushed()
        keep = np.array([id(agent) not in leaving for agent in rows.controllers], dtype=bool)
        rows.keep(keep)
        self._rows_by_object = None
        for row, agent in enumerate(rows.controllers):
            agent.move_row(row)

    def _assign(self, keys: NDArray[Any], targets: dict[int, GameObject | None]) -> None:
        """Drive the rows of targets enough agents chase; hand the others back.

        Python work per agent handed over only: it happens when a crowd forms or breaks up.
        """
        rows = self._rows
        counts = np.bincount(keys, minlength=int(keys.max()) + 1)
        found = np.zeros(len(counts), dtype=bool)
        found[[key for key, target in targets.items() if target is not None]] = True
        has_target = found[keys]
        fits = rows.radii <= self._grid.grid_cell_size / 2.0
        wanted = fits & has_target & (counts[keys] >= self._crowd.threshold)
        for row in np.flatnonzero(wanted != rows.driven):
            agent = rows.controllers[row]
            if wanted[row]:
                rows.driven[row] = True
                rows.pending[row] = CAUSE_CODE[ReplanCause.INTERVAL]
                rows.still[row] = rows.stuck[row] = 0
                agent.driven = True
                if self.hide_driven:
                    agent.game_object.node.hide()
            else:
                rows.driven[row] = False
                agent.driven = False
                agent.game_object.node.show()
                agent.take_back()

    def _refresh_groups(
        self, driven: NDArray[np.intp], keys: NDArray[Any], targets: dict[int, GameObject | None]
    ) -> None:
        """Per target: take a new field when due, count the replans, place the goal."""
        rows, grid = self._rows, self._grid
        for key in np.unique(keys):
            members = driven[keys == key]
            target = targets[int(key)]
            group = self._groups.setdefault(int(key), TargetGroup())
            if target is None:
                rows.state[members] = IDLE
                rows.pending[members] = -1
                continue
            where = target.xy
            cell = grid.clamped_cell(where)
            goal_moved = group.cell is not None and cell != group.cell
            cut = self._cut_rows(group, members)
            due = (
                group.field is None
                or goal_moved
                or cut.any()
                or (rows.pending[members] >= 0).any()
                or group.planning_key != grid.planning_key
                or self._stale(group, members)
            )
            if due:
                self._take(group, members, cell, goal_moved=goal_moved, cut=cut)
            group.place_goal(grid, where, float(rows.radii[members].max()))
            if group.field is None:
                rows.state[members] = NO_PATH
            elif goal_moved:
                # As a lone agent re-plans: those now beyond their arrival radius set off.
                far = self._step.goal_distances(rows, members, group.goal)
                back = members[
                    (far > rows.arrival_radii[members]) & (rows.state[members] == ARRIVED)
                ]
                rows.state[back] = MOVING
                group.cluster_radius = 0.0

    def _cut_rows(self, group: TargetGroup, members: NDArray[np.intp]) -> NDArray[np.bool_]:
        """Which members' cell or aim became blocked since the group last looked."""
        grid = self._grid
        if group.field is None or group.mask_checked == grid.mask_version:
            return np.zeros(len(members), dtype=bool)
        group.mask_checked = grid.mask_version
        walkable = grid.walkable.ravel()
        cells = self._step.cells_of(self._rows.positions[members])
        aims = self._rows.aim[members]
        aims = np.where(aims >= 0, aims, cells)
        return ~walkable[cells] | ~walkable[aims]

    def _stale(self, group: TargetGroup, members: NDArray[np.intp]) -> bool:
        """Whether the grid changed since the field and its interval passed, or agents stick."""
        if group.field is None or group.field.version == self._grid.version:
            return False
        interval = self._crowd.replan_interval_s
        if self._time_s - group.taken_s >= interval:
            return True
        return bool((self._rows.stuck[members] >= self.settings.stuck_frames).any())

    def _take(
        self,
        group: TargetGroup,
        members: NDArray[np.intp],
        cell: tuple[int, int],
        *,
        goal_moved: bool,
        cut: NDArray[np.bool_],
    ) -> None:
        new = group.take(self._crowd, self._grid, cell, self._time_s)
        rows = self._rows
        pending = rows.pending[members]
        cause = np.where(
            goal_moved,
            CAUSE_CODE[ReplanCause.GOAL_MOVED],
            np.where(cut, CAUSE_CODE[ReplanCause.PATH_CUT], CAUSE_CODE[ReplanCause.INTERVAL]),
        )
        cause = np.where(pending >= 0, pending, cause)
        counted = np.ones(len(members), dtype=bool) if new or goal_moved else pending >= 0
        counted_rows = members[counted]
        rows.replans[counted_rows] += 1
        np.add.at(rows.causes, (counted_rows, cause[counted].astype(np.intp)), 1)
        rows.last_cause[counted_rows] = cause[counted]
        rows.pending[members] = -1
        if goal_moved or counted.any():
            tracked = members if goal_moved else counted_rows
            for row in tracked:
                self._crowd.track(rows.controllers[row], cell)

    def _on_arrivals(self, driven: NDArray[np.intp]) -> None:
        """Patrolling agents that arrived turn round (Python per arrival: they are few)."""
        rows = self._rows
        turning = driven[rows.patrol[driven] & (rows.state[driven] == ARRIVED)]
        for row in turning:
            rows.to_start[row] = not rows.to_start[row]
            rows.state[row] = MOVING
            rows.pending[row] = CAUSE_CODE[ReplanCause.GOAL_MOVED]

    # ---- Nodes --------------------------------------------------------------------------

    def sync_nodes(self) -> None:
        """Write every driven agent's place and heading to its node (before reading nodes)."""
        if self._nodes_synced == self._frame:
            return
        self._nodes_synced = self._frame
        rows = self._flushed()
        for row in np.flatnonzero(rows.driven):
            self._write_node(int(row))

    def _sync_due_nodes(self, driven: NDArray[np.intp], targets: dict[int, Any]) -> None:
        every = self.node_sync_every
        if every > 0 and self._frame % every == 0:
            self.sync_nodes()
            return
        # Agents others chase: their nodes are where the chasers read them every frame.
        rows = self._rows
        for target in targets.values():
            row = None if target is None else self._row_of_object().get(id(target))
            if row is not None and rows.driven[row]:
                self._write_node(row)

    def _row_of_object(self) -> dict[int, int]:
        """Each agent's row by its game object's id (made again when rows join or leave)."""
        rows = self._rows
        if self._rows_by_object is None or len(self._rows_by_object) != len(rows):
            self._rows_by_object = {
                id(agent.game_object): row for row, agent in enumerate(rows.controllers)
            }
        return self._rows_by_object

    def _write_node(self, row: int) -> None:
        rows = self._rows
        node = rows.controllers[row].game_object.node
        x, y = rows.positions[row]
        node.set_x(float(x))
        node.set_y(float(y))
        node.set_h(float(rows.headings[row]))

    # ---- A driven agent's plan, as the facade shows it ----------------------------------

    def _group_of(self, row: int) -> TargetGroup | None:
        rows = self._rows
        key = START_KEY if rows.patrol[row] and rows.to_start[row] else int(rows.key[row])
        return self._groups.get(key)

    def _driven_outcome(self, row: int) -> PlanOutcome | None:
        rows = self._rows
        group = self._group_of(row)
        if group is None or group.field is None:
            return rows.outcomes[row]  # type: ignore[no-any-return]
        field = group.field
        cell = int(self._step.cells_of(rows.positions[row : row + 1])[0])
        cost = field.costs[cell]
        if cost == float("inf"):
            return PlanOutcome(False, "End cannot be reached: walled in")
        size = self._grid.grid_cell_size
        return PlanOutcome(
            True,
            "",
            FieldRoute(field.tables, cell, field.goal),
            tuple(self._driven_waypoints(row)),
            cost=cost * size,
            length=field.tables.length(cell) * size,
        )

    def _driven_waypoints(self, row: int) -> list[Point]:
        """Where a driven agent heads now: its aim, or nothing once arrived."""
        rows = self._rows
        if rows.state[row] != MOVING:
            return []
        if rows.aim[row] < 0:
            return []
        x, y = rows.aim_points[row]
        return [(float(x), float(y))]


def _read_only(array: NDArray[Any]) -> NDArray[Any]:
    view = array.view()
    view.flags.writeable = False
    return view
