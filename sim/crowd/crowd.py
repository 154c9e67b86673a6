"""Crowd: the owner of every agent's state, by index, as DetourCrowd's `dtCrowd` owns its agents.

An agent joins with `add_agent(config) -> index`, leaves with `remove_agent(index)`, is changed
with `update_agent(index, ...)` and `request_target(index, name)`, and is read through
`position`, `velocity`, `heading_deg`, `settings` and `status` (or one value by name, `get`).
Its state lives in a row of `AgentRows` (struct of arrays); an index stays the agent's while its
row moves (rows close up when agents leave).

`update(dt, locate)` moves every agent the crowd drives, given where each chased target stands
now (`locate`). Two kinds of rows, and a third:

- **Driven** rows: the agents of a target that `SharedFields.threshold` agents or more chase (and
  small enough for the shared field: at most half a cell). The crowd moves them all each frame
  with array operations (`sim.crowd.step`): preferred velocity toward their cell's aim down the
  target's distance field, reciprocal avoidance (ORCA), walls, heading, parting, arrival.
- **Self-steered** rows: everyone else (lone agents, small groups). Their owners steer them and
  commit where they stand (`commit_pose`); they ask `avoid` for the velocity ORCA gives them
  against every row and arrive by the crowd's rule (`joins_cluster`).

Agents with ``planner = "mapf"`` (the **joint** rows) are neither: the scene's joint plan moves
them (`sim.crowd.joint`) and commits where they stand, no field takes them over, and they never
give way: ORCA counts them as agents that do not avoid, so the others go around them.
`is_driven` is True for them (their owners do not steer) in a crowd with fields, the scene's.

A driven agent's replans are the fields it takes (`TargetGroup.take`), counted by cause as a
self-steered agent counts its own: `goal_moved` when the target went to another cell, `path_cut`
when the grid changed under its aim (or a wall pushed it), `interval` otherwise (the first plan,
an interval passed on a grid that changed, or asked for with `request_replan`).

Arrival in a crowd: an agent arrives within `arrival_radius` of its goal, or when it has stood
still (`StepSettings.still_frames`) on the goal's doorstep (its radius plus its arrival radius
away: others press in too) or touching an arrived agent of the same target near the goal (the
cluster). Arrived agents keep their place, stay ORCA-active with a low priority, so they step
aside for newcomers instead of being stacked on, and drift back to their place after.

Everything runs in a fixed order on float64 arrays: the same scene twice gives the same trace.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.config import AgentConfig, AgentMode, Planner
from sim.crowd.disc_walls import Walls
from sim.crowd.driving import CAUSE_CODE, CAUSES, STATE_CODE, STATES, Driving, FieldPlan
from sim.crowd.goals import START_KEY, SharedFields, TargetKeys
from sim.crowd.grid import Cell, CrowdGrid, Point
from sim.crowd.jams.detect import JamSettings
from sim.crowd.jams.handoff import JamReport, Jams
from sim.crowd.jams.log import JamLog
from sim.crowd.links.crossings import LinkPoses
from sim.crowd.lone import joins_cluster, lone_velocity
from sim.crowd.rows import COLUMNS, AgentRows
from sim.crowd.rules.detour import DetourWait, watch_detour
from sim.crowd.rules.motion_limits import setting_columns
from sim.crowd.rules.spawn import spread_spawned
from sim.crowd.rules.wall_slide import wall_slide
from sim.crowd.settings import StepSettings
from sim.crowd.state import AgentState, ReplanCause
from sim.crowd.steering import Quaternion, heading_quat, quat_heading
from sim.crowd.step import count_still, distinct

SETTINGS = frozenset(field.name for field in fields(AgentConfig))
"""What `update_agent` may change: the fields of `AgentConfig`."""

_INT_VALUES = {
    "replans": "replans",
    "arrivals": "arrivals",
    "pushes": "pushes",
    "expanded_total": "expanded",
    "blocked_cell_frames": "blocked",
}

_REKEYED = frozenset({"index", "key", "driven"})
"""Row values an agent does not carry from one crowd to another (`add_agent`'s `values`): the
others are carried, or (its settings, owner and colour) given again."""

Locate = Callable[[int], Point | None]
"""Where the target of a key (`target_name`) stands now, world ``(x, y)``; None: nowhere."""


@dataclass(frozen=True, slots=True)
class AgentStatus:
    """What one agent is doing and has done, read at once (`Crowd.status`)."""

    state: AgentState
    driven: bool
    mode: AgentMode
    replans: int
    replans_by_cause: Mapping[ReplanCause, int]
    last_cause: ReplanCause | None
    arrivals: int
    pushes: int
    expanded_total: int
    distance_travelled: float
    blocked_cell_frames: int


_STATUS = tuple(field.name for field in fields(AgentStatus))


class Crowd:
    """Every agent's state, by index; moves the driven ones (see the module).

    Args:
        grid: The scene's grid.
        fields: The shared distance fields; None: a crowd that drives no one (its agents steer
            themselves, joint ones too: such a crowd is an agent's own, off the scene's plan).
        settings: Avoidance and arrival tunables (`StepSettings`).
        jams: The no-deadlock rule's tunables (`sim.crowd.jams`); a crowd without fields
            hands no jam off.
    """

    def __init__(
        self,
        grid: CrowdGrid,
        fields: SharedFields | None = None,
        *,
        settings: StepSettings | None = None,
        jams: JamSettings | None = None,
    ) -> None:
        self.settings = settings or StepSettings()
        self._jams = Jams(grid, jams) if fields is not None else None
        self._grid = grid
        self._rows = AgentRows()
        self._keys = TargetKeys()
        self._driving = Driving(self._rows, grid, fields, self.settings)
        self._plans_jointly = fields is not None
        self._row_of: dict[int, int] = {}
        self._next_index = 0
        self._left: list[int] = []
        self._spawned: list[int] = []  # agents added since the last update (`spread_spawned`)
        self._detours: dict[int, DetourWait] = {}  # self-steered agents' waits (`detour`)
        self._frame_s = 0.0  # the last update's dt: the frames its self-steered agents commit
        self._walls: tuple[int, Walls] | None = None  # the mask version it was built for

    # ---- Membership ---------------------------------------------------------------------

    def add_agent(
        self,
        config: AgentConfig,
        *,
        position: Point | None = None,
        heading_deg: float = 0.0,
        color: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0),
        owner: object = None,
        values: Mapping[str, Any] | None = None,
    ) -> int:
        """Add an agent standing at `position`, facing `heading_deg`; return its index.

        `owner` is whoever steers it when the crowd does not (the fields track it by that).
        `values` are what `remove_agent` gave of it in another crowd: it carries on from them
        (its state, counts, plan; where it stood too unless `position` is given), steering
        itself until this crowd drives it.
        """
        given = {name: value for name, value in (values or {}).items() if name not in _REKEYED}
        if position is not None or "positions" not in given:
            rotation = heading_quat(heading_deg)
            given.update(
                positions=position or (0.0, 0.0),
                headings=quat_heading(rotation) % 360.0,
                rotations=rotation,
            )
        elif values is not None and values.get("driven"):
            given["rotations"] = heading_quat(float(given["headings"]))
        given.setdefault("patrol", config.mode is AgentMode.PATROL)
        given.setdefault("waypoints", [])
        index = self._next_index
        self._next_index += 1
        given.update(
            index=index,
            owners=owner,
            configs=config,
            **setting_columns(config),
            avoidance=config.avoidance and config.planner is Planner.INDEPENDENT,
            joint=config.planner is Planner.MAPF,
            key=self._keys.key_for(config.target),
            colors=color,
        )
        self._row_of[index] = self._rows.add(**given)
        self._spawned.append(index)
        return index

    def remove_agent(self, index: int) -> dict[str, Any]:
        """Remove agent `index`; return its row's values (what `add_agent` carries on from).

        Its row leaves at the start of the next `update`; the index is gone at once.
        """
        row = self._row(index)
        del self._row_of[index]
        self._detours.pop(index, None)
        self._left.append(row)
        rows = self._rows
        kept: dict[str, Any] = {name: getattr(rows, name)[row].copy() for name in COLUMNS}
        kept.update(outcomes=rows.outcomes[row], waypoints=list(rows.waypoints[row]))
        return kept

    def move_agent(self, index: int, to: Crowd, **placed: Any) -> int:
        """Move agent `index`, with its owner, settings and row, to crowd `to`; its index there.

        `placed` are `add_agent`'s `position`, `heading_deg` and `color`.
        """
        config, owner = self.settings_of(index), self.owner(index)
        values = self.remove_agent(index)
        return to.add_agent(config, owner=owner, values=values, **placed)

    def update_agent(self, index: int, config: AgentConfig | None = None, **settings: Any) -> None:
        """Give agent `index` the new `config`, or change the named settings of its own.

        The next step uses them. A changed `mode` switches what it does now too (as M does);
        a changed `target` is `request_target`'s.

        Raises:
            ValueError: for an index not in the crowd or a name that is no setting.
        """
        row = self._row(index)
        unknown = set(settings) - SETTINGS
        if unknown:
            raise ValueError(f"unknown agent settings: {sorted(unknown)}")
        rows = self._rows
        old: AgentConfig = rows.configs[row]
        new = replace(config or old, **settings)
        rows.configs[row] = new
        for column, value in setting_columns(new).items():
            getattr(rows, column)[row] = value
        joint = new.planner is Planner.MAPF
        rows.joint[row] = joint
        rows.avoidance[row] = new.avoidance and not joint
        if "mode" in settings or new.mode is not old.mode:
            rows.patrol[row] = new.mode is AgentMode.PATROL
        if new.target != old.target:
            rows.key[row] = self._keys.key_for(new.target)

    def request_target(self, index: int, target: str | None) -> None:
        """Agent `index` chases the object named `target` from now on (None: End)."""
        self.update_agent(index, target=target)

    def request_replan(self, index: int, cause: ReplanCause) -> None:
        """A driven agent asks for a plan (counted under `cause`) on the next update."""
        row = self._row(index)
        self._rows.pending[row] = CAUSE_CODE[cause]

    def __len__(self) -> int:
        """How many agents have rows (those removed since the last update included)."""
        return len(self._rows)

    def __contains__(self, index: object) -> bool:
        """Whether `index` is an agent of this crowd."""
        return index in self._row_of

    def _row(self, index: int) -> int:
        row = self._row_of.get(index)
        if row is None:
            raise ValueError(f"agent {index!r} is not in the crowd (removed, or never added)")
        self._rows.flush()
        return row

    # ---- Reading one agent ----------------------------------------------------------------

    def position(self, index: int) -> Point:
        """World `(x, y)` of agent `index`."""
        row = self._row(index)
        x, y = self._rows.positions[row]
        return (float(x), float(y))

    def velocity(self, index: int) -> Point:
        """The velocity agent `index` moved at last, world units per second."""
        row = self._row(index)
        vx, vy = self._rows.velocities[row]
        return (float(vx), float(vy))

    def heading_deg(self, index: int) -> float:
        """Heading of agent `index` in degrees, in [0, 360) (Panda3D's: 0 faces +Y)."""
        row = self._row(index)
        return float(self._rows.headings[row]) % 360.0

    def rotation(self, index: int) -> Quaternion:
        """The facing of self-steered agent `index` as its steering keeps it (`steering`)."""
        row = self._row(index)
        w, x, y, z = self._rows.rotations[row]
        return (float(w), float(x), float(y), float(z))

    def settings_of(self, index: int) -> AgentConfig:
        """Agent `index`'s settings, as `add_agent` or `update_agent` last gave them."""
        row = self._row(index)
        config: AgentConfig = self._rows.configs[row]
        return config

    def is_driven(self, index: int) -> bool:
        """Whether the crowd moves agent `index`, or the joint plan (else its owner steers it)."""
        row = self._row(index)
        rows = self._rows
        under = self._jams is not None and self._jams.is_under(int(rows.index[row]))
        return bool(rows.driven[row] or (self._plans_jointly and rows.joint[row]) or under)

    def owner(self, index: int) -> object:
        """Who steers agent `index` when the crowd does not (`add_agent`)."""
        row = self._row(index)
        return self._rows.owners[row]

    def status(self, index: int) -> AgentStatus:
        """What agent `index` is doing and has done."""
        values = {name: self.get(index, name) for name in _STATUS if name != "driven"}
        return AgentStatus(driven=self.is_driven(index), **values)

    def get(self, index: int, name: str) -> Any:
        """One value of agent `index` by name.

        The names are `AgentStatus`'s, and `patrol_to_start`, `outcome` (a self-steered
        agent's last plan) and `waypoints` (where it heads).
        """
        row, rows = self._row(index), self._rows
        if name in _INT_VALUES:
            return int(getattr(rows, _INT_VALUES[name])[row])
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
            return rows.outcomes[row]
        if name == "waypoints":
            return self._driving.waypoints(row) if rows.driven[row] else rows.waypoints[row]
        raise AttributeError(name)

    def set(self, index: int, name: str, value: Any) -> None:
        """Set one value of agent `index` by the name `get` reads it."""
        row, rows = self._row(index), self._rows
        if name in _INT_VALUES:
            getattr(rows, _INT_VALUES[name])[row] = value
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
        elif name == "outcome":
            rows.outcomes[row] = value
        elif name == "waypoints":
            rows.waypoints[row] = value
        else:
            raise AttributeError(name)

    def field_plan(self, index: int) -> FieldPlan | None:
        """A driven agent's plan down its target's field; None before it has a field."""
        return self._driving.field_plan(self._row(index))

    # ---- Every agent (read-only views, row order) -----------------------------------------

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
        """(n, 4) RGBA of each agent."""
        return _read_only(self._flushed().colors)

    @property
    def velocities(self) -> NDArray[np.float64]:
        """(n, 2) the velocity each moved at last, world units per second."""
        return _read_only(self._flushed().velocities)

    @property
    def driven(self) -> NDArray[np.bool_]:
        """(n,) which agents the crowd moves."""
        return _read_only(self._flushed().driven)

    @property
    def moved(self) -> NDArray[np.bool_]:
        """(n,) `is_driven` of every agent: whom the crowd or a joint plan moves."""
        rows = self._flushed()
        return rows.driven | (rows.joint & self._plans_jointly) | self.jam_members

    @property
    def link_poses(self) -> LinkPoses:
        """Who crosses a link now, how high, and shown or not (`sim.crowd.links.crossings`)."""
        rows = self._flushed()
        return LinkPoses(rows.crossing >= 0, _read_only(rows.lift), _read_only(rows.shown))

    @property
    def indices(self) -> tuple[int, ...]:
        """Each row's agent index, in row order."""
        return tuple(int(index) for index in self._flushed().index)

    @property
    def owners(self) -> tuple[object, ...]:
        """Each row's owner (`add_agent`), in row order."""
        return tuple(self._flushed().owners)

    @property
    def jam_members(self) -> NDArray[np.bool_]:
        """(n,) which agents a jam's joint plan moves now (`sim.crowd.jams`)."""
        rows = self._flushed()
        if self._jams is None:
            return np.zeros(len(rows), dtype=bool)
        return _read_only(self._jams.under_plan(rows))

    @property
    def jam_log(self) -> JamLog | None:
        """Every hand-off to a joint plan and back (`sim.crowd.jams.log`); None: no rule."""
        return None if self._jams is None else self._jams.log

    def jam_report(self) -> JamReport:
        """What the no-deadlock rule did so far: jams, hand-offs, hand-backs, agents in plans."""
        if self._jams is None:
            return JamReport(0, 0, 0, 0, 0)
        self._flushed()
        return self._jams.report()

    @property
    def jam_windows(self) -> tuple[tuple[int, int, int, int], ...]:
        """Each joint plan's window under way: first row, last row, first column, last column."""
        return () if self._jams is None else self._jams.windows

    def state_counts(self) -> Counter[AgentState]:
        """How many agents are in each state (one array count, not a read per agent)."""
        counts = np.bincount(self._flushed().state, minlength=len(STATES))
        return Counter({state: int(counts[code]) for code, state in enumerate(STATES)})

    def target_name(self, key: int) -> str | None:
        """The object name a target key stands for (None: End's or Start's tag, see `goals`)."""
        return self._keys.name(key)

    @property
    def planning_ms(self) -> float:
        """Wall-clock milliseconds spent computing aims so far."""
        return self._driving.planning_ms

    def _flushed(self) -> AgentRows:
        self._rows.flush()
        return self._rows

    # ---- Self-steered agents ---------------------------------------------------------------

    def avoid(
        self,
        index: int,
        preferred: Point,
        dt: float,
        *,
        resting: bool = False,
        goal: Point | None = None,
    ) -> Point:
        """The velocity ORCA gives self-steered agent `index` (`sim.crowd.lone.lone_velocity`).

        When that velocity would take its disc onto a wall, it slides along the wall where it
        may (`sim.crowd.rules.wall_slide`): pressed against a wall by others, it still moves
        along it, though never backward nor deeper into another disc.
        """
        row = self._row(index)
        velocity = lone_velocity(
            self._rows, row, preferred, dt, self.settings, resting=resting, goal=goal
        )
        if velocity == preferred:
            return velocity
        return wall_slide(self._rows, row, preferred, velocity, dt, self._hits)

    def joins_cluster(self, index: int, goal: Point) -> bool:
        """Whether self-steered agent `index` arrives by the crowd's rule (`sim.crowd.lone`)."""
        return joins_cluster(self._rows, self._row(index), goal, self.settings)

    def detour_cells(self, index: int) -> frozenset[Cell]:
        """The cells self-steered agent `index` plans round now (`sim.crowd.rules.detour`)."""
        detour = self._detours.get(index)
        return frozenset() if detour is None else detour.cells

    def commit_pose(
        self, index: int, position: Point, rotation: Quaternion, velocity: Point
    ) -> None:
        """Where self-steered agent `index` stands after its step, its facing and its velocity."""
        row, rows = self._row(index), self._rows
        rows.positions[row] = position
        rows.rotations[row] = rotation
        rows.headings[row] = quat_heading(rotation) % 360.0
        rows.velocities[row] = rows.preferred[row] = velocity
        count_still(rows, np.array([row]), self.settings)
        self._watch_detour(index, row)

    def _watch_detour(self, index: int, row: int) -> None:
        """Tick agent `index`'s wait behind agents standing on its way (`DetourWait`)."""
        wait = watch_detour(self._rows, row, self._detours.get(index), self._grid, self._frame_s)
        if wait is not None:
            self._detours[index] = wait

    def place(self, index: int, position: Point, heading_deg: float) -> None:
        """Put agent `index` at `position` facing `heading_deg`, as a reset does.

        A driven agent stands at rest then and asks for a plan; a self-steered one plans
        itself.
        """
        row, rows = self._row(index), self._rows
        rotation = heading_quat(heading_deg)
        rows.positions[row] = position
        rows.rotations[row] = rotation
        if rows.driven[row]:
            rows.headings[row] = heading_deg % 360.0
            rows.velocities[row] = 0.0
            rows.still[row] = rows.stuck[row] = 0
            rows.rest_from[row] = np.nan
            rows.pending[row] = CAUSE_CODE[ReplanCause.INTERVAL]
        else:
            rows.headings[row] = quat_heading(rotation) % 360.0

    # ---- The frame ---------------------------------------------------------------------------

    def update(self, dt: float, locate: Locate) -> list[int]:
        """Step the crowd by `dt` seconds; return the agents handed over, in row order.

        Rows removed since the last update leave first; agents added since then onto others
        move to the nearest free places (`sim.crowd.rules.spawn`). Then every target chased is
        located (`locate`, once per target), the agents of targets enough agents chase are
        driven and the others handed back to their owners (those returned: `is_driven` says
        which way), and the driven ones move.
        """
        self._driving.time_s += dt
        self._frame_s = dt
        self._drop_left()
        rows = self._flushed()
        if not len(rows):
            return []
        self._spread_spawned()
        keys = np.where(rows.patrol & rows.to_start, START_KEY, rows.key)
        targets = {int(key): locate(int(key)) for key in distinct(keys)}
        handed = self._driving.assign(keys, targets)
        driven_now = rows.driven
        if self._jams is not None:
            time_s = self._driving.time_s
            taken = self._jams.update(rows, keys, targets, ~rows.joint, dt, time_s)
            handed = sorted({*handed, *taken})  # indices grow with the rows: row order
            driven_now = driven_now & ~self._jams.under_plan(rows)
        driven = np.flatnonzero(driven_now)
        if len(driven):
            self._driving.drive(driven, keys[driven], targets, dt)
        return handed

    def _spread_spawned(self) -> None:
        """Move agents added onto others to the nearest free places (`spread_spawned`)."""
        spawned = [self._row_of[index] for index in self._spawned if index in self._row_of]
        self._spawned.clear()
        if spawned:
            spread_spawned(self._rows.positions, self._rows.radii, np.array(spawned), self._hits)

    def _hits(self, centres: NDArray[np.float64], radii: NDArray[np.float64]) -> NDArray[np.bool_]:
        """Whether discs (world centres and radii) overlap a wall of the grid as it is now."""
        grid = self._grid
        if self._walls is None or self._walls[0] != grid.mask_version:
            self._walls = (grid.mask_version, Walls(grid.walkable))
        size = grid.grid_cell_size
        return self._walls[1].hit((centres - np.asarray(grid.origin)) / size, radii / size)

    def _drop_left(self) -> None:
        if not self._left:
            return
        keep = np.ones(len(self._rows), dtype=bool)
        keep[self._left] = False
        self._left.clear()
        self._rows.keep(keep)
        self._row_of = {int(index): row for row, index in enumerate(self._rows.index)}


def _read_only(array: NDArray[Any]) -> NDArray[Any]:
    view = array.view()
    view.flags.writeable = False
    return view
