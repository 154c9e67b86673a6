"""Run every search variant on one grid and say which found the shortest path, and at what price.

`compare_searches` runs 15 searches between the same two cells: A* with each of the four
distance heuristics, weighted A* with the same four, greedy best-first with the same four,
then Dijkstra, breadth-first and depth-first search. Every one runs the Python reference loop,
`Search` (what ``find_path(..., implementation="python")`` runs), on one `MoveGraph` built
once: the compiled kernel does not run dfs, and one loop for all keeps the times comparable
with each other (not with the kernel, which is many times faster).
Dijkstra's cost is the optimum every other row is measured against. With ``more=True`` the
searches with loops of their own follow (`more_order`: jump point search, bidirectional A*,
Theta*), each once with the tightest admissible heuristic, where the query allows them; they
run their own setup each time, so their times include it. Theta*'s any-angle path may be
shorter than Dijkstra's: its gap is then negative, and it is not marked. `format_table` lays the
rows out as plain text for a terminal. The searches, their labels, their rows' order and how
each row is judged come from their declarations (`sim.navigation.catalogue`, each search's
``table``); `table_order` puts them in rows.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.catalogue import DISTANCE_HEURISTICS, SearchKind
from sim.navigation.diagonal import DiagonalRule, parse_diagonal
from sim.navigation.grid import Cell
from sim.navigation.heuristics import Heuristic
from sim.navigation.moves import MoveGraph
from sim.navigation.query import Algorithm, PathResult, Query, Reason, SearchSettings
from sim.navigation.searches.best_first import Search
from sim.navigation.searches.declaration import RowCase, SearchProblem

FOOTNOTE = "not a shortest path: gap = cost - Dijkstra's cost (the optimum), and in % of it"
"""What the ``*`` of `format_table` means (its last line when a row is marked)."""

OPTIMAL_REL_TOLERANCE = 1e-9
"""A row is optimal when its cost is within this relative distance of Dijkstra's."""


@dataclass(frozen=True, slots=True)
class ComparisonRow:
    """One search of a comparison: what ran, what it found, how long it took.

    Attributes:
        algorithm: the variant run.
        heuristic: the heuristic used; None for dijkstra, bfs, dfs and theta (whose straight
            line is no choice).
        weight: the weight on the heuristic (1.0 except for weighted A*).
        label: a name for people: "A*", "weighted A* x1.5", "greedy", "Dijkstra", "BFS", "DFS"
            (and with ``more``: "JPS", "bidirectional", "Theta*").
        found: whether a path was found (all rows agree: every variant is complete).
        expanded: cells expanded.
        ms: fastest wall-clock time of the repeats in milliseconds: the Python reference
            loop, without building the MoveGraph (shared by all rows); `more_order`'s rows
            include their own setup.
        cost: path cost times the comparison's `cost_scale`; inf when not found.
        gap: ``cost - optimal`` (same units), 0.0 for an optimal row, None when no path;
            negative for a Theta* path shorter than any path along the grid's moves.
        optimal: the cost is within a relative 1e-9 of Dijkstra's (False when no path).
        guaranteed: this variant on this grid always returns a shortest path: Dijkstra; A*
            with weight 1, JPS and bidirectional A*, each with a heuristic admissible on this
            connectivity; BFS on a 4-connected grid whose walkable cells all cost the same.
        note: a few words on the row: why it may miss the optimum, or "no path (reason)".
        path: the cells of the path found, start to goal; empty when not found.
        reason: how the search ended (`Reason.FOUND` or why there is no path).
    """

    algorithm: Algorithm
    heuristic: Heuristic | None
    weight: float
    label: str
    found: bool
    expanded: int
    ms: float
    cost: float
    gap: float | None
    optimal: bool
    guaranteed: bool
    note: str
    path: tuple[Cell, ...] = ()
    reason: Reason = Reason.FOUND

    @property
    def name(self) -> str:
        """The search in a few words: the label and, where one is used, the heuristic.

        >>> rows = compare_searches(np.ones((2, 2), dtype=bool), (0, 0), (1, 1), repeat=1)
        >>> rows[1].name, rows[12].name
        ('A* octile', 'Dijkstra')
        """
        return self.label if self.heuristic is None else f"{self.label} {self.heuristic.value}"

    @property
    def marked(self) -> bool:
        """Whether `format_table` marks the row ``*``: a path longer than the optimum.

        Theta*'s any-angle path may be shorter than any along the grid's moves: no fault.
        """
        return self.found and not self.optimal and (self.gap is None or self.gap > 0)


@dataclass(frozen=True, slots=True)
class _Variant:
    kind: SearchKind
    heuristic: Heuristic | None
    weight: float
    label: str

    @property
    def algorithm(self) -> Algorithm:
        return self.kind.algorithm


def compare_searches(
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    *,
    diagonal: bool | str = True,
    weight: float = 1.5,
    costs: NDArray[Any] | None = None,
    repeat: int = 3,
    cost_scale: float = 1.0,
    more: bool = False,
) -> list[ComparisonRow]:
    """Run the 15 search variants from `start` to `goal` and compare them with Dijkstra.

    Rows, in order: A* with manhattan, octile, euclidean, chebyshev; weighted A* (`weight`)
    with the same four; greedy with the same four; Dijkstra; BFS; DFS. Each runs `repeat`
    times on the Python reference loop (as ``find_path(..., implementation="python")``, so
    dfs runs and all rows run the same code) over one MoveGraph built up front;
    `ComparisonRow.ms` is the fastest run of the search alone.

    Args:
        walkable: ``[row, col]`` bool mask, as for `find_path`.
        start: the first cell ``(row, col)``.
        goal: the last cell.
        diagonal: True, False or a diagonal rule's name (`sim.navigation.diagonal`).
        weight: the heuristic weight of the weighted A* rows, >= 1.
        costs: optional per-cell cost multiplier, as for `find_path`.
        repeat: runs per row, >= 1; the fastest counts.
        cost_scale: multiplies every cost and gap, e.g. a scene's cell size for world units.
        more: also run `more_order`'s searches (a row each where the query allows it).

    Returns:
        15 rows (up to 18 with `more`); no path makes rows with ``found=False``, never an
        exception.

    Raises:
        ValueError: naming the value, for what `find_path` rejects, a `repeat` below 1 or a
            `cost_scale` that is not finite and > 0.

    >>> walkable = np.ones((3, 3), dtype=bool)
    >>> rows = compare_searches(walkable, (0, 0), (2, 2), repeat=1)
    >>> [(row.label, row.heuristic, row.optimal) for row in rows[12:]]
    [('Dijkstra', None, True), ('BFS', None, True), ('DFS', None, True)]
    >>> rows[0].guaranteed, rows[1].guaranteed, rows[14].guaranteed  # manhattan on 8-connected
    (False, True, False)
    """
    if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
        raise ValueError(f"repeat must be an integer >= 1, got {repeat!r}")
    if isinstance(cost_scale, bool) or not (math.isfinite(cost_scale) and cost_scale > 0):
        raise ValueError(f"cost_scale must be finite and > 0, got {cost_scale!r}")
    rule = parse_diagonal(diagonal)
    # The rows' heuristics and guarantees ask only whether diagonal moves exist: every rule that
    # has them costs them sqrt(2), so octile stays admissible under all three.
    eight = rule is not DiagonalRule.NEVER
    # One graph for all: the times are the searches alone, not 15 copies of the same setup.
    graph = MoveGraph.build(walkable, diagonal=rule, costs=costs)
    runs = []
    for variant in _variants(weight):
        result, ms = _timed(graph, start, goal, variant, repeat=repeat)
        runs.append((variant, result, ms))
    if more:
        runs += _more_runs(walkable, start, goal, rule=rule, costs=costs, repeat=repeat)
    optimum = next(r for v, r, _ in runs if v.kind.table.optimum).cost
    uniform = _uniform_costs(walkable, costs)
    return [
        _row(
            variant,
            result,
            ms,
            optimum=optimum,
            diagonal=eight,
            uniform=uniform,
            cost_scale=cost_scale,
        )
        for variant, result, ms in runs
    ]


def format_table(rows: Sequence[ComparisonRow], *, cost_unit: str = "") -> list[str]:
    """Lay `rows` out as an aligned plain-text table, one string per line.

    Columns: algorithm, heuristic, expanded, ms, cost, gap, mark, note. A row that is not
    optimal is marked ``*`` with its gap, e.g. ``+3.41 (+14%)``, and a footnote says what the
    mark means. `cost_unit` (e.g. "m") is named in the cost header.

    >>> from dataclasses import replace
    >>> text = ("....#", ".##..", ".....", "..#.#")  # '#' is a wall
    >>> walkable = np.array([[char == "." for char in row] for row in text])
    >>> rows = compare_searches(walkable, (1, 0), (1, 4), repeat=1)
    >>> rows = [replace(row, ms=0.0) for row in rows]  # times vary; hide them
    >>> for line in format_table(rows[8:]):
    ...     print(line)
    algorithm  heuristic  expanded    ms  cost  gap           mark  note
    greedy     manhattan         7  0.00  6.00  +0.59 (+11%)  *     ignores the cost so far
    greedy     octile            7  0.00  6.00  +0.59 (+11%)  *     ignores the cost so far
    greedy     euclidean         7  0.00  6.00  +0.59 (+11%)  *     ignores the cost so far
    greedy     chebyshev         7  0.00  6.00  +0.59 (+11%)  *     ignores the cost so far
    Dijkstra   -                15  0.00  5.41  0                   the optimum
    BFS        -                13  0.00  5.41  0                   fewest moves, not least cost
    DFS        -                 8  0.00  8.24  +2.83 (+52%)  *     baseline, not shortest
    * not a shortest path: gap = cost - Dijkstra's cost (the optimum), and in % of it
    """
    cost_header = f"cost ({cost_unit})" if cost_unit else "cost"
    header = ("algorithm", "heuristic", "expanded", "ms", cost_header, "gap", "mark", "note")
    table = [header]
    for row in rows:
        table.append(
            (
                row.label,
                "-" if row.heuristic is None else row.heuristic.value,
                str(row.expanded),
                f"{row.ms:.2f}",
                f"{row.cost:.2f}" if row.found else "no path",
                _gap_text(row),
                "*" if _marked(row) else "",
                row.note,
            )
        )
    right_aligned = {2, 3, 4}
    widths = [max(len(line[column]) for line in table) for column in range(len(header))]
    lines = [
        "  ".join(
            cell.rjust(widths[column]) if column in right_aligned else cell.ljust(widths[column])
            for column, cell in enumerate(line)
        ).rstrip()
        for line in table
    ]
    if any(_marked(row) for row in rows):
        lines.append(f"* {FOOTNOTE}")
    return lines


def table_order() -> list[SearchKind]:
    """The searches run on the shared loop, in table order.

    Each that takes a heuristic is run with every one of `DISTANCE_HEURISTICS`, in that order.

    >>> [kind.label for kind in table_order()]
    ['A*', 'weighted A*', 'greedy', 'Dijkstra', 'BFS', 'DFS']
    """
    return sorted((k for k in SearchKind if not k.table.own_loop), key=lambda k: k.table.order)


def more_order() -> list[SearchKind]:
    """The searches with loops of their own, in the order of their rows.

    ``more=True`` adds a row for each after `table_order`'s, where the query allows it (JPS
    only 8-connected without corner cutting and without costs, Theta* without costs).

    >>> [kind.label for kind in more_order()]
    ['JPS', 'bidirectional', 'Theta*']
    """
    return sorted((k for k in SearchKind if k.table.own_loop), key=lambda k: k.table.order)


def _variants(weight: float) -> list[_Variant]:
    """One variant per row, in `table_order`, with every heuristic for those taking one."""
    variants = []
    for kind in table_order():
        # A weight that is not a number fails in Search; its label must not fail first.
        label = kind.titled(weight) if isinstance(weight, int | float) else kind.label
        heuristics = DISTANCE_HEURISTICS if kind.takes_heuristic else (None,)
        kind_weight = weight if kind.takes_weight else 1.0
        variants += [_Variant(kind, heuristic, kind_weight, label) for heuristic in heuristics]
    return variants


def _more_runs(
    walkable: NDArray[np.bool_],
    start: Cell,
    goal: Cell,
    *,
    rule: DiagonalRule,
    costs: NDArray[Any] | None,
    repeat: int,
) -> list[tuple[_Variant, PathResult, float]]:
    """Run `more_order`'s searches the query allows; skip those it refuses (JPS on 4 moves...)."""
    heuristic = Heuristic.MANHATTAN if rule is DiagonalRule.NEVER else Heuristic.OCTILE
    runs = []
    for kind in more_order():
        used = heuristic if kind.takes_heuristic else None
        try:
            settings = SearchSettings(
                rule=rule, heuristic=used or Heuristic.ZERO, algorithm=kind.algorithm, costs=costs
            )
            query = Query.check(walkable, start, goal, settings)
            kind.check(SearchProblem(walkable, start, goal, settings))
        except ValueError:  # this search cannot run this query: no row, as no button works
            continue
        best, result = math.inf, None
        for _ in range(repeat):
            began = time.perf_counter()
            result = kind.solver(query)
            best = min(best, (time.perf_counter() - began) * 1000.0)
        if result is not None:
            runs.append((_Variant(kind, used, 1.0, kind.label), result, best))
    return runs


def _timed(
    graph: MoveGraph, start: Cell, goal: Cell, variant: _Variant, *, repeat: int
) -> tuple[PathResult, float]:
    """Run one variant `repeat` times; return its result and the fastest time in ms."""
    best = math.inf
    result: PathResult | None = None
    settings = SearchSettings(
        heuristic=variant.heuristic or Heuristic.ZERO,
        algorithm=variant.algorithm,
        weight=variant.weight,
    )
    for _ in range(repeat):
        began = time.perf_counter()
        result = Search.with_settings(graph, start, goal, settings).run()
        best = min(best, (time.perf_counter() - began) * 1000.0)
    if result is None:  # repeat >= 1 was checked; this keeps the type honest
        raise ValueError(f"repeat must be >= 1, got {repeat!r}")
    return result, best


def _row(
    variant: _Variant,
    result: PathResult,
    ms: float,
    *,
    optimum: float,
    diagonal: bool,
    uniform: bool,
    cost_scale: float,
) -> ComparisonRow:
    case = RowCase(variant.heuristic, variant.weight, diagonal, uniform)
    guaranteed = variant.kind.table.guaranteed(case)
    optimal = result.found and math.isclose(
        result.cost, optimum, rel_tol=OPTIMAL_REL_TOLERANCE, abs_tol=0.0
    )
    if not result.found:
        gap, note = None, f"no path ({result.reason})"
    else:
        gap = 0.0 if optimal else (result.cost - optimum) * cost_scale
        note = variant.kind.table.note(case, guaranteed)
    return ComparisonRow(
        variant.algorithm,
        variant.heuristic,
        variant.weight,
        variant.label,
        found=result.found,
        expanded=result.expanded,
        ms=ms,
        cost=result.cost * cost_scale,
        gap=gap,
        optimal=optimal,
        guaranteed=guaranteed,
        note=note,
        path=result.cells,
        reason=result.reason,
    )


def _uniform_costs(walkable: NDArray[np.bool_], costs: NDArray[Any] | None) -> bool:
    """Whether every walkable cell costs the same (no costs at all counts)."""
    if costs is None:
        return True
    # find_path has already checked the shape and values by the time this runs.
    on_walkable = np.asarray(costs, dtype=np.float64)[walkable]
    return bool(on_walkable.size == 0 or (on_walkable == on_walkable.flat[0]).all())


def _marked(row: ComparisonRow) -> bool:
    return row.marked


def _gap_text(row: ComparisonRow) -> str:
    if row.gap is None:
        return "-"
    if row.optimal:
        return "0"
    percent = row.gap / (row.cost - row.gap) * 100.0 if row.cost > row.gap else math.inf
    shown = f"{percent:+.1f}%" if abs(percent) < 10.0 else f"{percent:+.0f}%"
    return f"{row.gap:+.2f} ({shown})"
