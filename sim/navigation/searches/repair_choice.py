"""`RepairChoice`: repair with D* Lite while that costs less than a fresh search, else search anew.

D* Lite (`IncrementalSearch`) repairs cheaply when few cells change far from its goal, but a
change near the goal re-settles much of the tree behind it, and a start that moved far (an
agent that walked on, or another agent sharing the goal) extends the tree toward it. A fresh
search of the planner's own choice (`find_path`, "auto": jump point search on uniform grids)
then costs less. Both are exact, so the choice changes the work, never the path's cost.

The rule, by counters (expansions), not by clocks, for one goal cell at a time:

1. plans toward a new goal are fresh searches: the last one's expansions, times the
   algorithm's `EXPANSION_WEIGHT`, are the fresh search's price in D* Lite expansions;
2. D* Lite builds its tree (its first search: not a repair, not compared) once the fresh
   searches toward the goal have together cost as much as a tree, and the plan after that
   repairs it. This is rent or buy: a tree is priced at this planner's last tree's
   expansions, or at the grid's walkable cells before its first (a search settles each at
   most once), so the fresh searches paid never exceed what a tree would have cost, and a
   goal planned a few times never pays for one;
3. from then on a plan repairs with D* Lite while its last repair expanded no more than the
   fresh search's price; otherwise plans are fresh searches, and after a wait of
   `PROBE_AFTER` of them D* Lite repairs once more (its kept tree catches up with every
   change since), so a goal whose repairs became cheap again goes back to them. Each repair
   dearer than the fresh price doubles the wait (up to `PROBE_MOST`); a cheaper one resets
   it: where repairs stay dear, as on the carve bench, probing costs little.

`EXPANSION_WEIGHT` was measured on the carve bench's 512x512 rooms map (30 random queries,
the C kernels): a D* Lite expansion takes 0.35 us, an A* one 0.20 us and a jump point search
one 5.9 us (each jump scans a run of cells): a jump point expansion costs 16 D* Lite ones.

>>> walkable = np.ones((8, 8), dtype=bool)
>>> planner = RepairChoice()
>>> first = planner.plan(walkable, (0, 0), (7, 7))
>>> planner.fresh_plans, planner.repairs
(1, 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import Cell
from sim.navigation.links import NavLink
from sim.navigation.pathfinder import find_path_with
from sim.navigation.query import Algorithm, PathResult, SearchSettings, resolve_auto
from sim.navigation.searches.incremental import IncrementalSearch

EXPANSION_WEIGHT: dict[Algorithm, float] = {Algorithm.JPS: 16.0, Algorithm.ASTAR: 0.6}
"""A fresh search's expansion in D* Lite expansions, by algorithm (see the module)."""

PROBE_AFTER = 8
"""Fresh plans in a row after which D* Lite repairs once more, at first."""

PROBE_MOST = 128
"""The longest run of fresh plans between two probes."""


class RepairChoice:
    """One planner that repairs with D* Lite or searches afresh, whichever costs less.

    It answers as `IncrementalSearch.plan` does (the same arguments, a path of a fresh A*'s
    cost); `last_repaired` is True only for a D* Lite repair.

    Args:
        settings: the diagonal rule and heuristic of both searches (`IncrementalSearch`
            refuses what D* Lite cannot run: a heuristic inconsistent for the rule).

    Raises:
        ValueError: (one line) for settings D* Lite cannot run.
    """

    def __init__(self, settings: SearchSettings | None = None) -> None:
        self._settings = settings or SearchSettings()
        self._search = IncrementalSearch.with_settings(self._settings)
        self._goal: Cell | None = None
        self._fresh_price = -1.0  # the last fresh search's expansions, weighted; -1: none yet
        self._repair_expanded = -1  # the last D* Lite repair's expansions; -1: none yet
        self._fresh_in_row = 0
        self._probe_after = PROBE_AFTER
        self._tree_new = False  # D* Lite built its tree on the last plan: repair it next
        self._has_tree = False  # D* Lite holds a tree for this goal
        self._rent = 0.0  # the fresh searches' prices paid toward this goal while no tree
        self._tree_price = -1.0  # the last tree's expansions; -1: walkable cells (none yet)
        self._last_repaired = False
        self.repairs = 0
        """D* Lite repairs made (a plan that reused the kept tree)."""
        self.fresh_plans = 0
        """Fresh searches made (`find_path`, the planner's own algorithm)."""
        self.tree_plans = 0
        """D* Lite plans that started its tree afresh (step 2 of the rule)."""

    @property
    def last_repaired(self) -> bool:
        """True when the last plan was a D* Lite repair."""
        return self._last_repaired

    @property
    def fresh_price(self) -> float:
        """The last fresh search's expansions times its `EXPANSION_WEIGHT`; -1 before one."""
        return self._fresh_price

    @property
    def tree_price(self) -> float:
        """What a D* Lite tree is priced at (step 2 of the rule); -1 before the first plan."""
        return self._tree_price

    @property
    def last_fresh(self) -> bool:
        """True when the last plan was a fresh search."""
        return self._fresh_in_row > 0

    def plan(
        self,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        *,
        costs: NDArray[Any] | None = None,
        links: Sequence[NavLink] | None = None,
    ) -> PathResult:
        """Plan from `start` to `goal` by the rule of the module; see `IncrementalSearch.plan`."""
        if goal != self._goal:
            self._goal, self._fresh_price, self._repair_expanded = goal, -1.0, -1
            self._fresh_in_row, self._probe_after, self._tree_new = 0, PROBE_AFTER, False
            self._has_tree, self._rent = False, 0.0
        if self._wants_fresh(walkable):
            return self._fresh(walkable, start, goal, costs, links)
        result = self._search.plan(walkable, start, goal, costs=costs, links=links)
        self._last_repaired, self._fresh_in_row = self._search.last_repaired, 0
        self._tree_new = not self._last_repaired
        if self._last_repaired:
            self.repairs += 1
            self._repair_expanded = result.expanded
            dear = result.expanded > self._fresh_price
            self._probe_after = min(2 * self._probe_after, PROBE_MOST) if dear else PROBE_AFTER
        else:
            self.tree_plans += 1
            self._has_tree, self._tree_price = True, float(result.expanded)
        return result

    def _wants_fresh(self, walkable: NDArray[np.bool_]) -> bool:
        if not self._has_tree:
            if self._tree_price < 0.0:
                self._tree_price = float(np.count_nonzero(walkable))
            return self._rent < self._tree_price
        if self._tree_new or self._fresh_in_row >= self._probe_after:
            return False  # the repair of a new tree, or a probe (or the tree's first search)
        return self._repair_expanded > self._fresh_price

    def _fresh(
        self,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        costs: NDArray[Any] | None,
        links: Sequence[NavLink] | None,
    ) -> PathResult:
        settings = SearchSettings(
            rule=self._settings.rule, heuristic=self._settings.heuristic, costs=costs
        )
        result = find_path_with(walkable, start, goal, settings, links)
        algorithm = resolve_auto(
            walkable, costs, diagonal=settings.rule, heuristic=settings.heuristic, weight=1.0
        )
        weight = EXPANSION_WEIGHT[algorithm] if not links else EXPANSION_WEIGHT[Algorithm.ASTAR]
        if result.found:
            self._fresh_price = result.expanded * weight
        if not self._has_tree:
            self._rent += result.expanded * weight
        self._last_repaired = False
        self._fresh_in_row += 1
        self.fresh_plans += 1
        return result
