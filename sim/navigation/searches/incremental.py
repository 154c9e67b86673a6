"""`IncrementalSearch`: one agent's planner that repairs its last search instead of starting over.

It runs D* Lite (Koenig & Likhachev 2002): the Python reference in
`sim.navigation.searches.dstar_lite` or the C kernel `sim.navigation.searches._incremental`, which
give identical results (cells, cost and expansion count, bit for bit). Each `IncrementalSearch.plan`
compares the grid it is given with its own snapshot of the previous call's grid; the cells that
differ (walkability toggled, or the cost of a walkable cell changed) are the changes it repairs, and
the start may move freely. The kept state is dropped, and the search starts over, on the first call,
for a new goal cell, a grid of another shape, or a new heuristic scale
(`sim.navigation.grid.heuristic_scale`: the smallest walkable cost changed below 1), since every
kept key was computed with the old one.

Every path it returns costs what a fresh A* (`sim.navigation.find_path`) returns on the same
grid: D* Lite is exact with a consistent heuristic, so the heuristics that are not consistent
for the connectivity (manhattan on an 8-connected grid) are refused; callers plan with
`find_path` then.

>>> from sim.navigation import find_path
>>> walkable = np.ones((5, 5), dtype=bool)
>>> planner = IncrementalSearch()
>>> first = planner.plan(walkable, (0, 0), (4, 4))
>>> walkable[2, 2] = False
>>> second = planner.plan(walkable, (1, 1), (4, 4))  # the agent moved, a cell was blocked
>>> planner.last_repaired, planner.last_changed_cells, second.cost == find_path(
...     walkable, (1, 1), (4, 4)).cost
(True, 1, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule
from sim.navigation.grid import Cell
from sim.navigation.heuristics import Heuristic
from sim.navigation.link_graph import LinkGraph
from sim.navigation.links import NavLink
from sim.navigation.query import (
    Implementation,
    PathResult,
    Query,
    Reason,
    SearchSettings,
    reason_before_search,
)
from sim.navigation.regions import cache as region_cache
from sim.navigation.searches.dstar_lite import DStarLite, PlanOutcome

INCREMENTAL_AVAILABLE: bool
"""Whether the compiled extension imported; "auto" plans in C when it is True.

No warning when it did not: this module is imported with the package, and a failed build of
the optional extensions is already announced once by `sim.navigation.searches.kernel`.
"""
try:
    from sim.navigation.searches import _incremental

    INCREMENTAL_AVAILABLE = True
except ImportError:  # pragma: no cover - depends on the build
    INCREMENTAL_AVAILABLE = False

MAX_C_CELLS = 2**31 - 1
"""The most cells the C kernel takes (it names cells with 32-bit ints)."""


class _Engine(Protocol):
    """What both implementations offer: `DStarLite.plan`."""

    def plan(
        self,
        walkable: NDArray[np.bool_],
        costs: NDArray[np.float64] | None,
        start: int,
        goal: int,
        h_factor: float,
        /,
        *,
        fresh: bool,
    ) -> PlanOutcome: ...


class IncrementalSearch:
    """One agent's incremental planner: state kept while the goal cell stays the same.

    Args:
        diagonal: allow the 4 diagonal moves (never cutting a corner), as `find_path`: True,
            False, "never" or "no-corner-cutting" (D* Lite knows no rule that cuts corners).
        heuristic: octile, euclidean, chebyshev or zero; manhattan only when 4-connected.
        implementation: "auto" (the C kernel when built, else Python), "python" or "c".

    Raises:
        ValueError: (one line) for an unknown heuristic, implementation or diagonal rule (or
            one that cuts corners), a heuristic that
            is not consistent for the connectivity (manhattan on an 8-connected grid), or "c"
            when the kernel is not built.

    >>> IncrementalSearch(heuristic="manhattan")
    Traceback (most recent call last):
    ...
    ValueError: heuristic 'manhattan' is not consistent on an 8-connected grid; incremental \
search needs octile, euclidean, chebyshev or zero there
    """

    def __init__(
        self,
        *,
        diagonal: bool | str = True,
        heuristic: str = "octile",
        implementation: str = "auto",
    ) -> None:
        settings = SearchSettings.parse(
            diagonal=diagonal, heuristic=heuristic, implementation=implementation
        )
        self._begin(settings)

    @classmethod
    def with_settings(cls, settings: SearchSettings) -> IncrementalSearch:
        """A planner of `settings`' rule, heuristic and implementation (the rest is not read).

        >>> IncrementalSearch.with_settings(SearchSettings()).plan(
        ...     np.ones((2, 2), dtype=bool), (0, 0), (1, 1)).cost == 2 ** 0.5
        True
        """
        planner = cls.__new__(cls)
        planner._begin(settings)
        return planner

    def _begin(self, settings: SearchSettings) -> None:
        rule, chosen = settings.rule, settings.heuristic
        if rule not in (DiagonalRule.NEVER, DiagonalRule.NO_CORNER_CUTTING):
            raise ValueError(
                "incremental search knows the never and no-corner-cutting rules only, "
                f"got {rule.value!r}"
            )
        self._rule = rule
        if not chosen.admissible(rule):
            raise ValueError(
                f"heuristic {chosen.value!r} is not consistent on an 8-connected grid; "
                "incremental search needs octile, euclidean, chebyshev or zero there"
            )
        implementation = settings.implementation
        if implementation is Implementation.C and not INCREMENTAL_AVAILABLE:
            raise ValueError("implementation='c' but the compiled incremental kernel is not built")
        self._heuristic = chosen
        self._implementation = implementation
        self._engine: _Engine | None = None
        self._engine_links: LinkGraph | None = None
        self._shape: tuple[int, int] | None = None
        self._goal = -1
        self._scale = 0.0
        self._last_repaired = False
        self._last_changed_cells = 0

    @property
    def last_repaired(self) -> bool:
        """True when the last plan repaired kept state; False when it started fresh."""
        return self._last_repaired

    @property
    def last_changed_cells(self) -> int:
        """How many cells the last plan found changed since the previous plan's grid.

        0 on the first plan and when a plan ended before searching (a blocked start or goal, a
        goal outside the grid, a goal proven out of reach: such a call keeps the previous grid
        as the one to compare with); every cell of the grid when its shape changed.
        """
        return self._last_changed_cells

    @property
    def implementation(self) -> str:
        """Which implementation plans: "c" or "python" ("auto" says which it chose)."""
        return "c" if self._uses_c() else "python"

    def reset(self) -> None:
        """Forget everything; the next plan starts fresh."""
        self._engine = None
        self._shape = None
        self._goal = -1
        self._scale = 0.0

    def plan(
        self,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        *,
        costs: NDArray[Any] | None = None,
        links: Sequence[NavLink] | None = None,
    ) -> PathResult:
        """Plan from `start` to `goal` (``(row, col)``) on the grid as it is now.

        Takes the arguments of `sim.navigation.find_path` (walkable mask, cells, optional
        per-cell costs from 0.25 to 100) and answers as it does: a `PathResult` whose cost
        equals a fresh A*'s, summed forward along the path as A* sums it; no path is
        ``found=False`` with the same reason (goal outside the grid, start blocked, goal
        blocked, unreachable). ``expanded`` counts the cells expanded by this call only; a
        goal in another region than the start, sealed off (`sim.navigation.regions.cache`, the
        labels `find_path` keeps for the same array), is unreachable at once, expanding none.

        With `links` (`sim.navigation.links.NavLink`, as `find_path` takes them) each link is
        an edge of the search (`sim.navigation.searches.dstar_lite`), in C and Python alike;
        other links than the last plan's start it over.

        Raises:
            ValueError: for the arguments `find_path` refuses, in its words, or a bad link.
        """
        settings = SearchSettings(rule=self._rule, heuristic=self._heuristic, costs=costs)
        query = Query.check(walkable, start, goal, settings)
        linked = None if not links else LinkGraph.build(links, query.walkable)
        self._last_repaired = False
        self._last_changed_cells = 0
        early = reason_before_search(query.walkable, query.start, query.goal)
        if early is not None:
            return PathResult.none(early)
        if linked is None and region_cache.known_unreachable(query):
            # Proven before any search (as `find_path` does): the kept state waits, and the
            # next plan repairs every change since at once, to the same path.
            return PathResult.none(Reason.UNREACHABLE)
        height, width = query.walkable.shape
        engine = self._engine
        changed_shape = self._shape is not None and self._shape != (height, width)
        if engine is None or changed_shape or linked is not self._engine_links:
            engine = self._engine = self._new_engine(height, width, linked)
            self._engine_links = linked
            self._shape = (height, width)
        flat_goal = query.goal[0] * width + query.goal[1]
        fresh = flat_goal != self._goal or query.heuristic_scale != self._scale
        self._goal, self._scale = flat_goal, query.heuristic_scale
        found, cells, cost, expanded, changed, repaired = engine.plan(
            np.ascontiguousarray(query.walkable),
            None if query.costs is None else np.ascontiguousarray(query.costs),
            query.start[0] * width + query.start[1],
            flat_goal,
            query.heuristic_scale,
            fresh=fresh,
        )
        self._last_repaired = repaired
        self._last_changed_cells = height * width if changed_shape else changed
        if not found:
            unreachable = PathResult.none(Reason.UNREACHABLE, expanded)
            if linked is None:
                region_cache.learn(query, unreachable)
            return unreachable
        return PathResult(True, cells, cost, expanded, Reason.FOUND)

    def _uses_c(self) -> bool:
        return self._implementation is Implementation.C or (
            self._implementation is Implementation.AUTO and INCREMENTAL_AVAILABLE
        )

    def _new_engine(self, height: int, width: int, links: LinkGraph | None) -> _Engine:
        if self._uses_c() and height * width <= MAX_C_CELLS:
            eight = self._rule is not DiagonalRule.NEVER
            compiled = _incremental.Planner(height, width, eight, self._heuristic.code)
            if links is None:
                planner: _Engine = compiled
                return planner
            compiled.set_links(*links.csr(), *links.csr(reverse=True))
            return _LinkedPlanner(compiled, links, self._heuristic)
        return DStarLite(height, width, rule=self._rule, heuristic=self._heuristic, links=links)


class _LinkedPlanner:
    """The compiled planner with links: hands it the start's link bounds on every plan.

    The bounds (`LinkGraph.bounds` from the start, over the links reversed) are what
    `DStarLite` computes for itself when its start moves; C reads them as two arrays.
    """

    def __init__(self, planner: Any, links: LinkGraph, heuristic: Heuristic) -> None:
        self._planner = planner
        self._links = links
        self._heuristic = heuristic

    def plan(
        self,
        walkable: NDArray[np.bool_],
        costs: NDArray[np.float64] | None,
        start: int,
        goal: int,
        h_factor: float,
        /,
        *,
        fresh: bool,
    ) -> PlanOutcome:
        width = walkable.shape[1]
        here = divmod(start, width)
        bounds = self._links.bounds(here, self._heuristic, h_factor, reverse=True)
        outcome: PlanOutcome = self._planner.plan(
            walkable,
            costs,
            start,
            goal,
            h_factor,
            fresh=fresh,
            bound_cells=np.array([row * width + col for row, col, _ in bounds], dtype=np.int32),
            bound_offsets=np.array([d for _, _, d in bounds], dtype=np.float64),
        )
        return outcome
