"""Distance fields: one reverse Dijkstra from a goal that every agent chasing it can follow.

Many agents with one goal need not search once each: a single Dijkstra run outward from the
goal gives every cell its cost to the goal, and an agent anywhere walks downhill from there
(the "flow field" of crowd games).

The field follows `find_path`'s move rules exactly, through the same `MoveGraph`: 4 or 8
neighbours, no corner cutting, and a step ``a -> b`` costs its length (1 or sqrt(2)) times the
cost of the cell it *enters*, ``b``. Legal moves are symmetric (a diagonal between ``a`` and
``b`` passes the same two orthogonal cells both ways), so the search runs outward from the
goal over the same tables and charges each step ``b <- a`` at ``cell_cost[b]``: the field of a
cell is then exactly the optimal cost `find_path` finds from it, ``inf`` where the goal cannot
be reached. `descend` takes the cheapest legal step downhill; repeating it (`field_path`)
walks an optimal path.

The search state is one flat list indexed by ``row * width + col`` and a heap of
``(cost, cell)``: the shape a compiled kernel can take over (`_reverse_dijkstra` is the seam).

With links (`sim.navigation.links`) the field walks each link backwards, from its end to its
start (a one-way link too: the field is the cost *to* the goal), charging the link's cost, and
`descend` may step along a link: the field of a cell stays the cost `find_path(...,
links=...)` finds from it, in C (`_linked.c`) as in Python, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from heapq import heappop, heappush
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.navigation.grid import Cell
from sim.navigation.link_graph import LinkGraph
from sim.navigation.links import NavLink
from sim.navigation.moves import MoveGraph
from sim.navigation.query import Implementation, parse_implementation

TIE_SCALE = 2.0**30
"""Step values are floored to multiples of 1 / TIE_SCALE before comparing, as in `search`."""


def distance_field(
    walkable: NDArray[np.bool_],
    goal: Cell,
    *,
    diagonal: bool | str = True,
    costs: NDArray[Any] | None = None,
    implementation: str = "auto",
    links: Sequence[NavLink] | None = None,
) -> NDArray[np.float64]:
    """Return ``[row, col]`` the optimal cost from each cell to `goal`; ``inf`` if unreachable.

    The cost is the one `find_path(walkable, cell, goal, ...)` reports for the same `diagonal`
    and `costs`: steps cost 1 or sqrt(2) times the cost of the cell entered, diagonals pass
    corners as the rule allows (never cut by default). Blocked cells are ``inf``; a blocked
    `goal` makes every cell ``inf``.

    Args:
        walkable: 2-D bool array, True where a path may go.
        goal: ``(row, col)``; must lie in the grid.
        diagonal: True, False or a diagonal rule name, as for `find_path`
            (`sim.navigation.diagonal`).
        costs: optional per-cell multiplier, finite, 0.25 to 100 on walkable cells.
        implementation: "c" runs the compiled kernel (`sim.navigation.searches.kernel.field_flat`),
            "python" the loop of `_reverse_dijkstra`, "auto" the kernel when it is built; both
            give identical fields (``==`` on every cell).
        links: links a path may take (`sim.navigation.links.NavLink`), walked backwards.

    Raises:
        ValueError: naming the value, for a bad mask or costs, a goal outside the grid, an
            unknown implementation or diagonal rule, "c" when the kernel is not built, or a
            bad link (`sim.navigation.links.check_links`).

    >>> walkable = np.array([[1, 1, 1], [0, 1, 1], [1, 1, 1]], dtype=bool)
    >>> distance_field(walkable, (2, 0)).round(4).tolist()  # no cutting round (1, 0)
    [[4.0, 3.0, 3.4142], [inf, 2.0, 2.4142], [0.0, 1.0, 2.0]]
    """
    chosen = _check_implementation(implementation)
    graph = MoveGraph.build(walkable, diagonal=diagonal, costs=costs)
    linked = None if not links else LinkGraph.build(links, graph.walkable)
    flat = _reverse_dijkstra(graph, _flat_cell(graph, "goal", goal), chosen, linked)
    return np.array(flat, dtype=np.float64).reshape(graph.height, graph.width)


def field_on_graph(
    graph: MoveGraph,
    goal: int,
    *,
    implementation: str = "auto",
    links: LinkGraph | None = None,
) -> list[float]:
    """Return the flat cost-to-`goal` of every cell of `graph` (flat `goal` in the grid).

    The form for callers that keep a `MoveGraph` and follow the field many times;
    `implementation` as in `distance_field`, `links` built once (`LinkGraph.build`).

    >>> field_on_graph(MoveGraph.build(np.ones((1, 3), dtype=bool)), 0)
    [0.0, 1.0, 2.0]
    """
    if not 0 <= goal < graph.height * graph.width:
        raise ValueError(f"goal {goal!r} lies outside the {graph.height}x{graph.width} grid")
    return _reverse_dijkstra(graph, goal, parse_implementation(implementation), links)


def _check_implementation(implementation: str) -> Implementation:
    """`implementation` as a value; ValueError for a bad name, or "c" when C is not built."""
    # Imported here: importing kernel warns once when the extension is not built.
    from sim.navigation.searches import kernel

    chosen = parse_implementation(implementation)
    kernel.choose(chosen)  # a ValueError for "c" without the kernel; the answer later
    return chosen


def _reverse_dijkstra(
    graph: MoveGraph, goal: int, implementation: Implementation, links: LinkGraph | None = None
) -> list[float]:
    """Dijkstra outward from `goal`; each step ``neighbour -> current`` costs entering current.

    The seam for the compiled kernel: `kernel.field_flat` (``_kernel.field``) when
    `kernel.choose` says so, else the reference loop `_reverse_dijkstra_python`.
    Both return the same flat list of costs, bit for bit.
    """
    from sim.navigation.searches import kernel

    in_c = kernel.choose(implementation)
    if in_c:
        costs = (
            np.array(graph.cell_cost, dtype=np.float64).reshape(graph.height, graph.width)
            if graph.has_costs
            else None
        )
    if links is not None:
        if in_c and kernel.LINKS_AVAILABLE:
            walkable = np.ascontiguousarray(graph.walkable)
            linked: list[float] = kernel.linked_field(
                walkable, costs, goal, graph.rule, links
            ).tolist()
            return linked
        if implementation is Implementation.C:
            raise ValueError("implementation='c' but the compiled search with links is not built")
        return _reverse_dijkstra_python(graph, goal, links)
    if in_c:
        field = kernel.field_flat(
            np.ascontiguousarray(graph.walkable), costs, goal, diagonal=graph.rule
        )
        flat: list[float] = field.tolist()
        return flat
    return _reverse_dijkstra_python(graph, goal)


def _reverse_dijkstra_python(
    graph: MoveGraph, goal: int, links: LinkGraph | None = None
) -> list[float]:
    """The reference loop of `_reverse_dijkstra`, and the fallback when C is not built.

    It reads only ``graph.legal``, ``graph.moves`` and ``graph.cell_cost`` (and the links
    arriving at each cell, walked back to their start) and returns a flat list of costs.
    """
    walkable = graph.walkable.ravel()
    into = {} if links is None else links.into
    size = graph.height * graph.width
    cost_so_far = [math.inf] * size
    gy, gx = divmod(goal, graph.width)
    if not graph.walkable[gy, gx]:
        return cost_so_far
    legal, moves, cell_cost = graph.legal, graph.moves, graph.cell_cost
    closed = bytearray(size)
    cost_so_far[goal] = 0.0
    frontier: list[tuple[float, int]] = [(0.0, goal)]
    while frontier:
        g, current = heappop(frontier)
        if closed[current]:
            continue  # a stale entry: pushed again with a lower cost
        closed[current] = 1
        # Moves are symmetric, so the cells that can step into `current` are its neighbours.
        enter = cell_cost[current]
        for offset, length in moves[legal[current]]:
            neighbour = current + offset
            if closed[neighbour]:
                continue
            new_cost = g + length * enter
            if new_cost < cost_so_far[neighbour]:
                cost_so_far[neighbour] = new_cost
                heappush(frontier, (new_cost, neighbour))
        for neighbour, hop in into.get(current, ()):
            if closed[neighbour] or not walkable[neighbour]:
                continue
            if g + hop < cost_so_far[neighbour]:
                cost_so_far[neighbour] = g + hop
                heappush(frontier, (g + hop, neighbour))
    return cost_so_far


def descend(
    field: NDArray[np.float64],
    cell: Cell,
    *,
    walkable: NDArray[np.bool_],
    diagonal: bool | str = True,
    costs: NDArray[Any] | None = None,
    links: Sequence[NavLink] | None = None,
) -> Cell | None:
    """Return the legal neighbour of `cell` with the smallest field value + step cost.

    None when `cell` is the goal (field 0), cannot reach it (``inf``) or has no legal move.
    Ties (to about 1e-9) go to the neighbour first in `DIRECTIONS` order, so runs repeat. With
    `links`, the far end of a link out of `cell` competes too (field + link cost), after the
    neighbours.

    >>> walkable = np.ones((2, 2), dtype=bool)
    >>> descend(distance_field(walkable, (1, 1)), (0, 0), walkable=walkable)
    (1, 1)
    """
    graph = MoveGraph.build(walkable, diagonal=diagonal, costs=costs)
    flat = _flat_field(graph, field)
    linked = None if not links else LinkGraph.build(links, graph.walkable)
    following = descend_on_graph(graph, flat, _flat_cell(graph, "cell", cell), linked)
    return None if following is None else divmod(following, graph.width)


def descend_on_graph(
    graph: MoveGraph, field: list[float], cell: int, links: LinkGraph | None = None
) -> int | None:
    """`descend` on flat cells of a `MoveGraph` with a flat `field` (see `field_on_graph`)."""
    here = field[cell]
    if here == 0.0 or here == math.inf:
        return None
    best, best_value = None, math.inf
    cell_cost = graph.cell_cost
    for offset, length in graph.moves[graph.legal[cell]]:
        neighbour = cell + offset
        value = (field[neighbour] + length * cell_cost[neighbour]) * TIE_SCALE // 1.0
        if value < best_value:
            best, best_value = neighbour, value
    if links is not None:
        walkable = graph.walkable.ravel()
        for end, hop in links.out.get(cell, ()):
            value = (field[end] + hop) * TIE_SCALE // 1.0
            if walkable[end] and value < best_value:
                best, best_value = end, value
    return best


def field_path(
    field: NDArray[np.float64],
    start: Cell,
    *,
    walkable: NDArray[np.bool_],
    diagonal: bool | str = True,
    costs: NDArray[Any] | None = None,
    links: Sequence[NavLink] | None = None,
) -> list[Cell]:
    """Follow `field` downhill from `start` to its goal; both ends included.

    Empty when `start` cannot reach the goal; ``[start]`` when it is the goal. The path's cost
    equals ``field[start]`` (an optimal path, as `find_path` would find). With `links` (as in
    `descend`) a step may be a link, its two ends listed one after the other; the walk ends at
    field 0, so a link of cost 0 into the goal ends it at that link's start.

    >>> walkable = np.array([[1, 1, 1], [0, 1, 1], [1, 1, 1]], dtype=bool)
    >>> field_path(distance_field(walkable, (2, 0)), (0, 0), walkable=walkable)
    [(0, 0), (0, 1), (1, 1), (2, 1), (2, 0)]
    """
    graph = MoveGraph.build(walkable, diagonal=diagonal, costs=costs)
    flat = _flat_field(graph, field)
    linked = None if not links else LinkGraph.build(links, graph.walkable)
    cells = path_on_graph(graph, flat, _flat_cell(graph, "start", start), links=linked)
    return [divmod(cell, graph.width) for cell in cells]


def path_on_graph(
    graph: MoveGraph,
    field: list[float],
    start: int,
    *,
    max_cells: int | None = None,
    links: LinkGraph | None = None,
) -> list[int]:
    """`field_path` on flat cells; stops after `max_cells` cells when given (a look-ahead)."""
    if field[start] == math.inf:
        return []
    path = [start]
    limit = graph.height * graph.width if max_cells is None else max_cells
    while len(path) < limit:
        following = descend_on_graph(graph, field, path[-1], links)
        if following is None:
            break
        path.append(following)
    return path


def _flat_cell(graph: MoveGraph, name: str, cell: object) -> int:
    """Check `cell` is a ``(row, col)`` of ints inside the grid; return its flat index."""
    parts = tuple(cell) if isinstance(cell, tuple | list) else ()
    if len(parts) != 2 or not all(
        isinstance(part, int | np.integer) and not isinstance(part, bool) for part in parts
    ):
        raise ValueError(f"{name} must be a (row, col) pair of integers, got {cell!r}")
    row, col = int(parts[0]), int(parts[1])
    if not (0 <= row < graph.height and 0 <= col < graph.width):
        raise ValueError(f"{name} {cell!r} lies outside the {graph.height}x{graph.width} grid")
    return row * graph.width + col


def _flat_field(graph: MoveGraph, field: NDArray[np.float64]) -> list[float]:
    if np.shape(field) != (graph.height, graph.width):
        raise ValueError(
            f"field has shape {np.shape(field)}, expected the grid's {(graph.height, graph.width)}"
        )
    flat: list[float] = np.asarray(field, dtype=np.float64).ravel().tolist()
    return flat
