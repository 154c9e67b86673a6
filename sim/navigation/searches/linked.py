"""What every search shares to walk links: the lowered heuristic and a linked path's cost.

`bounded` lowers a grid heuristic by the bounds of `sim.navigation.link_graph.LinkGraph.bounds`
(that module proves the result admissible and consistent); `path_cost_with_links` sums a path
that may take links the way the searches relaxed it. Both are the Python side of what the
compiled kernel computes in the same order, so the two agree to the bit.
"""

from __future__ import annotations

import itertools
import math

from sim.navigation.heuristics import HeuristicFn
from sim.navigation.link_graph import LinkGraph
from sim.navigation.moves import MoveGraph


def bounded(
    h: float,
    row: int,
    col: int,
    bounds: tuple[tuple[int, int, float], ...],
    heuristic: HeuristicFn,
    h_factor: float,
) -> float:
    """`h` lowered by the link bounds (``(row, col, weight * D)``; `sim.navigation.link_graph`).

    The compiled kernel computes the same terms in the same order, so both agree to the bit.
    """
    for start_row, start_col, offset in bounds:
        via = h_factor * heuristic(abs(col - start_col), abs(row - start_row)) + offset
        if via < h:
            h = via
    return h


def path_cost_with_links(graph: MoveGraph, links: LinkGraph, flat_path: list[int]) -> float:
    """The cost of a path that may use links, summed in path order.

    Each step costs the cheaper of its legal grid move and a link joining the two cells, as the
    search relaxed them (a tie goes to the move).

    >>> import numpy as np
    >>> from sim.navigation.links import NavLink
    >>> walkable = np.ones((1, 4), dtype=bool)
    >>> links = LinkGraph.build([NavLink((0, 0), (0, 3), 0.5)], walkable)
    >>> path_cost_with_links(MoveGraph.build(walkable), links, [0, 3, 2])
    1.5
    """
    cell_cost, legal = graph.cell_cost, graph.legal
    total = 0.0
    for here, there in itertools.pairwise(flat_path):
        step = math.inf
        for offset, length in graph.moves[legal[here]]:
            if here + offset == there:
                step = length * cell_cost[there]
        for end, hop in links.out.get(here, ()):
            if end == there and hop < step:
                step = hop
        total += step
    return total
