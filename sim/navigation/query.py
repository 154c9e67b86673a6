"""A path query and its answer: what both search implementations take, check and return.

`SearchSettings` holds how to search (the diagonal rule, heuristic, algorithm, weight, costs and
implementation), each as a value: `find_path` makes one from its arguments, once
(`SearchSettings.parse`). `Query.check` turns a mask, two cells and settings into a checked
`Query`, or raises ValueError naming the bad value; the Python reference
(`sim.navigation.searches.best_first`) and the compiled kernel
(`sim.navigation.searches.kernel`) both read a query through these checks, so both reject the same
input with the same words. It also settles ``algorithm="auto"`` (`resolve_auto`): jump point
search where it finds the same paths faster, A* everywhere else. `reason_before_search` gives
the "no path" a query has before any expansion (a goal outside the grid, a blocked start or
goal), and `priority_terms` the one table that makes astar, greedy, dijkstra and bfs one loop.
Both answer with a `PathResult`.

>>> greedy = SearchSettings(algorithm=Algorithm.GREEDY)
>>> query = Query.check(np.ones((2, 2), dtype=bool), (0, 0), (1, 1), greedy)
>>> query.algorithm, query.heuristic, query.goal
(<Algorithm.GREEDY: 'greedy'>, <Heuristic.OCTILE: 'octile'>, (1, 1))
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.diagonal import DiagonalRule, parse_diagonal
from sim.navigation.grid import Cell, check_costs, check_walkable, heuristic_scale
from sim.navigation.heuristics import Heuristic, parse_heuristic

if TYPE_CHECKING:
    from sim.navigation.link_graph import LinkGraph


class Algorithm(StrEnum):
    """The search variants `find_path` runs (weighted A* is astar with weight > 1).

    JPS is jump point search (`sim.navigation.searches.jps`): A*'s optimal paths on 8-connected
    grids without cell costs, found expanding far fewer cells. BIDIRECTIONAL is A* from both ends
    (`sim.navigation.searches.bidirectional`): A*'s optimal cost, any moves and costs. THETA is
    Theta* (`sim.navigation.searches.theta`): any-angle paths without cell costs, whose cells are
    the path's vertices (consecutive ones see each other, not neighbours) and whose cost is the
    length of its straight segments.
    """

    ASTAR = "astar"
    DIJKSTRA = "dijkstra"
    BFS = "bfs"
    GREEDY = "greedy"
    DFS = "dfs"
    JPS = "jps"
    BIDIRECTIONAL = "bidirectional"
    THETA = "theta"


AUTO = "auto"
"""The `find_path` algorithm that picks the fastest exact search for the query (`resolve_auto`)."""


class Implementation(StrEnum):
    """Where a search runs: the compiled kernel when it is built (AUTO), C only, Python only."""

    AUTO = "auto"
    C = "c"
    PYTHON = "python"


def parse_implementation(name: object) -> Implementation:
    """Return the Implementation called `name`, or raise ValueError naming it.

    >>> parse_implementation("fortran")
    Traceback (most recent call last):
    ...
    ValueError: implementation must be auto, c or python, got 'fortran'
    """
    if isinstance(name, str):
        try:
            return Implementation(name)
        except ValueError:
            pass
    raise ValueError(f"implementation must be auto, c or python, got {name!r}")


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """How to search, apart from the mask and the cells: `find_path`'s options as values.

    Attributes:
        rule: the diagonal rule (`sim.navigation.diagonal.DiagonalRule`).
        heuristic: the heuristic (astar, greedy, jps and bidirectional use it).
        algorithm: the variant to run, or None for "auto": `resolve_auto` picks per query.
        weight: the heuristic weight, >= 1 (checked by `Query.check`).
        costs: per-cell cost multipliers as given (`Query.check` checks them against the
            mask), or None for 1 everywhere. Left out of ``==`` and the hash: an array has
            no single truth value.
        implementation: where the search runs (`sim.navigation.searches.kernel.choose`).

    >>> SearchSettings().common, SearchSettings(rule=DiagonalRule.NEVER).common
    (True, False)
    """

    rule: DiagonalRule = DiagonalRule.NO_CORNER_CUTTING
    heuristic: Heuristic = Heuristic.OCTILE
    algorithm: Algorithm | None = None
    weight: float = 1.0
    costs: NDArray[Any] | None = field(default=None, compare=False, repr=False)
    implementation: Implementation = Implementation.AUTO

    @classmethod
    def parse(
        cls,
        *,
        diagonal: object = True,
        heuristic: str = "octile",
        algorithm: str = AUTO,
        costs: NDArray[Any] | None = None,
        weight: float = 1.0,
        implementation: str = "auto",
    ) -> SearchSettings:
        """`find_path`'s options as it takes them (bools and names) made values, once.

        Raises:
            ValueError: naming the value, in this order: the diagonal rule
                (`sim.navigation.diagonal.parse_diagonal`), the algorithm, the heuristic, the
                weight, the implementation.

        >>> SearchSettings.parse(diagonal=False, algorithm="bfs")
        SearchSettings(rule=<DiagonalRule.NEVER: 'never'>, heuristic=<Heuristic.OCTILE: \
'octile'>, algorithm=<Algorithm.BFS: 'bfs'>, weight=1.0, implementation=<Implementation.AUTO: \
'auto'>)
        """
        rule = parse_diagonal(diagonal)
        chosen = None if algorithm == AUTO else parse_algorithm(algorithm)
        return cls(
            rule,
            parse_heuristic(heuristic),
            chosen,
            check_weight(weight),
            costs,
            parse_implementation(implementation),
        )

    @property
    def common(self) -> bool:
        """Whether every option is at its default: the call `sim.navigation.hot_path` answers."""
        return self.costs is None and self == DEFAULT_SETTINGS


DEFAULT_SETTINGS = SearchSettings()
"""Every option at its default: what `find_path` searches with when given none."""


class Reason(StrEnum):
    """How a search ended: FOUND, or why there is no path."""

    FOUND = "found"
    START_BLOCKED = "start blocked"
    GOAL_BLOCKED = "goal blocked"
    GOAL_OUTSIDE = "goal outside the grid"
    UNREACHABLE = "unreachable"


@dataclass(frozen=True, slots=True)
class PathResult:
    """The outcome of a search; "no path" is ``found=False`` with a reason, never an exception.

    Attributes:
        found: whether a path was found.
        cells: ``(row, col)`` of every cell from start to goal, both included; empty if not found.
        cost: sum over the steps of (1 or sqrt(2)) x the cost of the cell entered, in cells;
            0.0 when start == goal, ``inf`` when not found.
        expanded: how many cells were expanded (closed).
        reason: `Reason.FOUND`, or why not: start blocked, goal blocked, goal outside the
            grid, unreachable.
    """

    found: bool
    cells: tuple[Cell, ...]
    cost: float
    expanded: int
    reason: Reason

    @classmethod
    def none(cls, reason: Reason, expanded: int = 0) -> PathResult:
        """The result of a search that found no path, for `reason`.

        >>> none = PathResult.none(Reason.GOAL_BLOCKED)
        >>> none.found, none.cells, none.cost, none.expanded
        (False, (), inf, 0)
        """
        return cls(False, (), math.inf, expanded, reason)


@dataclass(frozen=True, slots=True, eq=False)
class Query:
    """A checked request for a path: everything a search needs, each value known to be valid.

    Build it with `Query.check`, which checks the arguments of `find_path` once.

    Attributes:
        walkable: the ``[row, col]`` bool mask (held, not copied).
        start: first cell ``(row, col)``, plain ints, inside the grid.
        goal: last cell ``(row, col)``, plain ints; may lie outside the grid (no path then).
        diagonal: whether the 4 diagonal moves are allowed (the rule is not "never").
        algorithm: the variant to run.
        heuristic: the heuristic asked for (astar and greedy use it; the others use zero).
        weight: the heuristic weight, a finite float >= 1 (astar uses it).
        costs: per-cell cost multipliers as float64, or None for 1 everywhere.
        heuristic_scale: the factor on the heuristic that keeps it a lower bound under
            `costs` (`sim.navigation.grid.heuristic_scale`): 1, or the smallest walkable
            cost when that is below 1.
        rule: the diagonal rule (`sim.navigation.diagonal.DiagonalRule`); `diagonal` is
            ``rule is not NEVER``.
        links: the links a path may take besides grid moves (`sim.navigation.link_graph`).
    """

    walkable: NDArray[np.bool_]
    start: Cell
    goal: Cell
    diagonal: bool
    algorithm: Algorithm
    heuristic: Heuristic
    weight: float
    costs: NDArray[np.float64] | None
    heuristic_scale: float
    rule: DiagonalRule
    links: LinkGraph | None = None

    @classmethod
    def check(
        cls,
        walkable: NDArray[np.bool_],
        start: Cell,
        goal: Cell,
        settings: SearchSettings = DEFAULT_SETTINGS,
    ) -> Query:
        """Check a mask, two cells and `settings` (see `find_path`) and return them as a Query.

        An algorithm of None ("auto") becomes the search `resolve_auto` picks. A query for jps
        or theta carries no costs (`check_jps`, `check_theta` let only costs of 1 through).

        Raises:
            ValueError: naming the value, in this order: the mask, the costs, the weight,
                what jps cannot run (`check_jps`), costs or a rule other than never /
                no-corner-cutting for theta (`check_theta`), a weight above 1 for
                bidirectional or theta, the start and goal cells, a start outside the grid.

        >>> Query.check(np.ones((2, 2), dtype=bool), (0, 0), (1, 1), SearchSettings(weight=0.5))
        Traceback (most recent call last):
        ...
        ValueError: weight must be a finite number >= 1, got 0.5
        >>> Query.check(np.ones((2, 2), dtype=bool), (0, 0), (1, 1)).algorithm
        <Algorithm.JPS: 'jps'>
        """
        walkable = check_walkable(walkable)
        checked_costs = check_costs(settings.costs, walkable)
        rule, chosen_heuristic = settings.rule, settings.heuristic
        weight = settings.weight
        checked_weight = check_weight(weight)
        if settings.algorithm is None:
            chosen_algorithm = resolve_auto(
                walkable,
                checked_costs,
                diagonal=rule,
                heuristic=chosen_heuristic,
                weight=checked_weight,
            )
        else:
            chosen_algorithm = settings.algorithm
        if chosen_algorithm is Algorithm.JPS:
            check_jps(
                walkable,
                checked_costs,
                diagonal=rule,
                heuristic=chosen_heuristic,
                weight=checked_weight,
            )
            checked_costs = None  # every walkable cell costs 1: the same as no costs
        if chosen_algorithm is Algorithm.THETA:
            check_theta(walkable, checked_costs, rule)
            checked_costs = None
        if chosen_algorithm in (Algorithm.BIDIRECTIONAL, Algorithm.THETA) and checked_weight != 1:
            raise ValueError(
                f"{chosen_algorithm} runs with weight 1 only, got {weight!r}; "
                "use algorithm='astar' for weighted A*"
            )
        checked_start, checked_goal = check_ends(start, goal, walkable.shape)
        return cls(
            walkable,
            checked_start,
            checked_goal,
            rule is not DiagonalRule.NEVER,
            chosen_algorithm,
            chosen_heuristic,
            checked_weight,
            checked_costs,
            heuristic_scale(walkable, checked_costs),
            rule,
        )

    @property
    def settings(self) -> SearchSettings:
        """The checked options as `SearchSettings` (its algorithm settled, its costs checked).

        >>> Query.check(np.ones((1, 2), dtype=bool), (0, 0), (0, 1)).settings.algorithm
        <Algorithm.JPS: 'jps'>
        """
        return SearchSettings(self.rule, self.heuristic, self.algorithm, self.weight, self.costs)


def check_options(
    algorithm: str, heuristic: str, weight: float
) -> tuple[Algorithm, Heuristic, float]:
    """Return the algorithm, heuristic and weight checked, or raise ValueError naming one.

    >>> check_options("astar", "octile", 2)
    (<Algorithm.ASTAR: 'astar'>, <Heuristic.OCTILE: 'octile'>, 2.0)
    """
    chosen_algorithm = parse_algorithm(algorithm)
    chosen_heuristic = parse_heuristic(heuristic)
    return chosen_algorithm, chosen_heuristic, check_weight(weight)


def parse_algorithm(name: str) -> Algorithm:
    """Return the Algorithm called `name`, or raise ValueError naming it and the choices.

    The choices named include "auto", which `Query.check` settles before it gets here.

    >>> parse_algorithm("ida*")
    Traceback (most recent call last):
    ...
    ValueError: unknown algorithm 'ida*'; expected one of auto, astar, dijkstra, bfs, greedy, dfs, jps, bidirectional, theta
    """  # noqa: E501
    try:
        return Algorithm(name)
    except ValueError:
        choices = ", ".join((AUTO, *(a.value for a in Algorithm)))
        raise ValueError(f"unknown algorithm {name!r}; expected one of {choices}") from None


def resolve_auto(
    walkable: NDArray[np.bool_],
    costs: NDArray[np.float64] | None,
    *,
    diagonal: DiagonalRule,
    heuristic: Heuristic,
    weight: float,
) -> Algorithm:
    """The search ``algorithm="auto"`` runs: JPS where it finds A*'s paths, else A*.

    Jump point search when every walkable cell costs 1 (no `costs`, or all 1.0 there), moves
    are 8-connected without corner cutting (`diagonal` no-corner-cutting: jps knows no other
    diagonal rule), the weight is 1 and the heuristic octile (the default: what A* would
    run); A* for anything else (terrain costs, 4-connected moves, weighted A*, another
    heuristic, another diagonal rule). Both find a shortest path, of the same cost.

    >>> grid = np.ones((3, 3), dtype=bool)
    >>> rule = DiagonalRule.NO_CORNER_CUTTING
    >>> resolve_auto(grid, None, diagonal=rule, heuristic=Heuristic.OCTILE, weight=1.0)
    <Algorithm.JPS: 'jps'>
    >>> rule = DiagonalRule.NEVER
    >>> resolve_auto(grid, None, diagonal=rule, heuristic=Heuristic.OCTILE, weight=1.0)
    <Algorithm.ASTAR: 'astar'>
    """
    if (
        diagonal is DiagonalRule.NO_CORNER_CUTTING
        and weight == 1.0
        and heuristic is Heuristic.OCTILE
        and (costs is None or unit_costs(walkable, costs))
    ):
        return Algorithm.JPS
    return Algorithm.ASTAR


def unit_costs(walkable: NDArray[np.bool_], costs: NDArray[np.float64]) -> bool:
    """Whether every walkable cell costs exactly 1 (blocked cells may hold anything).

    >>> unit_costs(np.array([[True, False]]), np.array([[1.0, np.inf]]))
    True
    """
    return bool(np.logical_or(costs == 1.0, ~walkable).all())


JPS_HEURISTICS: tuple[Heuristic, ...] = (
    Heuristic.OCTILE,
    Heuristic.EUCLIDEAN,
    Heuristic.CHEBYSHEV,
    Heuristic.ZERO,
)
"""The heuristics jump point search takes: those that never overestimate on 8-connected moves
(and are consistent). It never reopens a closed cell, so manhattan, which overestimates a
diagonal, could cost it optimality; jps refuses it."""


def check_theta(
    walkable: NDArray[np.bool_],
    costs: NDArray[np.float64] | None,
    rule: DiagonalRule = DiagonalRule.NO_CORNER_CUTTING,
) -> None:
    """Raise ValueError unless `costs` is None or 1 on every walkable cell: Theta* takes none.

    A straight segment crosses cells in unequal parts, so a cell's cost has no share of it to
    multiply; its cost is its length. Its line of sight is that of the no-corner-cutting
    rule (`sim.navigation.line_of_sight`), so it refuses "one-obstacle" and "always" too
    (their paths may squeeze where no segment may pass).

    >>> check_theta(np.ones((1, 2), dtype=bool), np.array([[1.0, 2.0]]))
    Traceback (most recent call last):
    ...
    ValueError: theta takes no cell costs (a segment's cost is its length), got costs[0, 1] = 2
    """
    if costs is not None and not unit_costs(walkable, costs):
        row, col = (int(i) for i in np.argwhere((costs != 1.0) & walkable)[0])
        raise ValueError(
            "theta takes no cell costs (a segment's cost is its length), got "
            f"costs[{row}, {col}] = {costs[row, col]:g}"
        )
    if rule not in (DiagonalRule.NEVER, DiagonalRule.NO_CORNER_CUTTING):
        raise ValueError(
            f"theta sees under the no-corner-cutting rule only, got diagonal={rule.value!r}; "
            "use algorithm='astar' or 'auto'"
        )


def check_jps(
    walkable: NDArray[np.bool_],
    costs: NDArray[np.float64] | None,
    *,
    diagonal: DiagonalRule,
    heuristic: Heuristic,
    weight: float,
) -> None:
    """Raise ValueError, in words, unless jump point search can run these settings.

    It needs every walkable cell to cost 1, 8-connected moves without corner cutting
    (`diagonal` no-corner-cutting), weight 1 and one of
    `JPS_HEURISTICS`; `resolve_auto` picks it only with octile.

    >>> check_jps(np.ones((1, 2), dtype=bool), np.array([[1.0, 2.0]]),
    ...           diagonal=DiagonalRule.NO_CORNER_CUTTING, heuristic=Heuristic.OCTILE,
    ...           weight=1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: jps needs a grid without costs (every walkable cell costing 1), ...
    """
    if costs is not None and not unit_costs(walkable, costs):
        row, col = (int(i) for i in np.argwhere((costs != 1.0) & walkable)[0])
        raise ValueError(
            "jps needs a grid without costs (every walkable cell costing 1), got "
            f"costs[{row}, {col}] = {costs[row, col]:g}; use algorithm='astar' or 'auto'"
        )
    rule = diagonal
    if rule is DiagonalRule.NEVER:
        raise ValueError(
            "jps needs 8-connected moves (diagonal=True); use algorithm='astar' or 'auto' "
            "on a 4-connected grid"
        )
    if rule is not DiagonalRule.NO_CORNER_CUTTING:
        raise ValueError(
            "jps needs the no-corner-cutting rule (diagonal=True), got "
            f"diagonal={rule.value!r}; use algorithm='astar' or 'auto'"
        )
    if heuristic not in JPS_HEURISTICS:
        names = ", ".join(h.value for h in JPS_HEURISTICS)
        raise ValueError(
            f"jps needs a heuristic that never overestimates on 8-connected moves ({names}), "
            f"got {heuristic.value!r}"
        )
    if weight != 1.0:
        raise ValueError(
            f"jps runs with weight 1 only, got {weight!r}; use algorithm='astar' for weighted A*"
        )


def check_weight(weight: object) -> float:
    """Return `weight` as a float if it is a finite number >= 1, else raise ValueError."""
    if isinstance(weight, bool) or not isinstance(weight, int | float | np.integer | np.floating):
        raise ValueError(f"weight must be a number >= 1, got {weight!r}")
    if not (math.isfinite(weight) and weight >= 1.0):
        raise ValueError(f"weight must be a finite number >= 1, got {weight!r}")
    return float(weight)


def check_ends(start: object, goal: object, shape: tuple[int, ...]) -> tuple[Cell, Cell]:
    """Return `start` and `goal` as plain int pairs; ValueError if not, or start off the grid.

    A goal outside the grid is allowed: the search answers it with `Reason.GOAL_OUTSIDE`.

    >>> check_ends((3, 0), (0, 0), (3, 3))
    Traceback (most recent call last):
    ...
    ValueError: start (3, 0) lies outside the 3x3 grid [row, col]
    """
    start_row, start_col = check_cell("start", start)
    goal_cell = check_cell("goal", goal)
    height, width = shape
    if not (0 <= start_row < height and 0 <= start_col < width):
        raise ValueError(f"start {start!r} lies outside the {height}x{width} grid [row, col]")
    return (start_row, start_col), goal_cell


def check_cell(name: str, cell: object) -> Cell:
    """Return `cell` as two Python ints, or raise ValueError naming it.

    >>> check_cell("goal", (np.int64(2), 1))
    (2, 1)
    """
    parts: tuple[Any, ...] = tuple(cell) if isinstance(cell, tuple | list) else ()
    if len(parts) == 2 and not any(isinstance(part, bool) for part in parts):
        try:
            return operator.index(parts[0]), operator.index(parts[1])
        except TypeError:
            pass
    raise ValueError(f"{name} must be a (row, col) pair of integers, got {cell!r}")


def reason_before_search(walkable: NDArray[np.bool_], start: Cell, goal: Cell) -> Reason | None:
    """Why there can be no path before any expansion, checked in this order, else None.

    A goal outside the grid, a blocked start, a blocked goal; `start` must lie in the grid.

    >>> walkable = np.array([[True, False]])
    >>> reason_before_search(walkable, (0, 0), (0, 1))
    <Reason.GOAL_BLOCKED: 'goal blocked'>
    """
    height, width = walkable.shape
    goal_row, goal_col = goal
    if not (0 <= goal_row < height and 0 <= goal_col < width):
        return Reason.GOAL_OUTSIDE
    if not walkable[start]:
        return Reason.START_BLOCKED
    if not walkable[goal]:
        return Reason.GOAL_BLOCKED
    return None


@dataclass(frozen=True, slots=True)
class PriorityTerms:
    """How a variant orders its frontier: priority ``g_weight * g + h_factor * h(heuristic)``.

    Attributes:
        heuristic: the heuristic the priorities use (zero for dijkstra, bfs and dfs).
        g_weight: weight on the cost so far: 1, or 0 for greedy.
        h_weight: weight on the heuristic: the query's weight for astar, else 1.
        h_scale: the heuristic's scale under cell costs (`sim.navigation.grid.heuristic_scale`)
            for astar and greedy; 1 for the others, which use no heuristic.
        unit_steps: every step has length 1 and no cell cost (bfs counts moves).
    """

    heuristic: Heuristic
    g_weight: float
    h_weight: float
    h_scale: float
    unit_steps: bool

    @property
    def h_factor(self) -> float:
        """``h_weight * h_scale``: the one factor on the heuristic, computed once per search.

        Both implementations compute ``h = h_factor * heuristic(dx, dy)`` with this same
        float, so their priorities agree to the last bit (and with no costs below 1 it is
        the weight itself: ``weight * 1.0 == weight``).
        """
        return self.h_weight * self.h_scale


def priority_terms(
    algorithm: Algorithm, heuristic: Heuristic, weight: float, scale: float = 1.0
) -> PriorityTerms:
    """The data that makes `algorithm` one loop with the others (`searches.best_first`).

    `scale` is the heuristic scale of the grid (`sim.navigation.grid.heuristic_scale`).
    jps orders its frontier as astar does (with weight and scale 1, all it runs with).
    dfs gets dijkstra's terms (h = 0, so f = g), though its stack ignores priorities.

    >>> terms = priority_terms(Algorithm.GREEDY, Heuristic.OCTILE, 2.0)
    >>> terms.heuristic, terms.g_weight, terms.h_weight
    (<Heuristic.OCTILE: 'octile'>, 0.0, 1.0)
    >>> priority_terms(Algorithm.ASTAR, Heuristic.OCTILE, 2.0, 0.25).h_factor
    0.5
    """
    if algorithm is Algorithm.ASTAR or algorithm is Algorithm.JPS:
        return PriorityTerms(heuristic, 1.0, float(weight), float(scale), unit_steps=False)
    if algorithm is Algorithm.GREEDY:
        return PriorityTerms(heuristic, 0.0, 1.0, float(scale), unit_steps=False)
    unit = algorithm is Algorithm.BFS
    return PriorityTerms(Heuristic.ZERO, 1.0, 1.0, 1.0, unit_steps=unit)
