"""CrowdField: many agents chasing one goal follow one distance field instead of N A* searches.

Once `threshold` agents or more share a goal cell, one reverse Dijkstra from that goal
(`sim.navigation.field`) gives every cell its cost to the goal; each agent walks that field
downhill from where it stands, and the cells are smoothed and turned into waypoints as
`GridManager.plan` does with an A* path. The field's paths are optimal under the same move rules
(same cost as A*'s; on equal-cost ties they may take another of the equally short routes), so the
agents behave as before, for one search per goal instead of one per agent.

Ten thousand agents on a 2000 x 2000 grid (the scene format's limits) must not stall a frame,
so the work is bounded three ways. A field's next cells, steps and lengths are tables shared by
every agent (`sim.crowd.field_routes`), so a plan walks no path cell by cell. Smoothing
looks at most `SMOOTHING_LOOKAHEAD` cells ahead of an anchor; where it could see farther it
stops on the path's next cell whose steps to the goal are a multiple of the lookahead, so the
anchors of agents on the same path fall on the same cells and are computed once. And at most
`plans_per_frame` agents plan in one frame (`claim_plan`), the others wait their turn in order.
"""

from __future__ import annotations

import math
import time
from collections import Counter, deque
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from sim.components.grid_manager import GridManager, PlanOutcome, Point
from sim.components.plan_text import NO_WALKABLE_TEXT, endpoint_notes
from sim.crowd.field_routes import NO_CELL, DescentTables, FieldRoute
from sim.crowd.links.hops import Hop, field_hops
from sim.engine import Component
from sim.engine.replan_queue import ReplanQueue
from sim.navigation.clearance import clearance
from sim.navigation.field import field_on_graph
from sim.navigation.line_of_sight import segment_is_clear
from sim.navigation.link_graph import LinkGraph
from sim.navigation.links import NavLink
from sim.navigation.moves import MoveGraph

CROWD_THRESHOLD = 8
"""Agents sharing a goal cell from which they follow one field (below it each runs A*)."""

SMOOTHING_LOOKAHEAD = 32
"""Cells along the path an anchor looks ahead for the next (each look is a line of sight)."""

PLANS_PER_FRAME = 64
"""Agents that may plan in one frame; the rest wait their turn (`CrowdField.claim_plan`)."""

HALF_DIAGONAL = math.sqrt(2.0) / 2.0  # the farthest a point of a cell lies from its centre

Cell = tuple[int, int]


@dataclass(slots=True)
class GoalField:
    """One goal's field, the grid version it was computed on, and its smoothed paths so far.

    `goal` is the goal's flat cell, `costs` the field (flat, inf where the goal cannot be
    reached), `tables` its descent tables, `hops` the cells whose way down is one of the grid's
    `links` (`sim.crowd.links.hops`); all read-only for users of `CrowdField.goal_field`.
    """

    version: int
    goal: int
    costs: list[float] = field(repr=False)
    tables: DescentTables = field(repr=False)
    links: tuple[NavLink, ...] = field(default=(), repr=False)
    hops: dict[int, Hop] = field(default_factory=dict, repr=False)
    walkable: object = field(default=None, repr=False)  # the mask it was computed on
    used_at_s: float = 0.0
    # Smoothed plans by (start cell, goal point, smoothing, radius): agents in one cell share
    # them. Forgotten every replan interval, so they do not pile up as agents move on.
    plans: dict[tuple[Cell, Point, bool, float], PlanOutcome] = field(
        default_factory=dict, repr=False
    )
    plans_since_s: float = 0.0
    # Per agent radius, the string-pulling anchor after each flat cell, shared by every path
    # through that cell.
    anchors: dict[float, dict[int, int]] = field(default_factory=dict, repr=False)


class CrowdField(Component):
    """One distance field per goal cell, shared by every agent chasing that goal (one per scene).

    A goal's field is computed again only when the grid changes (`GridManager.version`, which
    also counts connectivity and cost changes): the same grid and goal give the same field, and
    keeping it keeps what was learnt about its paths. A field no agent asked for during two
    `replan_interval_s` is dropped. Agents report their goal with `track` and ask `active_for`
    whether to plan with `waypoints_from` instead of `GridManager.plan`; every agent given the
    crowd asks `claim_plan` before it plans at all.

    Attributes:
        threshold: agents sharing a goal cell from which the crowd is active for it.
        plans_per_frame: agents that may plan in one frame.
        budget: with a `replan_budget_ms`, the time budget every plan must also fit (its clock
            the planning time so far), else None.
        fields_computed: how many fields were computed so far (for tests and the bench).
        planning_ms: wall-clock milliseconds spent in fields and waypoints so far.
    """

    def __init__(
        self,
        grid: GridManager,
        *,
        replan_interval_s: float = 1.0,
        threshold: int = CROWD_THRESHOLD,
        plans_per_frame: int = PLANS_PER_FRAME,
        replan_budget_ms: float | None = None,
    ) -> None:
        super().__init__()
        if threshold < 1:
            raise ValueError(f"threshold must be >= 1, got {threshold!r}")
        if plans_per_frame < 1:
            raise ValueError(f"plans_per_frame must be >= 1, got {plans_per_frame!r}")
        if not (math.isfinite(replan_interval_s) and replan_interval_s > 0.0):
            raise ValueError(f"replan_interval_s must be > 0, got {replan_interval_s!r}")
        self._grid = grid
        self.threshold = threshold
        self.plans_per_frame = plans_per_frame
        self.replan_interval_s = replan_interval_s
        self.fields_computed = 0
        self.planning_ms = 0.0
        self._time_s = 0.0
        self._goal_of: dict[int, Cell | None] = {}
        self._sharing: Counter[Cell | None] = Counter()
        # Per set of areas (None: all), the move graph of a grid version and its cells.
        self._graphs: dict[frozenset[str] | None, tuple[int, object, MoveGraph]] = {}
        self._fields: dict[tuple[Cell, frozenset[str] | None], GoalField] = {}
        # The clearance map of a walkable mask (its version), and per radius (cells) the
        # cells whose whole square keeps that far from any wall.
        self._clearance: tuple[int, NDArray[np.float64]] | None = None
        self._roomy: dict[float, NDArray[np.bool_]] = {}
        # Members refused a plan, oldest first, and those whose turn is this frame.
        self._waiting: deque[int] = deque()
        self._queued: set[int] = set()
        self._admitted: set[int] = set()
        self._open_slots = plans_per_frame
        self.budget: ReplanQueue[int] | None = None
        if replan_budget_ms is not None:
            self.budget = ReplanQueue(replan_budget_ms, clock=self._work_s)

    def track(self, member: object, goal: Cell | None) -> None:
        """Record that `member` (an agent) now chases the goal cell `goal` (None: nothing)."""
        key = id(member)
        previous = self._goal_of.get(key, None)
        if key in self._goal_of and previous == goal:
            return
        if key in self._goal_of:
            self._sharing[previous] -= 1
        self._goal_of[key] = goal
        self._sharing[goal] += 1

    def leave(self, member: object) -> None:
        """Forget `member` (an agent that was destroyed)."""
        key = id(member)
        if key in self._goal_of:
            self._sharing[self._goal_of.pop(key)] -= 1
        self._queued.discard(key)
        self._admitted.discard(key)
        if self.budget is not None:
            self.budget.cancel(key)

    def sharing(self, goal: Cell | None) -> int:
        """How many tracked agents chase the goal cell `goal`."""
        return self._sharing[goal] if goal is not None else 0

    def active_for(self, goal: Cell | None) -> bool:
        """Whether agents chasing the goal cell `goal` should follow the field."""
        return goal is not None and self.sharing(goal) >= self.threshold

    @property
    def active(self) -> bool:
        """Whether the crowd is active for any goal."""
        return any(self.active_for(goal) for goal in self._sharing)

    @property
    def active_goals(self) -> int:
        """How many goal cells the crowd is active for: one shared field each."""
        return sum(1 for goal in self._sharing if self.active_for(goal))

    def update(self, dt: float) -> None:
        """Advance the crowd's clock, drop the fields nobody asked for lately, open the slots.

        Runs before the agents' updates: this frame's plans go first to those waiting longest.
        """
        self._time_s += dt
        stale_before = self._time_s - 2.0 * self.replan_interval_s
        for goal in [g for g, f in self._fields.items() if f.used_at_s < stale_before]:
            del self._fields[goal]
        self._admitted.clear()  # a turn not taken (the agent stopped needing a plan) lapses
        while self._waiting and len(self._admitted) < self.plans_per_frame:
            key = self._waiting.popleft()
            if key in self._queued:  # not gone meanwhile
                self._queued.discard(key)
                self._admitted.add(key)
        self._open_slots = self.plans_per_frame - len(self._admitted)
        if self.budget is not None:
            self.budget.open_frame()

    def _work_s(self) -> float:
        """Seconds spent planning so far, the grid's and the fields': the budget's clock."""
        return (self._grid.planning_ms + self.planning_ms) / 1000.0

    def claim_plan(self, member: object, distance: float = 0.0) -> bool:
        """Whether `member` (an agent) may plan this frame; if not, it is queued for a later one.

        Up to `plans_per_frame` agents a frame may: first those refused earlier, in the order
        they were refused, then any others while slots are left. A refused agent keeps what it
        had (its waypoints, or standing still) and asks again next frame. With a time `budget`
        the plan must fit it too (`ReplanQueue.claim`: the waiting go first, nearest first by
        `distance`, the agent's straight-line distance to its goal).
        """
        key = id(member)
        if key in self._admitted:
            self._admitted.discard(key)
            return self.budget is None or self.budget.claim(key, distance)
        if not self._waiting and self._open_slots > 0:
            self._open_slots -= 1
            return self.budget is None or self.budget.claim(key, distance)
        if key not in self._queued:
            self._queued.add(key)
            self._waiting.append(key)
        return False

    def goal_field(self, goal_cell: Cell, areas: frozenset[str] | None = None) -> GoalField:
        """The field toward the walkable cell `goal_cell`: the same object while the grid holds.

        Computed again (a new object) once the grid's `version` changed; asking keeps it from
        being dropped as unused. With `areas` the field keeps to their cells
        (`GridManager.allowed_cells`): one per goal and set of areas.
        """
        began = time.perf_counter()
        try:
            return self._field_for(goal_cell, areas)
        finally:
            self.planning_ms += (time.perf_counter() - began) * 1000.0

    def waypoints_from(
        self, start: Point, goal: Point, *, smoothing: bool = True, radius: float = 0.0
    ) -> PlanOutcome:
        """Plan from world point `start` to world point `goal` along the goal's field.

        The same contract as `GridManager.plan`: points off the grid use the nearest border
        cell, a start or goal inside an obstacle the nearest walkable cell (and `reason` says
        so), "no path" is ``found=False``; the waypoints are made the same way. `expanded` is 0
        (the agent searched nothing) and `plan_ms` includes the field when this call computed
        it. An agent of `radius` world units, at most half a cell (it then fits every walkable
        cell), gets waypoints whose legs keep its swept disc clear of walls.

        Raises:
            ValueError: for a radius that is not a number from 0 to half a cell.
        """
        if not 0.0 <= radius <= self._grid.grid_cell_size / 2.0:
            raise ValueError(f"radius must be 0 to half a cell, got {radius!r}")
        began = time.perf_counter()
        try:
            return self._waypoints_from(
                start, goal, smoothing=smoothing, radius=radius, began=began
            )
        finally:
            self.planning_ms += (time.perf_counter() - began) * 1000.0

    def _waypoints_from(
        self, start: Point, goal: Point, *, smoothing: bool, radius: float, began: float
    ) -> PlanOutcome:
        grid = self._grid
        ends = grid.grid.endpoints(start, goal)
        if ends.start is None or ends.goal is None:
            return PlanOutcome(False, NO_WALKABLE_TEXT)
        start_cell, goal_cell = ends.start, ends.goal
        notes = endpoint_notes(ends)
        goal_field = self._field_for(goal_cell)
        key = (start_cell, goal, smoothing, radius)
        cached = goal_field.plans.get(key)
        if cached is None:
            cached = self._plan_along(
                goal_field, start_cell, goal, smoothing=smoothing, radius=radius
            )
            goal_field.plans[key] = cached
        plan_ms = (time.perf_counter() - began) * 1000.0
        return PlanOutcome(
            cached.found,
            "; ".join(notes) if cached.found else cached.reason,
            cached.cells,
            cached.waypoints,
            cost=cached.cost,
            length=cached.length,
            plan_ms=plan_ms,
        )

    def _plan_along(
        self,
        goal_field: GoalField,
        start_cell: Cell,
        goal: Point,
        *,
        smoothing: bool,
        radius: float,
    ) -> PlanOutcome:
        tables = goal_field.tables
        start = start_cell[0] * tables.width + start_cell[1]
        if goal_field.costs[start] == math.inf:
            return PlanOutcome(False, "End cannot be reached: walled in")
        cells = FieldRoute(tables, start, goal_field.goal)
        width = tables.width
        kept = (
            [divmod(cell, width) for cell in self._smoothed(goal_field, start, radius)]
            if smoothing
            else list(cells)
        )
        size = self._grid.grid_cell_size
        return PlanOutcome(
            True,
            "",
            cells,
            self._waypoints(kept, cells[-1], goal, radius),
            cost=goal_field.costs[start] * size,
            length=tables.length(start) * size,
        )

    def _smoothed(self, goal_field: GoalField, start: int, radius: float) -> list[int]:
        """String pulling along the field's path from flat `start`, anchor by anchor, memoized.

        The field's path from a cell is always the same, so greedy string pulling from an
        anchor always picks the same next anchor: computed once per field, it serves every
        agent whose path passes there. Where no anchor sees `SMOOTHING_LOOKAHEAD` cells ahead
        the result equals `smooth_path` over the whole path.
        """
        anchors, costs = goal_field.anchors.setdefault(radius, {}), goal_field.costs
        kept = [start]
        while costs[kept[-1]] > 0.0:
            anchor = kept[-1]
            following = anchors.get(anchor)
            if following is None:
                following = self._next_anchor(goal_field, anchor, radius)
                anchors[anchor] = following
            kept.append(following)
        return kept

    def _next_anchor(self, goal_field: GoalField, anchor: int, radius: float) -> int:
        """The farthest cell along the field's path from `anchor` seen before the first hidden.

        It looks `SMOOTHING_LOOKAHEAD` cells ahead at most (each look walks a line of sight, so
        an unbounded look costs the square of an open stretch). When all of them are seen it
        takes the one whose steps to the goal are a multiple of the lookahead: every path
        through that stretch then shares the anchors that follow.
        """
        tables = goal_field.tables
        following, width = tables.following, tables.width
        radius_cells = radius / self._grid.grid_cell_size
        row, col = divmod(anchor, width)
        centre = (col + 0.5, row + 0.5)
        best = following[anchor]
        if best == NO_CELL:  # only the goal has no step, and smoothing stops before it
            raise RuntimeError(f"no step down the field from cell {anchor}")
        candidate = following[best]
        for _ in range(SMOOTHING_LOOKAHEAD - 1):
            if candidate == NO_CELL:
                return best
            row, col = divmod(candidate, width)
            if not self._sees(centre, (col + 0.5, row + 0.5), radius_cells):
                return best
            best = candidate
            candidate = following[candidate]
        if candidate == NO_CELL:
            return best
        steps = tables.steps(anchor)
        return tables.cell_at(
            anchor, steps - (steps - 1) // SMOOTHING_LOOKAHEAD * SMOOTHING_LOOKAHEAD
        )

    def _sees(self, start: Point, end: Point, radius: float) -> bool:
        """`segment_is_clear` from `start` to `end` (cell space) for a disc of `radius` cells.

        Terrain counts as in `smooth_path`: only cells costing 1 are skipped over. For a disc
        a cheap sufficient test goes first: a point of a cell lies within half a diagonal of
        its centre, so a line touching only cells whose centres keep `radius` plus that from
        every wall keeps the disc clear. The exact test of the swept disc is ten times slower.
        """
        walkable, costs = self._grid.walkable, self._grid.costs
        if radius > 0.0 and segment_is_clear(self._roomy_cells(radius), start, end, costs=costs):
            return True
        return segment_is_clear(walkable, start, end, costs=costs, radius=radius)

    def _roomy_cells(self, radius: float) -> NDArray[np.bool_]:
        """The cells whose whole square keeps `radius` cells from every wall, for this mask."""
        version = self._grid.mask_version
        if self._clearance is None or self._clearance[0] != version:
            self._clearance = (version, clearance(self._grid.walkable))
            self._roomy.clear()
        mask = self._roomy.get(radius)
        if mask is None:
            # A hair of margin: the map and the bound are each rounded once.
            mask = self._clearance[1] >= radius + HALF_DIAGONAL + 1e-9
            self._roomy[radius] = mask
        return mask

    def _waypoints(
        self, kept: list[Cell], last: Cell, goal: Point, radius: float
    ) -> tuple[Point, ...]:
        """World waypoints after the start, by `GridManager.plan`'s rule, ending on `goal`."""
        grid = self._grid
        points = [grid.cell_to_world(cell) for cell in kept[1:]]
        if grid.world_to_cell(*goal) == last:
            before = points[-2] if len(points) >= 2 else grid.cell_to_world(kept[0])
            if points and grid.move_is_clear(before, goal, radius=radius):
                points[-1] = goal
            else:
                points.append(goal)
        return tuple(points)

    def _move_graph(self, areas: frozenset[str] | None) -> MoveGraph:
        grid = self._grid
        version, allowed = grid.version, grid.allowed_cells(areas)
        known = self._graphs.get(areas)
        if known is None or known[0] != version or known[1] is not allowed:
            walkable = grid.walkable.copy() if allowed is None else grid.walkable & allowed
            graph = MoveGraph.build(walkable, diagonal=grid.rule, costs=grid.costs)
            self._graphs[areas] = known = (version, allowed, graph)
        return known[2]

    def _field_for(self, goal_cell: Cell, areas: frozenset[str] | None = None) -> GoalField:
        version, links = self._grid.version, self._grid.links
        graph = self._move_graph(areas)
        goal_field = self._fields.get((goal_cell, areas))
        if (
            goal_field is None
            or goal_field.version != version
            or goal_field.links != links
            or goal_field.walkable is not graph.walkable
        ):
            goal = goal_cell[0] * graph.width + goal_cell[1]
            linked = LinkGraph.build(links, graph.walkable)
            costs = field_on_graph(graph, goal, links=linked)
            hops = field_hops(graph, costs, linked)
            tables = DescentTables(graph, costs, {start: hop.end for start, hop in hops.items()})
            goal_field = GoalField(version, goal, costs, tables, links, hops, graph.walkable)
            goal_field.plans_since_s = self._time_s
            self._fields[goal_cell, areas] = goal_field
            self.fields_computed += 1
        elif self._time_s - goal_field.plans_since_s >= self.replan_interval_s:
            goal_field.plans.clear()
            goal_field.plans_since_s = self._time_s
        goal_field.used_at_s = self._time_s
        return goal_field
