"""The no-deadlock rule's second half: a jam's joint plan, followed, and the hand-back.

`Jams.update` runs once a frame at the top of the crowd's step (`sim.crowd.crowd.Crowd`):

1. **Follow**: every joint plan under way moves its members one frame along it
   (`sim.crowd.jams.flow`: each agent walks its cells at its own speed, waiting only for the
   one planned into a cell before it; a plan with a rotation goes in lock step,
   `sim.crowd.joint.JointFollower`), never faster than their speeds and never into an agent
   outside the plan (`sim.crowd.jams.moves`: such an agent holds the member; one that holds
   the whole plan still for `HELD_S` ends it); a plan whose every member stands on its local
   goal is over, and its members are **handed back**: driven ones to their fields (they ask
   for a plan; those it brought to the cells round their goal have arrived, as a cluster a
   cell apart would never touch to arrive), self-steered ones to their owners, all with their
   avoidance on again and their stall windows started afresh.
2. **Detect** (every `JamSettings.check_every_s`): groups converging on a one-cell passage
   from both its sides (`sim.crowd.jams.funnel`), then the stalled agents and their jams
   (`sim.crowd.jams.detect`).
3. **Hand off** each (`Jams._plan`): the local problem is a window of the grid, the group's
   cells' bounding box grown by `margin_cells` on every side, and on to take in its goal
   cells that lie within `margin_cells` of that (`sim.crowd.jams.window`); every agent whose
   cell lies in it and that is moving to a goal is a member (agents in another joint plan,
   arrived ones, the scene's own MAPF agents and discs wider than half a cell are obstacles
   on their cells instead). Each member starts on a free cell near where it stands
   (`sim.crowd.jams.local.start_cells`); the members bound for one goal head for the window
   cells nearest it along the grid, filled from the back (`sim.crowd.jams.window.local_goals`),
   so members whose goal lies in the window head for the cells round it and the others for
   the edge of the window their own field leads out of. LaCAM* on a fixed budget of work and
   a fixed seed (`sim.crowd.jams.local.joint_paths`: the same jam gives the same plan) solves
   it; without a plan the window doubles, up to `MAX_GROWTH` times its first margin or the
   whole grid, and a jam no window solves is left to avoidance (its stall windows start
   again). A jam whose window overlaps a plan under way grows that plan's window instead,
   and joins it (as newcomers do, see `Jams._follow`).

While in a plan an agent is moved by it alone: the crowd's step leaves it out, its owner does
not steer it (`Crowd.is_driven`), and ORCA counts it as an agent that does not avoid, so the
others go around it. Everything runs in row order with a fixed seed: the same scene twice
gives the same hand-offs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
from numpy.typing import NDArray

from sim.crowd.grid import CrowdGrid, Point
from sim.crowd.jams.detect import (
    GoalDistances,
    JamSettings,
    ProgressWatch,
    closing_up,
    jam_groups,
    member_limit,
    touch_neighbours,
)
from sim.crowd.jams.flow import Follower, follow_plan
from sim.crowd.jams.funnel import funnel_groups, narrow_cells
from sim.crowd.jams.local import joint_paths, start_cells, turn_lag
from sim.crowd.jams.log import JamEventKind, JamLog
from sim.crowd.jams.moves import WallCache, move_members
from sim.crowd.jams.window import (
    local_goals,
    near_points,
    sorted_union,
    window_union,
    windows_overlap,
    with_goals,
)
from sim.crowd.rows import AgentRows
from sim.crowd.state import AgentState, ReplanCause
from sim.crowd.steering import heading_quat
from sim.mapf import MapfProblem

MOVING = tuple(AgentState).index(AgentState.MOVING)
ARRIVED = tuple(AgentState).index(AgentState.ARRIVED)
INTERVAL = tuple(ReplanCause).index(ReplanCause.INTERVAL)
NEWCOMER_CELLS = 2.0  # an agent this near a member (past their radii) joins its plan
CLUSTER_REACH = 2.5  # radii past the arrived cluster within which an agent is arriving
MAX_GROWTH = 4  # a jam's window grows to at most this many times its first margin
HELD_S = 0.5  # seconds a plan may stand still, held by agents outside it, before it is over


class Merged(Enum):
    """A jam taken in by the plan under way next to it (`Jams._plan`)."""

    MERGED = "merged"


MERGED = Merged.MERGED


@dataclass(frozen=True, slots=True)
class JamReport:
    """What the no-deadlock rule did so far (`Crowd.jam_report`).

    Attributes:
        jams: Jams found (stalled groups), handed off or not.
        handoffs: Joint plans made and followed.
        handbacks: Joint plans over, their members handed back.
        unsolved: Jams no window's joint plan solved (left to avoidance).
        under_plan: Agents in a joint plan now.
    """

    jams: int
    handoffs: int
    handbacks: int
    unsolved: int
    under_plan: int


@dataclass(slots=True)
class LocalPlan:
    """One jam's joint plan: its members (agent indices), window and follower."""

    members: NDArray[np.int64]
    window: tuple[int, int, int, int]  # first row, last row, first column, last column
    follower: Follower
    settles: NDArray[np.bool_]  # its goal lies in the window: at the plan's end it has arrived
    joining: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    """Agents of a jam this plan took in (`MERGED`): they join it at once, however far."""
    held_s: float = 0.0
    """How long agents outside the plan have held it still (`HELD_S`)."""
    targets: NDArray[np.float64] | None = None
    """Where the plan put its members last frame (`sim.crowd.jams.moves`); None: not yet."""


class Jams:
    """The no-deadlock rule over one crowd's rows (see the module).

    Args:
        grid: The scene's grid.
        settings: The rule's tunables.
    """

    def __init__(self, grid: CrowdGrid, settings: JamSettings | None = None) -> None:
        self._grid = grid
        self.settings = settings or JamSettings()
        self._distances = GoalDistances()
        self._watch = ProgressWatch()
        self._walls = WallCache(grid)
        self._plans: list[LocalPlan] = []
        self._under = np.zeros(0, dtype=bool)  # by agent index
        self._next_check_s = 0.0
        self._narrow: tuple[int, NDArray[np.int8]] | None = None  # for the mask version
        self._funnel_rest: dict[int, float] = {}  # narrow cell: when it may be tried again
        self.jams = self.handoffs = self.handbacks = self.unsolved = 0
        self.log = JamLog()  # every hand-off and hand-back, for the trace

    def report(self) -> JamReport:
        """The counts so far, and how many agents are in a joint plan now."""
        under = int(self._under.sum())
        return JamReport(self.jams, self.handoffs, self.handbacks, self.unsolved, under)

    def under_plan(self, rows: AgentRows) -> NDArray[np.bool_]:
        """(n,) which rows are in a joint plan now."""
        self._fit(rows.index)
        under: NDArray[np.bool_] = self._under[rows.index]
        return under

    def is_under(self, index: int) -> bool:
        """Whether agent `index` is in a joint plan now (one look, no array made)."""
        return index < len(self._under) and bool(self._under[index])

    @property
    def windows(self) -> tuple[tuple[int, int, int, int], ...]:
        """Each plan's window under way: first row, last row, first column, last column."""
        return tuple(plan.window for plan in self._plans)

    def _fit(self, indices: NDArray[np.int64]) -> None:
        size = int(indices.max()) + 1 if len(indices) else 0
        if size > len(self._under):
            self._under = np.concatenate([self._under, np.zeros(size - len(self._under), bool)])

    def update(
        self,
        rows: AgentRows,
        keys: NDArray[np.int32],
        targets: Mapping[int, Point | None],
        candidates: NDArray[np.bool_],
        dt: float,
        time_s: float,
    ) -> list[int]:
        """Follow, hand back, detect and hand off (see the module).

        `candidates` are the rows the rule may take (the scene's own MAPF agents are not).
        Returns the agents whose owner stops or starts steering them (self-steered ones taken
        or handed back), in row order.
        """
        self._fit(rows.index)
        cells = self._cells_of(rows.positions)
        goals = self._goal_cells(keys, targets)
        goal_of = goals[keys] if len(goals) else np.full(len(rows), -1)
        changed = self._follow(rows, cells, goal_of, candidates, dt, time_s) if dt > 0.0 else []
        if time_s < self._next_check_s:
            return changed
        self._next_check_s = time_s + self.settings.check_every_s
        under = self._under[rows.index]
        distance = np.full(len(rows), np.inf)
        walkable, version = self._grid.walkable, self._grid.mask_version
        for goal in np.unique(goal_of[goal_of >= 0]):
            chasing = goal_of == goal
            distance[chasing] = self._distances.of(walkable, version, int(goal))[cells[chasing]]
        arriving = self._at_cluster(rows, keys, targets)
        watched = candidates & ~under & (rows.state == MOVING) & (goal_of >= 0) & ~arriving
        stalled = self._watch.observe(rows.index, distance, watched, time_s, self.settings)
        changed += self._funnels(rows, cells, watched, distance, goal_of, candidates, time_s)
        watched &= ~self._under[rows.index]
        stalled &= watched
        progressing = watched & ~stalled
        if not stalled.any():
            return sorted(changed)
        eligible = candidates & ~self._under[rows.index]
        contact = self.settings.contact_cells * self._grid.grid_cell_size
        near = touch_neighbours(rows.positions, rows.radii, contact)
        progressing &= ~closing_up(
            rows.positions, rows.radii, stalled, goal_of, distance, contact, near
        )
        found = jam_groups(
            rows.positions,
            rows.radii,
            stalled,
            eligible,
            progressing,
            goal_of,
            contact=contact,
            opposed=self.settings.opposed_cells * self._grid.grid_cell_size,
            others=candidates,  # agents in a plan bound elsewhere hold others up too
            neighbours=near,
        )
        for group in found:
            plan = self._hand_off(rows, group, cells, goal_of, candidates, time_s, changed)
            if plan is None:
                self._watch.restart(rows.index[group], time_s)
        return sorted(changed)

    def _funnels(
        self,
        rows: AgentRows,
        cells: NDArray[np.intp],
        watched: NDArray[np.bool_],
        distance: NDArray[np.float64],
        goal_of: NDArray[np.int64],
        candidates: NDArray[np.bool_],
        time_s: float,
    ) -> list[int]:
        """Hand off the groups converging on a narrow cell (`sim.crowd.jams.funnel`).

        A funnel no window's plan solves is not looked at again for `JamSettings.window_s`
        (the stall rule still watches its agents).
        """
        grid = self._grid
        if self._narrow is None or self._narrow[0] != grid.mask_version:
            self._narrow = (grid.mask_version, narrow_cells(grid.walkable))
            self._funnel_rest.clear()
        walkable, version = grid.walkable, grid.mask_version

        def field_of(goal: int) -> NDArray[np.float64]:
            return self._distances.of(walkable, version, goal)

        changed: list[int] = []
        reach = self.settings.funnel_cells
        narrow = self._narrow[1]
        found = funnel_groups(cells, watched, distance, goal_of, field_of, narrow, reach)
        for cell, group in found:
            if self._funnel_rest.get(cell, -np.inf) > time_s:
                continue
            if self._hand_off(rows, group, cells, goal_of, candidates, time_s, changed) is None:
                self._funnel_rest[cell] = time_s + self.settings.window_s
        return changed

    def _hand_off(
        self,
        rows: AgentRows,
        group: NDArray[np.intp],
        cells: NDArray[np.intp],
        goal_of: NDArray[np.int64],
        candidates: NDArray[np.bool_],
        time_s: float,
        changed: list[int],
    ) -> LocalPlan | Merged | None:
        """Plan for `group` (rows) and put its members under the plan (see the module).

        Returns the plan, `MERGED`, or None when no window's plan solved it (counted
        unsolved). A group with a member taken by a plan this check is left: it is `MERGED`.
        """
        if self._under[rows.index[group]].any():
            return MERGED  # taken by a plan made from an earlier group this check
        self.jams += 1
        plan = self._plan(rows, group, cells, goal_of, candidates)
        if plan is None:
            self.unsolved += 1
        elif plan is not MERGED:
            self.handoffs += 1
            self._plans.append(plan)
            changed += self._take(rows, plan, time_s)
        return plan

    def _take(self, rows: AgentRows, plan: LocalPlan, time_s: float) -> list[int]:
        """Put `plan`'s members under it; return the self-steered ones (their owners stop)."""
        fresh = plan.members[~self._under[plan.members]]
        self.log.add(JamEventKind.HANDOFF, fresh, time_s=time_s)
        self._under[plan.members] = True
        member_rows = np.searchsorted(rows.index, fresh)
        rows.avoidance[member_rows] = False
        rows.velocities[member_rows] = 0.0
        return [int(rows.index[row]) for row in member_rows if not rows.driven[row]]

    # ---- Following and handing back ---------------------------------------------------------

    def _follow(
        self,
        rows: AgentRows,
        cells: NDArray[np.intp],
        goal_of: NDArray[np.int64],
        candidates: NDArray[np.bool_],
        dt: float,
        time_s: float,
    ) -> list[int]:
        """Move every plan's members one frame; take in newcomers; hand back finished plans.

        An agent that walks into a plan's window meanwhile (it was elsewhere when the plan was
        made) and comes within `NEWCOMER_CELLS` of a member would meet members that do not
        avoid: the plan is made again at once with the newcomer in it, from where everyone
        stands (its first step takes them to their cells, `gather_waits`).
        """
        changed: list[int] = []
        kept: list[LocalPlan] = []
        width = self._grid.num_of_columns
        for plan in self._plans:
            where = np.searchsorted(rows.index, plan.members)
            last = np.minimum(where, len(rows) - 1)
            present = (where < len(rows)) & (rows.index[last] == plan.members)
            member_rows = where[present]
            if not present.all():  # a member left the crowd: the rest go back on their own
                self._hand_back(rows, plan, member_rows, present, time_s, changed)
                continue
            r0, r1, c0, c1 = plan.window
            row_of, col_of = cells // width, cells % width
            inside = (row_of >= r0) & (row_of <= r1) & (col_of >= c0) & (col_of <= c1)
            movable = self._movable(rows, candidates, goal_of)
            joining = np.isin(rows.index, plan.joining)
            newcomers = inside & movable & (self._near(rows, member_rows) | joining)
            members = sorted_union(member_rows, np.flatnonzero(newcomers), len(rows))
            roomy = newcomers.any() and len(members) <= member_limit(
                self.settings, goal_of[members]
            )
            if roomy:
                blocked = inside & ~movable
                blocked[member_rows] = False
                fresh = self._solve(rows, members, blocked, cells, goal_of, plan.window)
                plan.joining = np.zeros(0, np.int64)  # asked once: a jam that stays comes again
                if fresh is not None:
                    changed += self._take(rows, fresh, time_s)
                    plan, member_rows = fresh, members
            plan.targets, still = move_members(
                rows, member_rows, plan.follower, self._walls, plan.targets, dt
            )
            plan.held_s = plan.held_s + dt if still else 0.0
            if plan.follower.finished or plan.held_s >= HELD_S:
                self._hand_back(rows, plan, member_rows, present, time_s, changed)
            else:
                kept.append(plan)
        self._plans = kept
        return changed

    def _hand_back(
        self,
        rows: AgentRows,
        plan: LocalPlan,
        member_rows: NDArray[np.intp],
        present: NDArray[np.bool_],
        time_s: float,
        changed: list[int],
    ) -> None:
        self.handbacks += 1
        self.log.add(JamEventKind.HANDBACK, plan.members, time_s=time_s)
        self._under[plan.members] = False
        self._watch.restart(plan.members, time_s)
        rows.velocities[member_rows] = rows.preferred[member_rows] = 0.0
        finished = plan.follower.finished
        for row, settles in zip(member_rows, plan.settles[present], strict=True):
            config = rows.configs[row]
            rows.avoidance[row] = config.avoidance and not rows.joint[row]
            rows.rotations[row] = heading_quat(float(rows.headings[row]))
            if rows.driven[row] and settles and finished:
                # On the free cell nearest its goal that the plan could give it: the cluster's
                # cells are a cell apart, so it would never touch the others to arrive.
                rows.state[row] = ARRIVED
                rows.arrivals[row] += 1
                rows.home[row] = rows.positions[row]
            if rows.driven[row]:
                rows.pending[row] = INTERVAL
                rows.still[row] = rows.stuck[row] = 0
                rows.rest_from[row] = np.nan
            else:
                changed.append(int(rows.index[row]))

    # ---- The local problem ------------------------------------------------------------------

    def _plan(
        self,
        rows: AgentRows,
        group: NDArray[np.intp],
        cells: NDArray[np.intp],
        goal_of: NDArray[np.int64],
        candidates: NDArray[np.bool_],
    ) -> LocalPlan | Merged | None:
        """The jam's joint plan over the smallest window that has one (see the module).

        A window that overlaps a plan under way grows that plan's window instead and the jam
        joins that plan (`MERGED`).
        """
        grid, settings = self._grid, self.settings
        height, width = grid.num_of_rows, grid.num_of_columns
        grid_rows, grid_cols = cells // width, cells % width
        top, bottom = int(grid_rows[group].min()), int(grid_rows[group].max())
        left, right = int(grid_cols[group].min()), int(grid_cols[group].max())
        movable = self._movable(rows, candidates, goal_of)
        margin = settings.margin_cells
        while True:
            window = (
                max(top - margin, 0),
                min(bottom + margin, height - 1),
                max(left - margin, 0),
                min(right + margin, width - 1),
            )
            window = with_goals(window, goal_of[group], width, settings.margin_cells)
            overlapping = (other for other in self._plans if windows_overlap(window, other.window))
            busy = next(overlapping, None)
            if busy is not None:
                # The plan next door takes this jam in.
                busy.window = window_union(busy.window, window)
                busy.joining = sorted_union(busy.joining, rows.index[group], len(self._under))
                return MERGED
            r0, r1, c0, c1 = window
            inside = (grid_rows >= r0) & (grid_rows <= r1) & (grid_cols >= c0) & (grid_cols <= c1)
            members = np.flatnonzero(inside & movable)
            if len(members) > member_limit(settings, goal_of[members]):
                return None
            plan = self._solve(rows, members, inside & ~movable, cells, goal_of, window)
            whole = window == (0, height - 1, 0, width - 1)
            if plan is not None or whole or margin >= settings.margin_cells * MAX_GROWTH:
                return plan
            margin *= 2

    def _near(self, rows: AgentRows, members: NDArray[np.intp]) -> NDArray[np.bool_]:
        """Which rows come within `NEWCOMER_CELLS` cells (plus two radii) of a member."""
        reach = NEWCOMER_CELLS * self._grid.grid_cell_size + 2.0 * float(rows.radii.max())
        return near_points(rows.positions, rows.positions[members], reach)

    def _movable(
        self, rows: AgentRows, candidates: NDArray[np.bool_], goal_of: NDArray[np.int64]
    ) -> NDArray[np.bool_]:
        """Which rows a plan may move: moving to a goal, in no plan, no wider than a cell.

        Arrived agents stay where they are, obstacles on their cells: moved off their places
        they would have to arrive again, and stir up the cluster they stand in.
        """
        fits = rows.radii <= self._grid.grid_cell_size / 2.0
        movable: NDArray[np.bool_] = (
            candidates & ~self._under[rows.index] & fits & (goal_of >= 0) & (rows.state == MOVING)
        )
        return movable

    def _solve(
        self,
        rows: AgentRows,
        members: NDArray[np.intp],
        obstacles: NDArray[np.bool_],
        cells: NDArray[np.intp],
        goal_of: NDArray[np.int64],
        window: tuple[int, int, int, int],
    ) -> LocalPlan | None:
        grid = self._grid
        width = grid.num_of_columns
        r0, r1, c0, c1 = window
        walkable = np.array(grid.walkable[r0 : r1 + 1, c0 : c1 + 1])
        local_width = c1 - c0 + 1
        blocked = cells[obstacles]
        walkable[blocked // width - r0, blocked % width - c0] = False
        local = (cells[members] // width - r0) * local_width + (cells[members] % width - c0)
        local_rows, local_cols = np.divmod(np.arange(walkable.size), local_width)
        size, (x0, y0) = grid.grid_cell_size, grid.origin
        centres = np.column_stack(
            [x0 + (local_cols + c0 + 0.5) * size, y0 + (local_rows + r0 + 0.5) * size]
        )
        starts = start_cells(walkable, local, rows.positions[members], centres)
        grid_walkable, version = grid.walkable, grid.mask_version
        goals = local_goals(
            starts,
            rows.state[members] == ARRIVED,
            goal_of[members],
            members,
            walkable,
            window,
            width,
            lambda goal: self._distances.of(grid_walkable, version, goal),
        )
        if goals is None or not all(walkable.ravel()[starts]):
            return None
        problem = MapfProblem(walkable, tuple(starts), tuple(goals), name="jam")
        lag = turn_lag(float(rows.radii[members].max()) / grid.grid_cell_size)
        found = joint_paths(problem, self.settings, goal_of[members].tolist(), lag=lag)
        if not found:
            return None
        follower = follow_plan(
            found,
            goals,
            centres,
            rows.positions[members],
            rows.speeds[members],
            rows.radii[members],
            size,
            turn_lag=lag,
            open_cells=walkable,
            groups=goal_of[members].tolist(),
        )
        goal_rows, goal_cols = goal_of[members] // width, goal_of[members] % width
        settles = (goal_rows >= r0) & (goal_rows <= r1) & (goal_cols >= c0) & (goal_cols <= c1)
        return LocalPlan(rows.index[members].astype(np.int64), window, follower, settles)

    def _at_cluster(
        self, rows: AgentRows, keys: NDArray[np.int32], targets: Mapping[int, Point | None]
    ) -> NDArray[np.bool_]:
        """Which agents stand at their goal's cluster: within `CLUSTER_REACH` radii of it.

        The cluster is the arrived agents chasing the same target (its reach: the farthest of
        them from the goal, plus its radius). An agent pressing at its rim is arriving, by the
        crowd's rules (`sim.crowd.step`, `sim.crowd.lone`), not jammed.
        """
        size = int(keys.max()) + 1 if len(keys) else 0
        points = np.full((size, 2), np.nan)
        for key, where in targets.items():
            if where is not None and key < size:
                points[key] = where
        goal_points = points[keys]
        apart = np.hypot(*(rows.positions - goal_points).T)
        arrived = (rows.state == ARRIVED) & ~np.isnan(apart)
        cluster = np.zeros(size)
        np.maximum.at(cluster, keys[arrived], apart[arrived] + rows.radii[arrived])
        near: NDArray[np.bool_] = apart <= cluster[keys] + CLUSTER_REACH * rows.radii
        return near

    def _cells_of(self, positions: NDArray[np.float64]) -> NDArray[np.intp]:
        grid = self._grid
        size, (x0, y0) = grid.grid_cell_size, grid.origin
        cols = np.clip(np.floor((positions[:, 0] - x0) / size), 0, grid.num_of_columns - 1)
        rows = np.clip(np.floor((positions[:, 1] - y0) / size), 0, grid.num_of_rows - 1)
        cells: NDArray[np.intp] = (rows * grid.num_of_columns + cols).astype(np.intp)
        return cells

    def _goal_cells(
        self, keys: NDArray[np.int32], targets: Mapping[int, Point | None]
    ) -> NDArray[np.int64]:
        """Each key's goal cell (flat), -1 for a key with no target now."""
        size = int(keys.max()) + 1 if len(keys) else 0
        goals = np.full(size, -1, dtype=np.int64)
        width = self._grid.num_of_columns
        for key, where in targets.items():
            if where is not None and key < size:
                row, col = self._grid.clamped_cell(where)
                goals[key] = row * width + col
        return goals
