"""How a crowd drives its agents: per chased target a shared field, and every driven row's step.

`Driving` works on the rows of one `Crowd` (`sim.crowd.rows.AgentRows`). Each frame it hands
the rows of targets enough agents chase to the crowd (`assign`: driven) and the others back to
their owners, then per target takes a new field when due, counts the replans it makes, places
the goal (`sim.crowd.goals.TargetGroup`) and moves every driven row at once
(`sim.crowd.step.DrivenStep`); patrolling agents that arrived turn round. Agents crossing a
link are out of the step until they land (`sim.crowd.links.crossings`). Agents kept to some
areas are driven too, in groups of their own per target and set of areas, each on its own
grid (`sim.crowd.areas.masks`): its field, walls and pushes keep to those areas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.crowd.areas.masks import MASK_STRIDE, Masks, group_key, mask_of, target_of
from sim.crowd.field_routes import FieldRoute
from sim.crowd.goals import START_KEY, Rooms, SharedFields, TargetGroup
from sim.crowd.grid import CrowdGrid, Point
from sim.crowd.links.crossings import advance_crossings, begin_crossings, land
from sim.crowd.rows import AgentRows
from sim.crowd.settings import StepSettings
from sim.crowd.state import AgentState, ReplanCause
from sim.crowd.steering import heading_quat
from sim.crowd.step import DrivenStep

STATES = tuple(AgentState)
CAUSES = tuple(ReplanCause)
STATE_CODE = {state: code for code, state in enumerate(STATES)}
CAUSE_CODE = {cause: code for code, cause in enumerate(CAUSES)}
MOVING = STATE_CODE[AgentState.MOVING]
ARRIVED = STATE_CODE[AgentState.ARRIVED]
IDLE = STATE_CODE[AgentState.IDLE]
NO_PATH = STATE_CODE[AgentState.NO_PATH]


@dataclass(frozen=True, slots=True)
class FieldPlan:
    """A driven agent's plan: the way down its target's field from the cell it stands on.

    Attributes:
        route: The cells from its cell to the field's goal, None where the goal is walled off.
        waypoints: Where it heads now (its aim), or nothing once arrived.
        cost: The path's cost, world units (inf where walled off).
        length: The path's length, world units.
    """

    route: FieldRoute | None
    waypoints: tuple[Point, ...]
    cost: float
    length: float


class Driving:
    """The driven rows of `rows`: their targets' groups and their step (see the module).

    Args:
        rows: The crowd's rows.
        grid: The scene's grid.
        fields: The shared distance fields; None: nobody is driven.
        settings: The step's tunables.
    """

    def __init__(
        self,
        rows: AgentRows,
        grid: CrowdGrid,
        fields: SharedFields | None,
        settings: StepSettings,
    ) -> None:
        self._rows = rows
        self._grid = grid
        self._fields = fields
        self._settings = settings
        self._groups: dict[int, TargetGroup] = {}  # by `group_key`
        self._masks = Masks(grid)
        self._rooms: dict[int, Rooms] = {0: Rooms()}  # by mask
        self._step = DrivenStep(grid, settings)
        self._masked_steps: dict[int, DrivenStep] = {}
        self.time_s = 0.0

    @property
    def planning_ms(self) -> float:
        """Wall-clock milliseconds spent computing aims so far."""
        return self._step.aim_ms + sum(step.aim_ms for step in self._masked_steps.values())

    def drive(
        self,
        driven: NDArray[np.intp],
        keys: NDArray[Any],
        targets: dict[int, Point | None],
        dt: float,
    ) -> None:
        """Move the `driven` rows (chasing the targets of `keys`) by one frame of `dt` s."""
        rows = self._rows
        keys = keys.astype(np.int64) * MASK_STRIDE + rows.mask[driven]
        by_group = {int(key): targets[target_of(int(key))] for key in np.unique(keys)}
        self._refresh_groups(driven, keys, by_group)
        if dt > 0.0:
            crossing = rows.crossing[driven] >= 0
            walking, walking_keys = driven[~crossing], keys[~crossing]
            if len(walking):
                self._walk(walking, walking_keys, dt)
            # After the step, whose parting may push any driven disc: a crossing keeps its pose.
            advance_crossings(rows, driven[crossing], dt)
            if len(walking):
                cells_of = self._step.cells_of
                begin_crossings(rows, walking, walking_keys, self._groups, cells_of, self._grid)
            self._on_arrivals(driven)

    def _walk(self, walking: NDArray[np.intp], keys: NDArray[np.int64], dt: float) -> None:
        """Step the `walking` rows, each set of areas on its own grid.

        With several, each step's parting may move only its own rows (the others count as
        not driven for it): a push by the scene's walls must not carry an agent off its areas.
        """
        rows, groups = self._rows, self._groups
        masks = keys % MASK_STRIDE
        found = np.unique(masks)
        if len(found) == 1:
            mask = int(found[0])
            self._step_of(mask).run(rows, walking, keys, groups, self._rooms[mask], dt)
            return
        driven = rows.driven.copy()
        for mask in found:
            chosen = masks == mask
            rows.driven[:] = False
            rows.driven[walking[chosen]] = True
            step = self._step_of(int(mask))
            step.run(rows, walking[chosen], keys[chosen], groups, self._rooms[int(mask)], dt)
        rows.driven[:] = driven

    def _step_of(self, mask: int) -> DrivenStep:
        if mask == 0:
            return self._step
        step = self._masked_steps.get(mask)
        if step is None:
            step = self._masked_steps[mask] = DrivenStep(self._masks.grid(mask), self._settings)
            self._rooms[mask] = Rooms()
        return step

    def field_plan(self, row: int) -> FieldPlan | None:
        """Driven `row`'s plan down its target's field; None before it has a field."""
        rows = self._rows
        group = self._group_of(row)
        if group is None or group.field is None:
            return None
        field = group.field
        cell = int(self._step.cells_of(rows.positions[row : row + 1])[0])
        cost = field.costs[cell]
        if cost == float("inf"):
            return FieldPlan(None, (), cost, float("inf"))
        size = self._grid.grid_cell_size
        return FieldPlan(
            FieldRoute(field.tables, cell, field.goal),
            tuple(self.waypoints(row)),
            cost * size,
            field.tables.length(cell) * size,
        )

    def assign(self, keys: NDArray[Any], targets: dict[int, Point | None]) -> list[int]:
        """Drive the rows of targets enough agents chase; hand the others back.

        Python work per agent handed over only: it happens when a crowd forms or breaks up.
        """
        rows = self._rows
        if self._fields is None:
            return []
        counts = np.bincount(keys, minlength=int(keys.max()) + 1)
        found = np.zeros(len(counts), dtype=bool)
        found[[key for key, target in targets.items() if target is not None]] = True
        has_target = found[keys]
        fits = rows.radii <= self._grid.grid_cell_size / 2.0
        # The joint plan moves its agents; no field may take them over.
        wanted = fits & has_target & ~rows.joint
        wanted &= counts[keys] >= self._fields.threshold
        handed = []
        for row in np.flatnonzero(wanted != rows.driven):
            if wanted[row]:
                rows.driven[row] = True
                config = rows.configs[row]
                rows.mask[row] = self._masks.mask_for(getattr(config, "areas", None))
                rows.pending[row] = CAUSE_CODE[ReplanCause.INTERVAL]
                rows.still[row] = rows.stuck[row] = 0
            else:
                rows.driven[row] = False
                land(rows, int(row))  # its owner takes it back on the ground
                # Its owner steers by this rotation from now on.
                rows.rotations[row] = heading_quat(float(rows.headings[row]) % 360.0)
            handed.append(int(rows.index[row]))
        return handed

    def _refresh_groups(
        self, driven: NDArray[np.intp], keys: NDArray[Any], targets: dict[int, Point | None]
    ) -> None:
        """Per target: take a new field when due, count the replans, place the goal."""
        rows = self._rows
        for key in np.unique(keys):
            members = driven[keys == key]
            where = targets[int(key)]
            mask = mask_of(int(key))
            grid = self._masks.grid(mask)
            group = self._groups.get(int(key))
            if group is None:
                group = self._groups[int(key)] = TargetGroup(self._masks.areas(mask))
            if where is None:
                rows.state[members] = IDLE
                rows.pending[members] = -1
                continue
            cell = grid.clamped_cell(where)
            goal_moved = group.cell is not None and cell != group.cell
            cut = self._cut_rows(group, members, grid)
            due = (
                group.field is None
                or goal_moved
                or cut.any()
                or (rows.pending[members] >= 0).any()
                or group.planning_key != grid.planning_key
                or self._stale(group, members, grid)
            )
            if due:
                self._take(group, members, grid, cell, goal_moved=goal_moved, cut=cut)
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

    def _cut_rows(
        self, group: TargetGroup, members: NDArray[np.intp], grid: CrowdGrid
    ) -> NDArray[np.bool_]:
        """Which members' cell or aim became blocked since the group last looked."""
        if group.field is None or group.mask_checked == grid.mask_version:
            return np.zeros(len(members), dtype=bool)
        group.mask_checked = grid.mask_version
        walkable = grid.walkable.ravel()
        cells = self._step.cells_of(self._rows.positions[members])
        aims = self._rows.aim[members]
        aims = np.where(aims >= 0, aims, cells)
        return ~walkable[cells] | ~walkable[aims]

    def _stale(self, group: TargetGroup, members: NDArray[np.intp], grid: CrowdGrid) -> bool:
        """Whether the grid changed since the field and its interval passed, or agents stick."""
        if group.field is None or group.field.version == grid.version:
            return False
        assert self._fields is not None  # only driven agents have groups
        if self.time_s - group.taken_s >= self._fields.replan_interval_s:
            return True
        return bool((self._rows.stuck[members] >= self._settings.stuck_frames).any())

    def _take(
        self,
        group: TargetGroup,
        members: NDArray[np.intp],
        grid: CrowdGrid,
        cell: tuple[int, int],
        *,
        goal_moved: bool,
        cut: NDArray[np.bool_],
    ) -> None:
        fields = self._fields
        assert fields is not None  # only driven agents take fields
        new = group.take(fields, grid, cell, self.time_s)
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
                fields.track(rows.owners[row], cell)

    def _on_arrivals(self, driven: NDArray[np.intp]) -> None:
        """Patrolling agents that arrived turn round (Python per arrival: they are few)."""
        rows = self._rows
        turning = driven[rows.patrol[driven] & (rows.state[driven] == ARRIVED)]
        for row in turning:
            rows.to_start[row] = not rows.to_start[row]
            rows.state[row] = MOVING
            rows.pending[row] = CAUSE_CODE[ReplanCause.GOAL_MOVED]

    def _group_of(self, row: int) -> TargetGroup | None:
        rows = self._rows
        key = START_KEY if rows.patrol[row] and rows.to_start[row] else int(rows.key[row])
        return self._groups.get(group_key(key, int(rows.mask[row])))

    def waypoints(self, row: int) -> list[Point]:
        """Where a driven agent heads now: its aim, or nothing once arrived."""
        rows = self._rows
        if rows.state[row] != MOVING:
            return []
        if rows.aim[row] < 0:
            return []
        x, y = rows.aim_points[row]
        return [(float(x), float(y))]
