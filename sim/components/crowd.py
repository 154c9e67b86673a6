"""CrowdField: many agents chasing one goal follow one distance field instead of N A* searches.

Once `threshold` agents or more share a goal cell, one reverse Dijkstra from that goal
(`sim.navigation.field`) gives every cell its cost to the goal; each agent walks that field
downhill from where it stands, and the cells are smoothed and turned into waypoints exactly as
`GridManager.plan` does with an A* path. The field's paths are optimal under the same move rules
(same cost as A*'s; on equal-cost ties they may take another of the equally short routes), so the
agents behave as before, for one search per goal instead of one per agent.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from dataclasses import dataclass, field

from sim.components.grid_manager import (
    NO_WALKABLE_TEXT,
    GridManager,
    PlanOutcome,
    Point,
    endpoint_notes,
)
from sim.engine import Component
from sim.navigation.field import descend_on_graph, field_on_graph, path_on_graph
from sim.navigation.line_of_sight import segment_is_clear
from sim.navigation.moves import MoveGraph

CROWD_THRESHOLD = 8
"""Agents sharing a goal cell from which they follow one field (below it each runs A*)."""

Cell = tuple[int, int]


@dataclass(slots=True)
class _GoalField:
    """One goal's field, the grid version it was computed on, and its smoothed paths so far."""

    version: int
    computed_at_s: float
    costs: list[float] = field(repr=False)
    used_at_s: float = 0.0
    # Smoothed plans by (start cell, goal point, smoothing): agents in one cell share them.
    plans: dict[tuple[Cell, Point, bool], PlanOutcome] = field(default_factory=dict, repr=False)
    # The string-pulling anchor after each flat cell, shared by every path through that cell.
    anchors: dict[int, int] = field(default_factory=dict, repr=False)


class CrowdField(Component):
    """One distance field per goal cell, shared by every agent chasing that goal (one per scene).

    A goal's field is recomputed when the grid changes (`GridManager.version`, which also counts
    connectivity changes) and otherwise at most once every `replan_interval_s`; a field no agent
    asked for during two intervals is dropped. Agents report their goal with `track` and ask
    `active_for` whether to plan with `waypoints_from` instead of `GridManager.plan`.

    Attributes:
        threshold: agents sharing a goal cell from which the crowd is active for it.
        fields_computed: how many fields were computed so far (for tests and the bench).
        planning_ms: wall-clock milliseconds spent in fields and waypoints so far.
    """

    def __init__(
        self,
        grid: GridManager,
        *,
        replan_interval_s: float = 1.0,
        threshold: int = CROWD_THRESHOLD,
    ) -> None:
        super().__init__()
        if threshold < 1:
            raise ValueError(f"threshold must be >= 1, got {threshold!r}")
        if not (math.isfinite(replan_interval_s) and replan_interval_s > 0.0):
            raise ValueError(f"replan_interval_s must be > 0, got {replan_interval_s!r}")
        self._grid = grid
        self.threshold = threshold
        self.replan_interval_s = replan_interval_s
        self.fields_computed = 0
        self.planning_ms = 0.0
        self._time_s = 0.0
        self._goal_of: dict[int, Cell | None] = {}
        self._sharing: Counter[Cell | None] = Counter()
        self._graph: tuple[int, MoveGraph] | None = None
        self._fields: dict[Cell, _GoalField] = {}

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

    def update(self, dt: float) -> None:
        """Advance the crowd's clock and drop the fields nobody asked for lately."""
        self._time_s += dt
        stale_before = self._time_s - 2.0 * self.replan_interval_s
        for goal in [g for g, f in self._fields.items() if f.used_at_s < stale_before]:
            del self._fields[goal]

    def waypoints_from(self, start: Point, goal: Point, *, smoothing: bool = True) -> PlanOutcome:
        """Plan from world point `start` to world point `goal` along the goal's field.

        The same contract as `GridManager.plan`: points off the grid use the nearest border
        cell, a start or goal inside an obstacle the nearest walkable cell (and `reason` says
        so), "no path" is ``found=False``; the waypoints are made the same way. `expanded` is 0
        (the agent searched nothing) and `plan_ms` includes the field when this call computed
        it.
        """
        began = time.perf_counter()
        try:
            return self._waypoints_from(start, goal, smoothing=smoothing, began=began)
        finally:
            self.planning_ms += (time.perf_counter() - began) * 1000.0

    def _waypoints_from(
        self, start: Point, goal: Point, *, smoothing: bool, began: float
    ) -> PlanOutcome:
        grid = self._grid
        ends = grid.grid.endpoints(start, goal)
        if ends.start is None or ends.goal is None:
            return PlanOutcome(False, NO_WALKABLE_TEXT)
        start_cell, goal_cell = ends.start, ends.goal
        notes = endpoint_notes(ends)
        goal_field = self._field_for(goal_cell)
        key = (start_cell, goal, smoothing)
        cached = goal_field.plans.get(key)
        if cached is None:
            cached = self._plan_along(goal_field, start_cell, goal, smoothing=smoothing)
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
        self, goal_field: _GoalField, start_cell: Cell, goal: Point, *, smoothing: bool
    ) -> PlanOutcome:
        grid, graph = self._grid, self._move_graph()
        width = graph.width
        flat = path_on_graph(graph, goal_field.costs, start_cell[0] * width + start_cell[1])
        if not flat:
            return PlanOutcome(False, "End cannot be reached: walled in")
        cells = tuple(divmod(cell, width) for cell in flat)
        size = grid.grid_cell_size
        kept = (
            [divmod(cell, width) for cell in self._smoothed(goal_field, graph, flat[0])]
            if smoothing
            else list(cells)
        )
        return PlanOutcome(
            True,
            "",
            cells,
            self._waypoints(kept, cells[-1], goal),
            cost=goal_field.costs[flat[0]] * size,
            length=sum(math.dist(a, b) for a, b in itertools.pairwise(cells)) * size,
        )

    def _smoothed(self, goal_field: _GoalField, graph: MoveGraph, start: int) -> list[int]:
        """`smooth_path` of the field's path from flat `start`, anchor by anchor, memoized.

        The field's path from a cell is always the same, so greedy string pulling from an
        anchor always picks the same next anchor: computed once per field, it serves every
        agent whose path passes there. The result equals `smooth_path` over the whole path.
        """
        anchors, costs = goal_field.anchors, goal_field.costs
        kept = [start]
        while costs[kept[-1]] > 0.0:
            anchor = kept[-1]
            following = anchors.get(anchor)
            if following is None:
                following = self._next_anchor(graph, costs, anchor)
                anchors[anchor] = following
            kept.append(following)
        return kept

    def _next_anchor(self, graph: MoveGraph, costs: list[float], anchor: int) -> int:
        """The farthest cell along the field's path from `anchor` seen before the first hidden."""
        walkable, width = self._grid.walkable, graph.width
        cell_costs = self._grid.costs  # terrain: skip only over cells costing 1, as smooth_path
        row, col = divmod(anchor, width)
        centre = (col + 0.5, row + 0.5)
        best = descend_on_graph(graph, costs, anchor)
        if best is None:  # only the goal has no step, and smoothing stops before it
            raise RuntimeError(f"no step down the field from cell {anchor}")
        candidate = descend_on_graph(graph, costs, best)
        while candidate is not None:
            row, col = divmod(candidate, width)
            if not segment_is_clear(walkable, centre, (col + 0.5, row + 0.5), costs=cell_costs):
                break
            best = candidate
            candidate = descend_on_graph(graph, costs, candidate)
        return best

    def _waypoints(self, kept: list[Cell], last: Cell, goal: Point) -> tuple[Point, ...]:
        """World waypoints after the start, by `GridManager.plan`'s rule, ending on `goal`."""
        grid = self._grid
        points = [grid.cell_to_world(cell) for cell in kept[1:]]
        if grid.world_to_cell(*goal) == last:
            before = points[-2] if len(points) >= 2 else grid.cell_to_world(kept[0])
            if points and grid.move_is_clear(before, goal):
                points[-1] = goal
            else:
                points.append(goal)
        return tuple(points)

    def _move_graph(self) -> MoveGraph:
        version = self._grid.version
        if self._graph is None or self._graph[0] != version:
            graph = MoveGraph.build(
                self._grid.walkable.copy(), diagonal=self._grid.diagonal, costs=self._grid.costs
            )
            self._graph = (version, graph)
        return self._graph[1]

    def _field_for(self, goal_cell: Cell) -> _GoalField:
        version = self._grid.version
        goal_field = self._fields.get(goal_cell)
        expired = (
            goal_field is None
            or goal_field.version != version
            or self._time_s - goal_field.computed_at_s >= self.replan_interval_s
        )
        if goal_field is None or expired:
            graph = self._move_graph()
            costs = field_on_graph(graph, goal_cell[0] * graph.width + goal_cell[1])
            goal_field = _GoalField(version, self._time_s, costs)
            self._fields[goal_cell] = goal_field
            self.fields_computed += 1
        goal_field.used_at_s = self._time_s
        return goal_field
